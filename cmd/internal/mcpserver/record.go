package mcpserver

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// call is the record of one request as it travels the chain. The wire opens it when the request
// line arrives and closes it when the response line leaves; in between it rides in the handler's
// context, and whatever the chain learns (the error code, the operation id, what the gate sent)
// is written on it. So a middleware that replaces a result never loses what the log line and
// the traffic event report.
type call struct {
	seq     int64  // the wire's number for it, carried in the request's _meta
	id      string // the JSON-RPC id as sent
	key     string // the id as mcp-go writes it back (canonicalID)
	method  string
	name    string // the tool or prompt name, or the resource URI
	start   time.Time
	bytesIn int
	// traced says the call's traffic event holds its content (serve --trace-content, with a
	// traffic file): only then is what the pipeline transformed kept on it (input).
	traced bool

	mu          sync.Mutex
	code        string // the error code a tool result carries
	operationID string
	gate        *traffic.Gate
	pipeline    *traffic.Pipeline
	input       tracedInput // what the pipeline transformed, when traced
	upstream    string
	cancelled   bool
	carried     []string           // ids of the prompts the result carries in full, for the gate
	prepared    *prepared          // a tool result's bytes, spliced into its response by the wire
	stop        context.CancelFunc // cancels the handler's context; nil until it runs
}

// tracedInput is what the pipeline transformed in a call, as a traced event keeps it
// (traffic.Pipeline's Input, Type and Source), so the console can run it again as serve did.
type tracedInput struct{ text, typ, source string }

// preparedText is the text a prepared result splices in for its marker: the prose, or the
// structured content's JSON.
func (c *call) preparedText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.prepared == nil:
		return ""
	case c.prepared.prose != "":
		return c.prepared.prose
	}
	return string(c.prepared.structured)
}

// bind gives the handler a context the client's notifications/cancelled ends. mcp-go cancels
// its own context too, but only for a request it has started: a cancellation that overtakes a
// tool call still queued for a worker would be lost.
func (c *call) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(withCall(ctx, c))
	c.mu.Lock()
	c.stop = cancel
	cancelled := c.cancelled
	c.mu.Unlock()
	if cancelled {
		cancel()
	}
	return ctx, cancel
}

// cancel marks the call cancelled by the client and ends its handler's context.
func (c *call) cancel() {
	c.mu.Lock()
	c.cancelled = true
	stop := c.stop
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

func (c *call) isCancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled
}

type callKey struct{}

// withCall is ctx carrying c.
func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// callFrom is the record in ctx; a request that came in by another way (a unit test calling a
// handler directly) gets a throw-away record, so handlers never check for nil.
func callFrom(ctx context.Context) *call {
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		return c
	}
	return &call{}
}

// recorded is ctx with a call record: its own, or a new one for a request that came in by
// another way (a test calling the chain without the wire), so what a handler writes on the
// record still reaches the middleware that reads it.
func recorded(ctx context.Context) context.Context {
	if _, ok := ctx.Value(callKey{}).(*call); ok {
		return ctx
	}
	return withCall(ctx, &call{})
}

func (c *call) setCode(code string) {
	c.mu.Lock()
	c.code = code
	c.mu.Unlock()
}

// upstreamToolError is the code a call records when a project server's tool answered with an
// isError result of its own, as opposed to an error mcpctl made (errorResult).
const upstreamToolError = "UPSTREAM_TOOL_ERROR"

// errorCode is the error code the call recorded, "" while it has none.
func (c *call) errorCode() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.code
}

// upstreamName is the project server the call went to, "" for one of mcpctl's own.
func (c *call) upstreamName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.upstream
}

func (c *call) setOperation(id string) {
	c.mu.Lock()
	c.operationID = id
	c.mu.Unlock()
}

func (c *call) setGate(g traffic.Gate) {
	c.mu.Lock()
	c.gate = &g
	c.mu.Unlock()
}

// carry notes prompts whose whole content the result carries: the model has them, so the gate
// does not send them again (gate.Session.Received).
func (c *call) carry(ids ...string) {
	c.mu.Lock()
	c.carried = append(c.carried, ids...)
	c.mu.Unlock()
}

func (c *call) carriedIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.carried)
}
