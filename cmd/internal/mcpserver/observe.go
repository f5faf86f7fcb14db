package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// observer turns the wire's call records into the log line of each tool call (DESIGN §7) and
// the session's traffic events (§8): lengths only, payloads when traced.
type observer struct {
	log     *slog.Logger
	events  *traffic.Writer // nil: no traffic file
	session string
	project string
	trace   bool
	w       *wire // the session's wire, once serving
}

func newObserver(cfg Config, log *slog.Logger) (*observer, error) {
	// A short id tells sessions apart in a table; the file name has the start time and pid.
	o := &observer{log: log, trace: cfg.TraceContent, session: uuid.NewString()[:8]}
	if cfg.Project != nil {
		o.project = cfg.Project.Name
	}
	if cfg.TrafficDir != "" {
		w, err := traffic.Open(cfg.TrafficDir, time.Now())
		if err != nil {
			// Traffic is for looking back; a session that cannot record it still serves.
			log.Warn("traffic: not recorded", "dir", cfg.TrafficDir, "err", err)
		} else {
			o.events = w
		}
	}
	return o, nil
}

func (o *observer) close() {
	if o.events != nil {
		if err := o.events.Close(); err != nil {
			o.log.Warn("traffic: close", "err", err)
		}
	}
}

// traced reports whether the session's events hold content, not only lengths.
func (o *observer) traced() bool { return o.trace && o.events != nil }

func (o *observer) emit(e traffic.Event, payload []byte) {
	if o.events == nil {
		return
	}
	e.TS, e.Session, e.Project = time.Now(), o.session, o.project
	if o.trace && len(payload) > 0 {
		e.Payload = json.RawMessage(append([]byte(nil), payload...))
	}
	if err := o.events.Write(e); err != nil {
		o.log.Debug("traffic: write", "err", err)
	}
}

func (o *observer) request(c *call, payload []byte) {
	o.emit(traffic.Event{Kind: traffic.KindRequest, Method: c.method, ID: c.id, Name: c.name, BytesIn: c.bytesIn}, payload)
}

func (o *observer) notification(method, direction string, size int, payload []byte) {
	e := traffic.Event{Kind: traffic.KindNotification, Method: method}
	if direction == "in" {
		e.BytesIn = size
	} else {
		e.BytesOut = size
	}
	o.emit(e, payload)
}

// refused records a request the wire answered itself.
func (o *observer) refused(id string, code int, message string) {
	o.log.Warn("request refused", "requestId", id, "code", code, "message", message)
	o.emit(traffic.Event{Kind: traffic.KindResponse, ID: id, Status: traffic.StatusError, ErrorCode: fmt.Sprint(code)}, nil)
}

// cancelled records a request the client cancelled: it gets no response.
func (o *observer) cancelled(c *call) {
	waited := time.Since(c.start)
	o.log.Info("request cancelled by the client; no response sent", "method", c.method, "name", c.name, "requestId", c.id,
		"waited", waited.Round(time.Millisecond).String())
	o.emit(traffic.Event{Kind: traffic.KindResponse, Method: c.method, ID: c.id, Name: c.name,
		DurationMs: ms(waited), BytesIn: c.bytesIn, Status: traffic.StatusCancelled}, nil)
}

// response closes a call: the log line of a tool call, and the response event.
func (o *observer) response(c *call, size, rpcCode int, rpcMessage string, isError bool, payload []byte) {
	took := time.Since(c.start)
	c.mu.Lock()
	e := traffic.Event{Kind: traffic.KindResponse, Method: c.method, ID: c.id, Name: c.name, DurationMs: ms(took),
		BytesIn: c.bytesIn, BytesOut: size, Status: traffic.StatusOK, ErrorCode: c.code,
		Gate: c.gate, Pipeline: c.pipeline, Upstream: c.upstream}
	if c.traced && c.pipeline != nil {
		// A traced event holds the content: what the model transformed too, as the payload
		// holds only what it made of it.
		p := *c.pipeline
		p.Input, p.Type, p.Source = c.input.text, c.input.typ, c.input.source
		e.Pipeline = &p
	}
	opID := c.operationID
	c.mu.Unlock()
	switch {
	case rpcCode != 0:
		e.Status, e.ErrorCode = traffic.StatusError, fmt.Sprint(rpcCode)
	case isError || e.ErrorCode != "":
		e.Status = traffic.StatusError
	}
	o.emit(e, payload)
	if c.method != string(mcp.MethodToolsCall) {
		return
	}
	attrs := []any{"tool", c.name, "requestId", c.id, "durationMs", ms(took)}
	if opID != "" {
		attrs = append(attrs, "operationId", opID)
	}
	if e.ErrorCode != "" {
		attrs = append(attrs, "error", e.ErrorCode)
	}
	if rpcMessage != "" {
		attrs = append(attrs, "err", rpcMessage)
	}
	status, level := "success", slog.LevelInfo
	if e.Status == traffic.StatusError {
		status, level = "error", slog.LevelWarn
	}
	attrs = append(attrs, "status", status, "bytesOut", size)
	o.log.Log(context.Background(), level, "tool call", attrs...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
