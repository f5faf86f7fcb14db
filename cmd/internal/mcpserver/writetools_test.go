package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
)

// On a Prompteka library with nothing answering its queue, a write says that nothing was
// applied and leaves the queue as found: away from macOS, where the app cannot run, at once,
// naming the command that would answer; where something might answer (the app on macOS, a
// forced processor holding the queue's lock), after waiting for it. Run in-process with short
// timings; TestWriteNoAppRealTimings checks the real ones.
func TestWriteNoApp(t *testing.T) {
	lib := librarytest.New(t, 3)
	db, err := dbread.Open(context.Background(), lib.DB, dbread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := &core{lib: Library{Dir: lib.Dir, DB: lib.DB, Queue: lib.Queue}, db: db, log: slog.New(slog.DiscardHandler)}
	c.view = newView(db, nil, c.log)
	d, err := newWriteTools(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	d.w.AttemptTimeout, d.w.RetryDelay, d.w.Grace = 50*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond
	var create func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
	for _, st := range d.tools() {
		if st.Tool.Name == "create_prompt" {
			create = st.Handler
		}
	}
	write := func() ToolError {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = "create_prompt"
		req.Params.Arguments = map[string]any{"title": "lost", "content": "x"}
		res, err := create(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var te ToolError
		json.Unmarshal(resultJSON(t, res), &te)
		if !res.IsError || te.Applied != "not_applied" || te.OperationID == "" || !strings.Contains(te.Message, te.OperationID) {
			t.Errorf("got %+v, want an error, not applied, naming the operation", te)
		}
		if got := pendingOps(t, lib.Queue); len(got) != 0 {
			t.Errorf("queue holds %v, want it as found", got)
		}
		return te
	}
	if runtime.GOOS != "darwin" {
		// The app cannot run here: with no forced processor, nothing is queued, and the hint
		// names the command that applies this library's writes.
		te := write()
		if te.Error != "PROCESSOR_STOPPED" || !strings.Contains(te.Hint, "'mcpctl queue process --force --library "+lib.Dir+"'") {
			t.Errorf("got %+v, want PROCESSOR_STOPPED, saying what to run", te)
		}
		// One holding the queue's lock is waited for, as the app is.
		lock, err := queue.TryLock(lib.Queue)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
	}
	if te := write(); te.Error != "RESPONSE_TIMEOUT" || !strings.Contains(te.Message, "did not answer") {
		t.Errorf("got %+v, want RESPONSE_TIMEOUT", te)
	}
}

// pendingOps lists the operation files waiting in a queue.
func pendingOps(tb testing.TB, q string) []string {
	tb.Helper()
	entries, err := os.ReadDir(q)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

func resultJSON(tb testing.TB, res *mcp.CallToolResult) []byte {
	tb.Helper()
	if len(res.Content) == 0 {
		tb.Fatal("result has no content")
	}
	tc, ok := mcp.AsTextContent(res.Content[len(res.Content)-1])
	if !ok {
		tb.Fatalf("last content is %T, want text", res.Content[len(res.Content)-1])
	}
	return []byte(tc.Text)
}
