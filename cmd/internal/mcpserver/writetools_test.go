package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// On a Prompteka library with no app running, a write withdraws its operation and says that
// nothing was applied and the app seems not to be running. Run in-process with short timings;
// TestWriteNoAppRealTimings checks the real ones.
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
	var req mcp.CallToolRequest
	req.Params.Name = "create_prompt"
	req.Params.Arguments = map[string]any{"title": "lost", "content": "x"}
	res, err := create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var te ToolError
	json.Unmarshal(resultJSON(t, res), &te)
	if !res.IsError || te.Error != "RESPONSE_TIMEOUT" || te.Applied != "not_applied" || te.OperationID == "" ||
		!strings.Contains(te.Message, "not to be running") || !strings.Contains(te.Message, te.OperationID) {
		t.Errorf("got %+v, want RESPONSE_TIMEOUT, not applied, app not running, naming the operation", te)
	}
	if got := pendingOps(t, lib.Queue); len(got) != 0 {
		t.Errorf("queue holds %v, want it as found", got)
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
