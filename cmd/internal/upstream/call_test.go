package upstream

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// An upstream's -32602 (a missing or wrong argument) is the caller's mistake: INVALID_INPUT
// with the server's words and "fix the arguments", not UPSTREAM_ERROR and "try again" (a
// reviewer got "broke the protocol … try again" for server-everything's missing argument).
func TestInvalidParamsIsTheCallersMistake(t *testing.T) {
	spec, _ := testSpec(t, nil)
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	waitState(t, sup.Server("tu"), Ready)

	_, err := sup.CallTool(context.Background(), "tu__small", map[string]any{"word": "invalid"}, nil)
	te := ToolError(err)
	if te == nil || te.Code != promptlib.CodeInvalidInput || !strings.Contains(te.Message, "missing required argument: query") ||
		!strings.Contains(te.Hint(), "Fix the arguments") || strings.Contains(te.Hint(), "try again") {
		t.Fatalf("tools/call refused as invalid: got %v (%+v), want INVALID_INPUT with the server's message and 'Fix the arguments'", err, te)
	}

	_, err = sup.GetPrompt(context.Background(), "tu__greet", map[string]string{})
	te = ToolError(err)
	var ce *CallError
	if te == nil || te.Code != promptlib.CodeInvalidInput || !errors.As(err, &ce) || !ce.Invalid() ||
		!strings.Contains(te.Hint(), "prompt's arguments") {
		t.Fatalf("prompts/get refused as invalid: got %v (%+v), want INVALID_INPUT saying to fix the prompt's arguments", err, te)
	}
	// A failure of the server's own is still UPSTREAM_ERROR, and no longer promises a retry helps.
	_, err = sup.CallTool(context.Background(), "tu__broken", nil, nil)
	if te := ToolError(err); te == nil || te.Code != promptlib.CodeUpstreamError || strings.Contains(te.Hint(), "try again") {
		t.Errorf("a handler's failure: got %+v, want UPSTREAM_ERROR without 'try again'", te)
	}
}

// A call that keeps reporting progress is working: each notification restarts its timeout, so a
// tool that takes twice the timeout in all, in steps well within it, finishes (it was cut off at
// the timeout with "no answer … try again").
func TestProgressKeepsACallAlive(t *testing.T) {
	spec, _ := testSpec(t, nil)
	spec.TimeoutMs = 2000 // also bounds the start: less is too short on a loaded machine
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	// No progress asked for by the caller: mcpctl asks for it itself.
	res, err := sup.CallTool(context.Background(), "tu__progress", map[string]any{"ticks": 20, "every": "200ms"}, nil)
	if err != nil || resultText(t, res) != "ticked" {
		t.Fatalf("got %v %v, want the call to finish", res, err)
	}

	// A call that goes quiet is still cut off, and the error says so truthfully.
	_, err = sup.CallTool(context.Background(), "tu__block", nil, nil)
	te := ToolError(err)
	if te == nil || !strings.Contains(te.Message, "no answer and no progress within 2s") || !strings.Contains(te.Hint(), "timeoutMs") {
		t.Fatalf("quiet call: got %v (%+v), want a timeout naming no progress and timeoutMs", err, te)
	}
}

// fakeClient is the client mcpctl serves, as the upstream package sees it.
type fakeClient struct {
	caps   mcp.ClientCapabilities
	during func() // runs inside Elicit, while the user would be answering
	mu     sync.Mutex
	got    []string
}

func (f *fakeClient) Capabilities() mcp.ClientCapabilities { return f.caps }

func (f *fakeClient) note(what string) {
	f.mu.Lock()
	f.got = append(f.got, what)
	f.mu.Unlock()
}

func (f *fakeClient) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	f.note("sampling")
	res := &mcp.CreateMessageResult{Model: "test", StopReason: "endTurn"}
	res.Role, res.Content = mcp.RoleAssistant, mcp.NewTextContent("hi from the client")
	return res, nil
}

func (f *fakeClient) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	f.note("elicitation")
	if f.during != nil {
		f.during()
	}
	res := &mcp.ElicitationResult{}
	res.Action, res.Content = mcp.ElicitationResponseActionAccept, map[string]any{"name": "Ada"}
	return res, nil
}

func (f *fakeClient) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	f.note("roots")
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work", Name: "work"}}}, nil
}

// A server's sampling, elicitation and roots requests reach the client mcpctl serves, when that
// client declared them (they were answered "no sampling handler configured").
func TestRequestsAreRelayedToTheClient(t *testing.T) {
	spec, _ := testSpec(t, nil)
	fc := &fakeClient{caps: mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}}}
	fc.caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{Client: fc})
	waitState(t, sup.Server("tu"), Ready)
	for what, want := range map[string]string{
		"sampling":    "sampled: hi from the client",
		"elicitation": "elicited: accept map[name:Ada]",
		"roots":       "roots: file:///work",
	} {
		res, err := sup.CallTool(context.Background(), "tu__ask", map[string]any{"what": what}, nil)
		if err != nil || res.IsError || textOf(res) != want {
			t.Errorf("ask %s: got %v %q, want %q", what, err, textOf(res), want)
		}
	}
}

// While a server waits on the client (a user answering its elicitation), its call's quiet wait
// is held: the server sends no progress then, and the call was cut off at timeoutMs as if hung.
// Only the call's cap runs; once the answer is back, the quiet wait starts afresh.
func TestRelayHoldsTheCallsQuietWait(t *testing.T) {
	spec, _ := testSpec(t, nil)
	fc := &fakeClient{caps: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{Client: fc})
	srv := sup.Server("tu")
	waitState(t, srv, Ready)
	heldAll := func() (n int, held bool) {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		held = true
		for d := range srv.calls {
			d.mu.Lock()
			held = held && d.held
			d.mu.Unlock()
		}
		return len(srv.calls), held
	}
	var during struct {
		n    int
		held bool
	}
	fc.during = func() { during.n, during.held = heldAll() }
	res, err := sup.CallTool(context.Background(), "tu__ask", map[string]any{"what": "elicitation"}, nil)
	if err != nil || res.IsError {
		t.Fatalf("ask elicitation: %v %q", err, textOf(res))
	}
	if during.n != 1 || !during.held {
		t.Errorf("while the client answered: %d calls under way, held %v; want the one call, held", during.n, during.held)
	}
	if n, _ := heldAll(); n != 0 {
		t.Errorf("%d calls left registered after the call ended", n)
	}
}

// What the client did not declare is not declared to the server either: a server asking anyway
// is refused, and nothing reaches the client.
func TestUndeclaredRequestsAreNotRelayed(t *testing.T) {
	spec, _ := testSpec(t, nil)
	fc := &fakeClient{caps: mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{Client: fc})
	waitState(t, sup.Server("tu"), Ready)
	res, err := sup.CallTool(context.Background(), "tu__ask", map[string]any{"what": "roots"}, nil)
	if err != nil || !res.IsError {
		t.Errorf("ask roots, undeclared: got %v %q, want the server's error result", err, textOf(res))
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if len(fc.got) != 0 {
		t.Errorf("the client got %v, want nothing", fc.got)
	}
}

// A server that knows no such method is not told to fix its arguments: no argument can help.
func TestMethodNotFoundIsNotAnArgumentToFix(t *testing.T) {
	err := &CallError{Server: "db", Method: "tools/call", Name: "query", Err: fmt.Errorf("request failed: %w", mcp.ErrMethodNotFound)}
	te := ToolError(err)
	if te == nil || te.Code != promptlib.CodeInvalidInput || strings.Contains(te.Hint(), "Fix the arguments") || !strings.Contains(te.Hint(), "does not offer") {
		t.Errorf("method not found: %+v, hint %q; want INVALID_INPUT saying the server does not offer it", te, te.Hint())
	}
}

// A client's roots/list_changed reaches the servers told of roots, so those that asked for them
// ask again; it is passed on off the client's read loop.
func TestRootsChangedReachesTheServers(t *testing.T) {
	spec, _ := testSpec(t, nil)
	fc := &fakeClient{}
	fc.caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{Client: fc})
	waitState(t, sup.Server("tu"), Ready)
	sup.RootsChanged(context.Background())
	eventually(t, "the server heard the roots changed", func() bool {
		res, err := sup.CallTool(context.Background(), "tu__ask", map[string]any{"what": "rootsChanged"}, nil)
		return err == nil && textOf(res) == "roots changed: 1"
	})
}

// A request that keeps reporting progress is still ended at the cap, and its cause says so; one
// that goes quiet ends for that.
func TestDeadlineCapsAWorkingRequest(t *testing.T) {
	s := &Server{name: "tu", timeout: 5 * time.Millisecond, calls: map[*deadline]bool{}}
	ctx, d := s.newDeadline(context.Background())
	for ctx.Err() == nil {
		d.touch() // progress, as fast as it comes
		runtime.Gosched()
	}
	d.stop()
	var te *TimeoutError
	if !errors.As(context.Cause(ctx), &te) || !te.Capped || !strings.Contains(te.Error(), "10 × the server's timeout") {
		t.Errorf("a request touched until it ended: cause %v, want the cap", context.Cause(ctx))
	}
	ctx, d = s.newDeadline(context.Background())
	<-ctx.Done()
	d.stop()
	if !errors.As(context.Cause(ctx), &te) || te.Capped || !strings.Contains(te.Error(), "no answer and no progress") {
		t.Errorf("a quiet request: cause %v, want the quiet wait", context.Cause(ctx))
	}
	if len(s.calls) != 0 {
		t.Errorf("%d requests left registered", len(s.calls))
	}
}

// Completion is asked of the server by its own names: a prompt's argument under the prompt's own
// name, a template's under the template the server gave, with the arguments already filled in.
// A server that declared no completions answers none, and is not asked.
func TestCompleteAsksTheServer(t *testing.T) {
	spec, _ := testSpec(t, map[string]string{envComplete: "1"})
	plain, _ := testSpec(t, nil)
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec, "pl": plain}, Options{})
	tu := sup.Server("tu")
	waitState(t, tu, Ready)
	ctx := context.Background()

	c, err := tu.Complete(ctx, mcp.PromptReference{Name: "tu__greet"}, mcp.CompleteArgument{Name: "name", Value: "Al"}, nil)
	if err != nil || strings.Join(c.Values, " ") != "Alice Alan" {
		t.Errorf("greet's name from Al: %v %v, want Alice Alan", c, err)
	}
	c, err = tu.Complete(ctx, mcp.ResourceReference{URI: "test://item/{id}"}, mcp.CompleteArgument{Name: "id", Value: "4"}, nil)
	if err != nil || strings.Join(c.Values, " ") != "41 42" {
		t.Errorf("item's id from 4: %v %v, want 41 42", c, err)
	}
	c, err = tu.Complete(ctx, mcp.ResourceReference{URI: "test://item/{id}"}, mcp.CompleteArgument{Name: "id", Value: "1"}, map[string]string{"kind": "old"})
	if err != nil || strings.Join(c.Values, " ") != "17 19" {
		t.Errorf("item's id from 1 of kind old: %v %v, want 17 19", c, err)
	}
	if _, err := tu.Complete(ctx, mcp.PromptReference{Name: "tu__nope"}, mcp.CompleteArgument{Name: "x"}, nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("a prompt it does not serve: %v, want ErrUnknown", err)
	}

	pl := sup.Server("pl")
	waitState(t, pl, Ready)
	c, err = pl.Complete(ctx, mcp.PromptReference{Name: "pl__greet"}, mcp.CompleteArgument{Name: "name", Value: "Al"}, nil)
	if err != nil || c == nil || len(c.Values) != 0 {
		t.Errorf("a server without completions: %v %v, want none and no error", c, err)
	}
}
