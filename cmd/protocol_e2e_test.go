package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/schemas"
)

// rawSession speaks JSON-RPC to a child `mcpctl serve` line by line, as a client's transport
// does, for the protocol's manners that SDK clients hide.
type rawSession struct {
	tb     testing.TB
	stdin  io.WriteCloser
	lines  chan rawLine
	stderr *syncBuffer
	// line is the last message next returned, as the server wrote it.
	line string
}

type rawLine struct {
	m    map[string]any
	text string
}

func serveRaw(tb testing.TB, env []string, args ...string) *rawSession {
	tb.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve"}, args...)...)
	cmd.Env = env
	s := &rawSession{tb: tb, lines: make(chan rawLine, 100), stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			s.lines <- rawLine{m, sc.Text()}
		}
	}()
	tb.Cleanup(func() {
		s.stdin.Close()
		cmd.Wait()
		if tb.Failed() {
			tb.Logf("server stderr:\n%s", s.stderr)
		}
	})
	return s
}

func (s *rawSession) send(line string) {
	s.tb.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.tb.Fatal(err)
	}
}

// next returns the next message the server sends.
func (s *rawSession) next() map[string]any {
	s.tb.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.tb.Fatal("the server closed its stdout")
		}
		s.line = l.text
		return l.m
	case <-time.After(20 * time.Second):
		s.tb.Fatal("no message from the server within 20 s")
	}
	return nil
}

// until reads messages up to the response with id, returning it and what came before.
func (s *rawSession) until(id any) (resp map[string]any, before []map[string]any) {
	s.tb.Helper()
	if n, ok := id.(int); ok {
		id = float64(n) // as JSON numbers decode
	}
	for {
		m := s.next()
		if m["id"] == id && m["method"] == nil {
			return m, before
		}
		before = append(before, m)
	}
}

func (s *rawSession) initialize() {
	s.tb.Helper()
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.until(0)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errorOf(m map[string]any) (code float64, message string) {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0, ""
	}
	code, _ = e["code"].(float64)
	message, _ = e["message"].(string)
	return code, message
}

func TestProtocolManners(t *testing.T) {
	lib := librarytest.FromLibrary(t, librarytest.Fixture())
	s := serveRaw(t, testHome(t), "--library", lib.Dir)

	t.Run("requests before initialize are refused", func(t *testing.T) {
		s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		resp, _ := s.until(1)
		if code, msg := errorOf(resp); code != -32600 || !strings.Contains(msg, "initialize") {
			t.Errorf("got %v, want -32600 saying to initialize first", resp)
		}
	})
	t.Run("a failed initialize opens nothing", func(t *testing.T) {
		s.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":42}}`)
		if resp, _ := s.until(2); resp["error"] == nil {
			t.Fatalf("initialize with a numeric protocolVersion: %v, want an error", resp)
		}
		s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		resp, _ := s.until(3)
		if code, msg := errorOf(resp); code != -32600 || !strings.Contains(msg, "initialize") {
			t.Errorf("tools/list after a failed initialize: error %v %q (a result: %v), want -32600 saying to initialize first", code, msg, resp["result"] != nil)
		}
	})
	s.initialize()

	tests := []struct {
		name, line string
		id         any // the id the answer must carry
		code       float64
		wantIn     string
	}{
		{"a batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil, -32600, "batch"},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":3,"method":5}`, 3.0, -32600, "method must be a string"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, nil, -32600, "id must be a string or a number"},
		// mcp-go answered these under id null, or not at all: their ids stayed in flight.
		{"a jsonrpc that is not a string", `{"jsonrpc":2,"id":20,"method":"tools/list"}`, 20.0, -32600, `jsonrpc must be "2.0"`},
		{"a request with a result", `{"jsonrpc":"2.0","id":21,"method":"tools/list","result":{}}`, 21.0, -32600, "no result or error"},
		{"an invalid cursor", `{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{"cursor":"not base64!"}}`, 4.0, -32602, "invalid cursor"},
		{"a missing prompt argument", `{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"code-review"}}`, 5.0, -32602,
			`prompt "code-review": missing required argument "language". It takes language (required), tone (optional, default "friendly")`},
		{"a prompt argument that is not a string", `{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"code-review","arguments":{"language":5}}}`, 10.0, -32602,
			"Invalid params: params.arguments: a number where a string belongs; a prompt's arguments are an object of strings"},
		{"prompt arguments that are not an object", `{"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"code-review","arguments":"go"}}`, 11.0, -32602,
			"Invalid params: params.arguments: a string where an object of strings belongs; a prompt's arguments are an object of strings"},
		{"a tool name that is not a string", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":7}}`, 12.0, -32602,
			"Invalid params: params.name: a number where a string belongs"},
		{"prompts/get params that are not an object", `{"jsonrpc":"2.0","id":14,"method":"prompts/get","params":"x"}`, 14.0, -32602,
			"Invalid params: params: a string where an object belongs"},
		{"a cursor that is not a string", `{"jsonrpc":"2.0","id":15,"method":"prompts/list","params":{"cursor":5}}`, 15.0, -32602,
			"Invalid params: params.cursor: a number where a string belongs"},
		{"a _meta that is not an object", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"health_check","_meta":5}}`, 16.0, -32602,
			"Invalid params: params._meta: a number where an object belongs"},
		{"an unknown tool", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, 17.0, -32602,
			"unknown tool 'nope': this server has no tool of that name. Call tools/list for the tools this session can use."},
		{"a resource of no one's", `{"jsonrpc":"2.0","id":19,"method":"resources/read","params":{"uri":"file:///etc/hosts"}}`, 19.0, 0,
			"unknown resource 'file:///etc/hosts': no resource of this session has this URI, and no template matches it"},
		{"resources/read without a uri", `{"jsonrpc":"2.0","id":22,"method":"resources/read","params":{}}`, 22.0, -32602,
			"params.uri is required: the URI of a resource from resources/list or of a template from resources/templates/list"},
		{"prompts/get without a name", `{"jsonrpc":"2.0","id":23,"method":"prompts/get","params":{}}`, 23.0, -32602,
			"params.name is required: a prompt's name from prompts/list"},
		{"an unknown resource", `{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"prompteka://prompt/00000000-0000-4000-8000-000000000000"}}`, 6.0, 0,
			"unknown resource 'prompteka://prompt/00000000-0000-4000-8000-000000000000': no prompt has this id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.send(tt.line)
			resp := s.next()
			code, msg := errorOf(resp)
			if resp["id"] != tt.id || (tt.code != 0 && code != tt.code) || !strings.HasPrefix(msg, tt.wantIn) && !strings.Contains(msg, tt.wantIn) {
				t.Errorf("got %v, want id %v, code %v, message with %q", resp, tt.id, tt.code, tt.wantIn)
			}
			for _, leak := range []string{"not found: prompt not found", "not found: tool not found", "handler not found", "illegal base64", "⟦", "Go struct", "interface {}"} {
				if strings.Contains(msg, leak) {
					t.Errorf("message %q says %q: only what is true, in our words", msg, leak)
				}
			}
		})
	}

	t.Run("an oversized message is refused and the server keeps serving", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_prompts","arguments":{"query":"` + strings.Repeat("x", 6<<20) + `"}}}`
		s.send(big)
		resp := s.next()
		if code, msg := errorOf(resp); resp["id"] != 7.0 || code != -32600 || !strings.Contains(msg, "at most 100000 characters") {
			t.Errorf("got %v", resp)
		}
		s.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
		if resp, _ := s.until(8); resp["result"] == nil {
			t.Errorf("ping after the oversized message: %v", resp)
		}
		// The TypeScript SDK writes the id last, after params, where update_prompt's arguments
		// have an id of their own: the answer went to that one, or to null.
		big = `{"method":"tools/call","params":{"name":"update_prompt","arguments":{"id":"FC7AA93D-0000-4000-8000-000000000000","content":"` +
			strings.Repeat("x", 6<<20) + `"}},"jsonrpc":"2.0","id":18}`
		s.send(big)
		if resp := s.next(); resp["id"] != 18.0 {
			t.Errorf("the oversized update_prompt was answered as %v, want id 18", resp["id"])
		}
	})

	t.Run("an offset too large for a number names the argument", func(t *testing.T) {
		s.send(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"list_prompts","arguments":{"offset":1e300}}}`)
		resp, _ := s.until(13)
		text := fmt.Sprint(resp["result"])
		if !strings.Contains(text, "INVALID_INPUT") || !strings.Contains(text, `"message":"offset: number 1e300 is out of range"`) {
			t.Errorf("got %s", text)
		}
		content, _ := resp["result"].(map[string]any)["content"].([]any)
		if len(content) != 1 {
			t.Fatalf("got %v", resp)
		}
		if err := schemas.Validate("error", []byte(content[0].(map[string]any)["text"].(string))); err != nil {
			t.Error(err)
		}
	})

	// JSON Schema counts 1.0 and 1e0 as integers: a whole number is taken however it is written.
	t.Run("a whole number written with a fraction or an exponent is taken", func(t *testing.T) {
		s.send(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"list_prompts","arguments":{"offset":1.0,"limit":1e0}}}`)
		resp, _ := s.until(17)
		res, _ := resp["result"].(map[string]any)
		sc, _ := res["structuredContent"].(map[string]any)
		if res["isError"] == true || sc["offset"] != 1.0 || sc["limit"] != 1.0 {
			t.Errorf("got %v", resp)
		}
		if b, _ := json.Marshal(sc); schemas.Validate("list_prompts.output", b) != nil {
			t.Errorf("the result breaks its output schema: %v", schemas.Validate("list_prompts.output", b))
		}
	})

	t.Run("create_prompt with an unknown color says INVALID_COLOR and lists the names", func(t *testing.T) {
		s.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"create_prompt","arguments":{"title":"t","content":"c","color":"pink"}}}`)
		resp, _ := s.until(9)
		text := fmt.Sprint(resp["result"])
		if !strings.Contains(text, "INVALID_COLOR") || !strings.Contains(text, "red, orange, yellow, green, blue, purple") || strings.Contains(text, "<nil>") {
			t.Errorf("got %s", text)
		}
	})
}

// No list_changed follows initialize on a library that did not change; a client that lists,
// then sees the library change, is told.
func TestNoListChangedWithoutAChange(t *testing.T) {
	lib := librarytest.FromLibrary(t, librarytest.Fixture())
	s := serveRaw(t, testHome(t), "--library", lib.Dir)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
	s.until(1)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
	s.until(2)
	// The view has loaded (the lists waited for it). A ping answered after a tools/list proves
	// every notification of the load would have been written before it.
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	s.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	_, before := s.until(4)
	for _, m := range before {
		if method, _ := m["method"].(string); strings.HasSuffix(method, "list_changed") {
			t.Errorf("got %s on an unchanged library", method)
		}
	}
	lib.Exec(t, `UPDATE prompts SET title = 'Security Audit Plus' WHERE title = 'Security Audit'`)
	for {
		if m := s.next(); m["method"] == "notifications/prompts/list_changed" {
			break
		}
	}
}

// A request the client cancels gets no response; the server logs how long it really waited.
func TestCancelledRequestGetsNoResponse(t *testing.T) {
	lib := librarytest.New(t, 3) // a Prompteka library: no processor, a write waits for the app
	s := serveRaw(t, testHome(t), "--library", lib.Dir)
	s.initialize()
	sent := time.Now()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_prompt","arguments":{"title":"waits","content":"x"}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	eventually(t, 20*time.Second, "the server logs the cancelled request", func() bool {
		return len(s.stderr.logLines(t, "request cancelled by the client; no response sent")) > 0
	})
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	_, before := s.until(2)
	for _, m := range before {
		if m["id"] == 1.0 {
			t.Errorf("the cancelled request got a response: %v", m)
		}
	}
	// The real wait is at most the time since the request was sent; the write's own deadline
	// (17 s, logged before the fix) is far beyond it.
	elapsed := time.Since(sent)
	line := s.stderr.logLines(t, "request cancelled by the client; no response sent")[0]
	if w, _ := line["waited"].(string); w == "" {
		t.Error("no wait logged")
	} else if d, err := time.ParseDuration(w); err != nil || d > elapsed {
		t.Errorf("logged wait %q (%v), want the real wait, at most the %v since the request", w, err, elapsed)
	}
}

// A restart starts from the view the last run kept: the first prompts/list is whole at once, an
// unchanged library sends no list_changed, and a library changed in between is announced.
func TestRestartServesTheKeptView(t *testing.T) {
	lib := librarytest.New(t, 50)
	env := testHome(t)
	var announced bool // a prompts/list_changed came with the last list
	list := func(s *rawSession) string {
		s.send(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
		resp, before := s.until(1)
		announced = false
		for _, m := range before {
			announced = announced || m["method"] == "notifications/prompts/list_changed"
		}
		b, _ := json.Marshal(resp["result"])
		return string(b)
	}
	s := serveRaw(t, env, "--library", lib.Dir)
	s.initialize()
	first := list(s)
	s.stdin.Close()

	s = serveRaw(t, env, "--library", lib.Dir)
	s.initialize()
	if got := list(s); got != first {
		t.Errorf("after a restart prompts/list differs:\n%s\nwant\n%s", got, first)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	_, before := s.until(3)
	for _, m := range before {
		if method, _ := m["method"].(string); strings.HasSuffix(method, "list_changed") {
			t.Errorf("got %s after a restart on an unchanged library", method)
		}
	}
	eventually(t, 10*time.Second, "the server says it restored the kept view", func() bool {
		return len(s.stderr.logLines(t, "library view restored")) > 0
	})
	s.stdin.Close()

	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('C0FFEE00-0000-4000-8000-000000000001', 'Added While Stopped', 'x', NULL, NULL, NULL, NULL, 1900000000, 1900000000)`)
	// The first list is the kept view or already the library; when it is the kept view, the
	// read that follows announces the change.
	s = serveRaw(t, env, "--library", lib.Dir)
	s.initialize()
	if got := list(s); !strings.Contains(got, "added-while-stopped") {
		// The notification may be written before the list it follows, or after.
		for !announced {
			announced = s.next()["method"] == "notifications/prompts/list_changed"
		}
		if got := list(s); !strings.Contains(got, "added-while-stopped") {
			t.Errorf("after list_changed the list lacks the new prompt")
		}
	}
}

// Every line the server writes is ASCII, whatever the library holds: characters beyond it travel
// as \u escapes (Node clients parse such lines far faster) and read back unchanged.
func TestLinesAreASCII(t *testing.T) {
	const title, content = "Café ✓ 日本語 😀", "Prüfe {{target}}\u2028 — «bitte» 🚀"
	fixture := librarytest.Fixture()
	fixture.Prompts[0].Title, fixture.Prompts[0].Content, fixture.Prompts[0].Emoji = title, content, promptlib.Ptr("📝")
	lib := librarytest.FromLibrary(t, fixture)
	s := serveRaw(t, testHome(t), "--library", lib.Dir)
	s.initialize()

	calls := []struct {
		line string
		want []string // strings the decoded message must hold
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_prompt","arguments":{"id":"` + librarytest.ReviewID + `"}}}`, []string{title, content, "📝"}},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_prompts","arguments":{}}}`, []string{title}},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_prompts","arguments":{"query":"Café"}}}`, []string{title}},
		{`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, []string{title}},
		{`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"prompteka://prompt/` + librarytest.ReviewID + `"}}`, []string{content}},
		{`{"jsonrpc":"2.0","id":"é😀","method":"no/such/method"}`, nil},
	}
	for i, c := range calls {
		s.send(c.line)
		id := any(float64(i + 1))
		if i == len(calls)-1 {
			id = "é😀"
		}
		resp, _ := s.until(id)
		for j := 0; j < len(s.line); j++ {
			if s.line[j] >= 0x80 {
				t.Fatalf("request %v: byte %d of the response is %#x, not ASCII: %.200s", id, j, s.line[j], s.line[max(0, j-40):])
			}
		}
		decoded := fmt.Sprint(resp)
		for _, w := range c.want {
			if !strings.Contains(decoded, w) {
				t.Errorf("request %v: the response does not read back with %q: %.300s", id, w, decoded)
			}
		}
		if name, ok := strings.CutPrefix(c.line, `{"jsonrpc":"2.0","id":`+fmt.Sprint(id)+`,"method":"tools/call","params":{"name":"`); ok {
			raw, _ := json.Marshal(resp["result"])
			res, err := mcp.ParseCallToolResult((*json.RawMessage)(&raw))
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, name[:strings.IndexByte(name, '"')], res)
		}
	}
	if resp := s.line; !strings.Contains(resp, `"id":"\u00e9\ud83d\ude00"`) {
		t.Errorf("the error's id is not the request's, escaped: %s", resp)
	}
}

// A client that closes its stdin right after a request still gets the answer: the server reads
// nothing more, answers what it was sent, then stops (the stdio shutdown of the MCP lifecycle).
// It used to cancel the call, which answered INTERNAL_ERROR with a hint calling it a bug.
func TestStdinEndsWithACallInFlight(t *testing.T) {
	lib := librarytest.New(t, 3) // a Prompteka library: a write waits for the app's answer
	env := testHome(t)
	s := serveRaw(t, env, "--library", lib.Dir)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_prompt","arguments":{"title":"Sent last","content":"x"}}}`)
	if err := s.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	// The app answers only after the client has gone: the reference processor plays it.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"queue", "process", "--library", lib.Dir, "--force"}, strings.NewReader(""), &syncBuffer{}, &syncBuffer{},
			func(string) string { return "" })
	}()
	defer func() { cancel(); <-done }()

	resp, _ := s.until(1)
	raw, _ := json.Marshal(resp["result"])
	res, err := mcp.ParseCallToolResult((*json.RawMessage)(&raw))
	if err != nil {
		t.Fatalf("%v: %s", err, s.line)
	}
	checkResult(t, "create_prompt", res)
	if sc, _ := res.StructuredContent.(map[string]any); res.IsError || sc["status"] != "success" {
		t.Fatalf("the last call's answer: %s", s.line)
	}
	select {
	case l, open := <-s.lines:
		if open {
			t.Errorf("after its last answer the server wrote %s", l.text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop within 20 s of answering its last request")
	}
}

// A subscriptions/listen stream (the 2026 protocol) is never answered but by its end: a client
// that closes stdin with one open is not waited for. The server waited 30 s for its answer,
// then warned that it stopped without answering.
func TestStdinEndsWithAStreamOpen(t *testing.T) {
	s := serveRaw(t, testHome(t), "--library", standaloneLib(t))
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	s.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	if resp, _ := s.until(2); resp["result"] == nil {
		t.Fatalf("tools/list: %s", s.line)
	}
	if err := s.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, open := <-s.lines; !open {
			break
		}
	}
	if lines := s.stderr.logLines(t, "the client's input ended; stopping without answering its last requests"); len(lines) > 0 {
		t.Errorf("the server waited for the stream to be answered: %v", lines)
	}
}

// A response names its request by id alone, so an id still in flight is not taken again: the
// second request under it is refused, and the first's answer is not given to it. Once the first
// has ended (cancelled, here), the id is free.
func TestAnIDInFlightIsNotTakenTwice(t *testing.T) {
	s := serveRaw(t, testHome(t), "--library", standaloneLib(t))
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	cancelled := func(n int) {
		t.Helper()
		eventually(t, 20*time.Second, "the server logs the cancelled stream", func() bool {
			return len(s.stderr.logLines(t, "request cancelled by the client; no response sent")) == n
		})
	}
	// A cancellation right behind the stream's request, which mcp-go lost when it overtook
	// the stream's start: the stream stayed open, its id in flight, until the session ended.
	s.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	cancelled(1)

	s.send(`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
	for m := s.next(); m["method"] != "notifications/subscriptions/acknowledged" || !strings.Contains(s.line, `/subscriptionId":2`); m = s.next() {
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	resp, _ := s.until(2)
	if code, msg := errorOf(resp); code != -32600 || !strings.Contains(msg, "still in flight") {
		t.Fatalf("a tools/list under the id of an open stream: %.300s; want -32600 saying the id is in flight", s.line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`)
	cancelled(2)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	if resp, _ := s.until(2); resp["result"] == nil {
		t.Errorf("tools/list once the stream under its id ended: %s", s.line)
	}
}
