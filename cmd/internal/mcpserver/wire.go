package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// MaxMessageBytes is the longest JSON-RPC message (one line) the server reads. The largest valid
// request, a 1 MB write, fits with room to spare; a longer line is refused as it streams in,
// never held in memory whole.
const MaxMessageBytes = 4 << 20

// metaCall is the key under params._meta that carries a request's call record number from the
// wire to the handler chain.
const metaCall = "mcpctl/call"

// wire sits between the client's stdio and mcp-go's stdio server: the outermost part of the
// request chain. Reading, it bounds each message, answers what JSON-RPC says is not a request
// (batches, a non-string method, an object id, requests before initialize) and opens a call
// record for each request; writing, it closes the record when the response leaves, and drops
// the response to a request the client cancelled (the client has forgotten its id). Every
// message in either direction becomes a traffic event.
type wire struct {
	obs       *observer
	clientIn  io.Reader
	clientOut io.Writer
	pr        *io.PipeReader // what mcp-go reads
	pw        *io.PipeWriter

	outMu sync.Mutex // one writer at a time on the client's stdout

	mu    sync.Mutex
	calls map[string]*call // open requests by id as sent
	bySeq map[int64]*call
	seq   int64
	// initialized is set by an initialize request, for the requests a client sends before its
	// answer, and kept only if one succeeds (opened): a failed initialize opens nothing.
	initialized, opened bool
	// idle, while the reader drains (stdin ended with requests open), is closed when the last
	// open request is answered.
	idle chan struct{}
	quit chan struct{} // closed when mcp-go has stopped listening (close)
	// recancels are the cancellations recancel is forwarding; close waits for them (closing
	// the pipe ends a write that mcp-go, stopped, will never read).
	recancels sync.WaitGroup
}

func (o *observer) wire(in io.Reader, out io.Writer) *wire {
	pr, pw := io.Pipe()
	w := &wire{obs: o, clientIn: in, clientOut: out, pr: pr, pw: pw, calls: map[string]*call{}, bySeq: map[int64]*call{}, quit: make(chan struct{})}
	o.w = w
	return w
}

// in is what mcp-go reads: the client's messages that passed the wire. It starts the reader.
func (w *wire) in() io.Reader {
	go func() {
		err := w.read()
		if err == nil {
			w.drain()
		}
		w.pw.CloseWithError(err)
	}()
	return w.pr
}

// awaited counts the open requests drain waits for: all but subscriptions/listen, a stream the
// server ends only when it is cancelled (or the session is), never by answering. w.mu is held.
func (w *wire) awaited() int {
	n := 0
	for _, c := range w.calls {
		if c.method != string(mcp.MethodSubscriptionsListen) {
			n++
		}
	}
	return n
}

// drainLimit bounds how long the server answers requests after the client's stdin has ended:
// long enough for a write waiting on the Prompteka app's answer. A client in a hurry sends
// SIGTERM, as the MCP lifecycle has it, and the server stops at once.
const drainLimit = 30 * time.Second

// drain waits, once the client's stdin has ended, until every request it sent is answered (at
// most drainLimit): mcp-go cancels every request in flight when its input ends, so a client
// that closes stdin right after its last request (a script piping requests in) would get
// "the server is shutting down" instead of its answer.
func (w *wire) drain() {
	w.mu.Lock()
	open := w.awaited()
	if open > 0 {
		w.idle = make(chan struct{})
	}
	idle := w.idle
	w.mu.Unlock()
	if open == 0 {
		return
	}
	timer := time.NewTimer(drainLimit)
	defer timer.Stop()
	select {
	case <-idle:
	case <-w.quit:
	case <-timer.C:
		w.mu.Lock()
		open = w.awaited()
		w.mu.Unlock()
		w.obs.log.Warn("the client's input ended; stopping without answering its last requests", "open", open, "waited", drainLimit.String())
	}
}

// out is what mcp-go writes to: one Write per message.
func (w *wire) out() io.Writer { return wireOut{w} }

// close ends the reader once mcp-go has stopped listening. When the session ended because the
// client's stdin did, the reader has already returned; when ctx ended it first, the reader may
// sit in a read of stdin, which only the process can end: it forwards nothing more (the pipe is
// closed) and goes with the process, as mcp-go's own reader does.
func (w *wire) close() {
	close(w.quit)
	w.pr.CloseWithError(io.ErrClosedPipe)
	w.recancels.Wait()
}

// read forwards the client's messages until its stdin ends.
func (w *wire) read() error {
	r := bufio.NewReaderSize(w.clientIn, 64<<10)
	var line bytes.Buffer
	for {
		line.Reset()
		over, tail, err := readLine(r, &line, MaxMessageBytes)
		if over > 0 {
			w.refuseOversized(line.Bytes(), tail, over)
		} else if line.Len() > 0 {
			if werr := w.inbound(line.Bytes()); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// envelope is what the wire reads of a client's message.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// validID reports whether a JSON-RPC id is a string or a number.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// inbound handles one message from the client: refuses it, or records it and passes it on.
func (w *wire) inbound(line []byte) error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] == '[' {
		w.reply(json.RawMessage("null"), mcp.INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported by MCP; send one message per line")
		return nil
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		return w.forward(line) // mcp-go answers a parse error
	}
	hasID := len(env.ID) > 0 && string(env.ID) != "null"
	var method string
	if len(env.Method) > 0 {
		if err := json.Unmarshal(env.Method, &method); err != nil {
			id := env.ID
			if !validID(id) {
				id = json.RawMessage("null")
			}
			w.reply(id, mcp.INVALID_REQUEST, "Invalid Request: method must be a string")
			return nil
		}
	}
	if hasID && !validID(env.ID) {
		w.reply(json.RawMessage("null"), mcp.INVALID_REQUEST, "Invalid Request: id must be a string or a number")
		return nil
	}
	if method == "" { // a response to a request of ours (sampling, roots)
		return w.forward(line)
	}
	if !hasID { // a notification
		if method == string(mcp.MethodNotificationCancelled) {
			w.cancel(env.Params)
		}
		w.obs.notification(method, "in", len(line), trimmed)
		return w.forward(line)
	}
	// mcp-go answers these under no id (a jsonrpc it cannot read), or not at all (a result):
	// their ids would stay in flight for the rest of the session.
	if string(env.JSONRPC) != `"2.0"` {
		w.reply(env.ID, mcp.INVALID_REQUEST, `Invalid Request: jsonrpc must be "2.0"`)
		return nil
	}
	if len(env.Result) > 0 || len(env.Error) > 0 {
		w.reply(env.ID, mcp.INVALID_REQUEST, "Invalid Request: a request has a method and no result or error")
		return nil
	}
	if method != string(mcp.MethodInitialize) && method != string(mcp.MethodPing) && !w.isInitialized() && !modern(env.Params) {
		w.reply(env.ID, mcp.INVALID_REQUEST, "Invalid Request: the session is not initialized; send initialize first")
		return nil
	}
	c := &call{id: string(env.ID), key: canonicalID(env.ID), method: method, name: requestName(method, env.Params), start: time.Now(), bytesIn: len(line),
		traced: w.obs.traced()}
	w.mu.Lock()
	if _, inFlight := w.calls[c.key]; inFlight {
		// A response names its request by id alone: two in flight under one id (a client that
		// reused the id of one it cancelled, before that one ended) would each take the
		// other's answer.
		w.mu.Unlock()
		w.reply(env.ID, mcp.INVALID_REQUEST, "Invalid Request: id "+c.key+" belongs to a request still in flight (one cancelled but not yet ended included); send each request with an id not used before in this session")
		return nil
	}
	if method == string(mcp.MethodInitialize) {
		w.initialized = true
	}
	w.seq++
	c.seq = w.seq
	w.calls[c.key] = c
	w.bySeq[c.seq] = c
	w.mu.Unlock()
	w.obs.request(c, trimmed)
	if chained(method) {
		if tagged, err := withMeta(trimmed, c.seq); err == nil {
			line = append(tagged, '\n')
		}
	}
	return w.forward(line)
}

// chained methods run through the handler chain and so carry their call record's number.
func chained(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet, mcp.MethodResourcesRead:
		return true
	}
	return false
}

func (w *wire) isInitialized() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.initialized
}

// modern reports whether a request carries its protocol version in _meta (the 2026 protocol,
// which has no initialize handshake).
func modern(params json.RawMessage) bool {
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta == nil {
		return false
	}
	return mcp.IsModernProtocol(p.Meta.ProtocolVersion())
}

// requestName is what a request is about: the tool or prompt name, or the resource URI.
func requestName(method string, params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	switch mcp.MCPMethod(method) {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet:
		_ = json.Unmarshal(params, &p)
		return p.Name
	case mcp.MethodResourcesRead:
		_ = json.Unmarshal(params, &p)
		return p.URI
	}
	return ""
}

// withMeta adds the call record's number to the request's params._meta.
func withMeta(msg []byte, seq int64) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	var params map[string]json.RawMessage
	if len(m["params"]) > 0 && string(m["params"]) != "null" {
		if err := json.Unmarshal(m["params"], &params); err != nil {
			return nil, err
		}
	}
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if len(params["_meta"]) > 0 && string(params["_meta"]) != "null" {
		if err := json.Unmarshal(params["_meta"], &meta); err != nil {
			return nil, err
		}
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[metaCall] = json.RawMessage(strconv.FormatInt(seq, 10))
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	if m["params"], err = json.Marshal(params); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// callBySeq finds the record the wire opened for a request, by the number in its _meta.
func (w *wire) callBySeq(meta *mcp.Meta) *call {
	if meta == nil {
		return nil
	}
	var seq int64
	switch v := meta.AdditionalFields[metaCall].(type) {
	case float64:
		seq = int64(v)
	case json.Number:
		seq, _ = v.Int64()
	default:
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bySeq[seq]
}

// cancel marks the request a notifications/cancelled names; mcp-go cancels its context.
func (w *wire) cancel(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	w.mu.Lock()
	c := w.calls[canonicalID(p.RequestID)]
	w.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// recancel sends mcp-go again the cancellation of a subscriptions/listen stream whose
// acknowledgement (ack) is leaving: mcp-go registers a request's cancel only as its handler
// starts, so a cancellation that overtook the stream's start was lost, and the stream, which
// ends only when cancelled, stayed open with its id in flight for the rest of the session. The
// acknowledgement is sent after that registration. A tool call does not need this (call.bind).
func (w *wire) recancel(ack []byte) {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(ack, &m) != nil {
		return
	}
	id := m.Params.Meta[mcp.MetaKeySubscriptionID]
	w.mu.Lock()
	c := w.calls[canonicalID(id)]
	w.mu.Unlock()
	if c == nil || !c.isCancelled() {
		return
	}
	line, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id}},
	}})
	if err != nil {
		return
	}
	// Not on this goroutine: mcp-go is writing, and its reader may be waiting to write too.
	w.recancels.Go(func() { _ = w.forward(append(line, '\n')) })
}

func (w *wire) forward(line []byte) error {
	_, err := w.pw.Write(line)
	return err
}

// reply answers a request the wire refused, as JSON-RPC.
func (w *wire) reply(id json.RawMessage, code int, message string) {
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	w.obs.refused(string(id), code, message)
	if !isASCII(resp) { // an id may hold any character
		resp = appendASCII(nil, resp)
	}
	_ = w.write(append(resp, '\n'))
}

func (w *wire) write(p []byte) error {
	w.outMu.Lock()
	defer w.outMu.Unlock()
	_, err := w.clientOut.Write(p)
	return err
}

// canonicalID is a request id as mcp-go writes it back: it decodes the id and encodes it again,
// so 1.0 comes back as 1 and "a\u0041" as "aA". Requests are kept under this form, or a
// response to such an id would not find its call.
func canonicalID(raw json.RawMessage) string {
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) == nil {
		if b, err := json.Marshal(id); err == nil {
			return string(b)
		}
	}
	return string(raw)
}

// wireOut is mcp-go's stdout.
type wireOut struct{ w *wire }

// Write takes one message from mcp-go (it writes each with one call) and passes it to the
// client in ASCII, unless it answers a cancelled request.
func (o wireOut) Write(p []byte) (int, error) {
	w := o.w
	n := len(p)
	if !isASCII(p) {
		// Lines leave in ASCII (see ascii.go). A prepared result's own bytes are written so
		// already; this is the rest of what mcp-go encodes.
		line := lineBuffers.get()
		p = appendASCII((*line)[:0], p)
		defer func() {
			if cap(p) <= maxPooled {
				*line = p[:0]
				lineBuffers.put(line)
			}
		}()
	}
	env, ok := scanEnvelope(p)
	if !ok {
		return n, w.write(p)
	}
	if env.method != "" {
		if len(env.id) == 0 {
			w.obs.notification(env.method, "out", len(p), bytes.TrimSpace(p))
		}
		if env.method == string(mcp.MethodNotificationSubscriptionsAcknowledged) {
			w.recancel(p)
		}
		return n, w.write(p)
	}
	key := canonicalID(env.id)
	seq, marked := markedSeq(p)
	w.mu.Lock()
	c := w.calls[key]
	if marked && env.result {
		// A prepared result names its call: that holds even when two requests in flight share
		// an id.
		if mc := w.bySeq[seq]; mc != nil {
			c = mc
		}
	}
	if c != nil {
		if w.calls[c.key] == c {
			delete(w.calls, c.key)
		}
		if c.method == string(mcp.MethodInitialize) {
			w.opened = w.opened || env.err == nil
			w.initialized = w.opened
		}
		delete(w.bySeq, c.seq)
		if w.idle != nil && w.awaited() == 0 {
			close(w.idle)
			w.idle = nil
		}
	}
	w.mu.Unlock()
	if c == nil {
		if marked {
			w.obs.log.Error("a tool result's call record is gone; its markers were sent", "requestId", string(env.id))
		}
		return n, w.write(p)
	}
	c.mu.Lock()
	cancelled, pr := c.cancelled, c.prepared
	c.prepared = nil
	c.mu.Unlock()
	if cancelled {
		if pr != nil {
			release(pr.buf) // never sent: its buffer is free again
		}
		w.obs.cancelled(c)
		return n, nil
	}
	if marked && pr == nil {
		w.obs.log.Error("a tool result's prepared bytes are gone; its markers were sent", "requestId", c.id)
	}
	errCode, errMsg := 0, ""
	if env.err != nil {
		errCode, errMsg = env.err.Code, env.err.Message
		if code, msg, changed := rewriteError(errCode, errMsg); changed {
			errCode, errMsg = code, msg
			p = rewriteMessage(p, code, msg)
		}
	}
	isError := env.result && isErrorResult(p) // before a splice, while the line is short
	if pr != nil && env.result {
		return n, pr.write(p, func(p []byte) error {
			w.obs.response(c, len(p), errCode, errMsg, isError, bytes.TrimSpace(p))
			return w.write(p)
		})
	}
	w.obs.response(c, len(p), errCode, errMsg, isError, bytes.TrimSpace(p))
	return n, w.write(p)
}

// outEnvelope is what the wire needs of a message mcp-go writes.
type outEnvelope struct {
	id     json.RawMessage
	method string
	result bool
	err    *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
}

// scanEnvelope reads a message's id, method and error without decoding its result: a result
// can be a 100 KB tool answer, and the wire sees every one.
func scanEnvelope(p []byte) (env outEnvelope, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(p))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return env, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return env, false
		}
		key, _ := t.(string)
		switch key {
		case "id":
			err = dec.Decode(&env.id)
		case "method":
			err = dec.Decode(&env.method)
		case "error":
			err = dec.Decode(&env.err)
		case "result":
			// mcp-go writes jsonrpc and id first: nothing after the result is needed.
			env.result = true
			return env, len(env.id) > 0 || env.method != ""
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return env, false
		}
	}
	return env, true
}

// rewriteMessage replaces the error code and message of a JSON-RPC error response.
func rewriteMessage(line []byte, code int, msg string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(m["error"], &e) != nil {
		return line
	}
	e["code"], _ = json.Marshal(code)
	e["message"], _ = json.Marshal(msg)
	m["error"], _ = json.Marshal(e)
	out, err := json.Marshal(m)
	if err != nil {
		return line
	}
	return append(out, '\n')
}

// isErrorResult reports whether a response's tool result says isError: true, without decoding
// it. Inside a JSON string the quotes would be escaped, so the bytes can only be a key; a nested
// object of an upstream's structured result that has the key too would count, and only the
// traffic status would say error.
func isErrorResult(msg []byte) bool {
	return bytes.Contains(msg, []byte(`"isError":true`))
}
