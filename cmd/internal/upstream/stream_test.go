package upstream

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// misbehavingSpec is the test server with the tools that break the connection, and a timeout
// short enough for a test and long enough for a start on a loaded machine.
func misbehavingSpec(tb testing.TB) gate.ServerSpec {
	tb.Helper()
	spec, _ := testSpec(tb, map[string]string{envMisbehave: "1"})
	spec.TimeoutMs = 2000
	return spec
}

// callAsync calls a tool on its own goroutine and waits for it at most waitLimit: a call that
// never returns fails the test rather than hanging it.
func callAsync(tb testing.TB, sup *Supervisor, name string, args any) (*mcp.CallToolResult, error) {
	tb.Helper()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := sup.CallTool(context.Background(), name, args, nil)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-time.After(waitLimit):
		tb.Fatalf("call %s did not return within %v", name, waitLimit)
		return nil, nil
	}
}

// restarted waits for the server to be ready again after a failure, and checks that the failure
// is recorded and calls work again.
func restarted(tb testing.TB, sup *Supervisor, server, lastError string) {
	tb.Helper()
	srv := sup.Server(server)
	var st Status
	eventually(tb, "server "+server+" to be restarted", func() bool {
		st = srv.State()
		return st.State == Ready && st.Restarts >= 1
	})
	if !strings.Contains(st.LastError, lastError) {
		tb.Errorf("after the restart: last error %q, want it to say %q", st.LastError, lastError)
	}
	if res, err := callAsync(tb, sup, server+"__small", map[string]any{"word": "again"}); err != nil || textOf(res) != "small: again" {
		tb.Errorf("call after the restart: got %v %v", res, err)
	}
}

// A server that stops reading its stdin held a call with large arguments in mcp-go's write for
// good, every later message to the server behind it, and mcpctl's shutdown behind those. The
// write is bounded by the server's timeout: the call fails saying why and what to do, and the
// server is stopped and restarted.
func TestServerThatStopsReadingIsRestarted(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	if _, err := callAsync(t, sup, "tu__stop_reading", nil); err != nil {
		t.Fatal(err)
	}
	// Far more than a pipe holds, so the write cannot finish.
	_, err := callAsync(t, sup, "tu__small", map[string]any{"word": strings.Repeat("x", 4<<20)})
	var ue *UnavailableError
	te := ToolError(err)
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "stopped reading its input") ||
		te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Message, "try smaller arguments") {
		t.Fatalf("got %v (%+v), want UPSTREAM_UNAVAILABLE saying it stopped reading its input and what to do", err, te)
	}
	restarted(t, sup, "tu", "stopped reading its input")
}

// One line of a server's stdout grew without bound (300 MB without a newline took 936 MB): a
// message longer than the cap fails the call at once, naming the size and what to do, and the
// server is restarted. The cap is lowered for the test; the big tool answers 200 KB.
func TestOversizedMessageIsRefused(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{maxLine: 100 << 10})
	waitState(t, sup.Server("tu"), Ready)
	_, err := callAsync(t, sup, "tu__big", nil)
	var ue *UnavailableError
	te := ToolError(err)
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "a message larger than 100 KiB") ||
		te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Message, "ask for less at a time") {
		t.Fatalf("got %v (%+v), want UPSTREAM_UNAVAILABLE naming the 100 KiB cap and what to do", err, te)
	}
	restarted(t, sup, "tu", "larger than 100 KiB")
}

// A reply nested deeper than encoding/json parses was dropped by mcp-go without a word, and its
// call waited out the whole timeout: it now fails at once, saying why. Brackets inside strings
// are text, not nesting, and do not count.
func TestDeeplyNestedMessageIsRefused(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	word := `\"` + strings.Repeat("[{", maxDepth)
	if res, err := callAsync(t, sup, "tu__small", map[string]any{"word": word}); err != nil || textOf(res) != "small: "+word {
		t.Fatalf("brackets in a string: got %v %v, want the text back", res, err)
	}

	_, err := callAsync(t, sup, "tu__deep", nil)
	var ue *UnavailableError
	te := ToolError(err)
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "nested more than 10000 levels deep") ||
		te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Message, "use another tool") {
		t.Fatalf("got %v (%+v), want UPSTREAM_UNAVAILABLE saying the reply is nested too deep", err, te)
	}
	restarted(t, sup, "tu", "nested more than 10000 levels deep")
}
