package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// memLibrary is an in-memory libraryReader: the unit tests and benchmarks of the prompt surface
// run without SQLite; the end-to-end tests use the real library.
type memLibrary struct {
	mu   sync.Mutex
	lib  promptlib.Library
	fail error // a read (Fingerprint) fails with it while set
	// hold, while set, makes a read (Fingerprint) wait until it is closed or the read's context
	// ends.
	hold    chan struct{}
	changes chan struct{}
	// rowids numbers the prompts as SQLite would: in the order first seen, never reused.
	rowids map[string]int64
	read   atomic.Int64 // prompts handed to readers
}

var _ libraryReader = (*memLibrary)(nil)

func newMemLibrary(lib promptlib.Library) *memLibrary {
	return &memLibrary{lib: lib, changes: make(chan struct{}, 1), rowids: map[string]int64{}}
}

// edit changes the library and signals a change, as dbread does after a write by the app.
func (m *memLibrary) edit(f func(lib *promptlib.Library)) {
	m.mu.Lock()
	f(&m.lib)
	m.mu.Unlock()
	select {
	case m.changes <- struct{}{}:
	default:
	}
}

// rows is the library's prompts with their rowids, in rowid order.
func (m *memLibrary) rows() []memRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows := make([]memRow, len(m.lib.Prompts))
	for i, p := range m.lib.Prompts {
		rowid, ok := m.rowids[p.ID]
		if !ok {
			rowid = int64(len(m.rowids) + 1)
			m.rowids[p.ID] = rowid
		}
		rows[i] = memRow{rowid, p}
	}
	slices.SortFunc(rows, func(a, b memRow) int { return cmp.Compare(a.rowid, b.rowid) })
	return rows
}

type memRow struct {
	rowid int64
	p     promptlib.Prompt
}

// Fingerprint sums each bucket's prompts by a hash of all they hold, so a test may edit a
// prompt without stamping updated_at (the real library relies on the app stamping it).
func (m *memLibrary) Fingerprint(ctx context.Context) (dbread.Fingerprint, error) {
	m.mu.Lock()
	hold, fail := m.hold, m.fail
	m.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	sums := dbread.Fingerprint{}
	for _, r := range m.rows() {
		h := fnv.New32a()
		folder := ""
		if r.p.FolderID != nil {
			folder = *r.p.FolderID
		}
		for _, s := range []string{r.p.ID, r.p.Title, r.p.Content, folder} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		lo := r.rowid &^ (dbread.BucketWidth - 1)
		s := sums[lo]
		s.N++
		s.Updated += float64(h.Sum32())
		s.Latest = max(s.Latest, float64(r.p.UpdatedAt.Unix()))
		sums[lo] = s
	}
	return sums, nil
}

func (m *memLibrary) EachPromptRow(ctx context.Context, fn func(int64, promptlib.Prompt) error) error {
	for _, r := range m.rows() {
		m.read.Add(1)
		if err := fn(r.rowid, r.p); err != nil {
			return err
		}
	}
	return nil
}

func (m *memLibrary) EachPromptInBucket(ctx context.Context, lo int64, fn func(int64, promptlib.Prompt) error) error {
	for _, r := range m.rows() {
		if r.rowid >= lo && r.rowid < lo+dbread.BucketWidth {
			m.read.Add(1)
			if err := fn(r.rowid, r.p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *memLibrary) Folders(context.Context) ([]dbread.FolderInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	paths := gate.FolderPaths(m.lib.Folders)
	children := map[string][]promptlib.Folder{}
	var roots []promptlib.Folder
	for _, f := range m.lib.Folders {
		if f.ParentID == nil {
			roots = append(roots, f)
		} else {
			children[*f.ParentID] = append(children[*f.ParentID], f)
		}
	}
	prompts := map[string]int{}
	for _, p := range m.lib.Prompts {
		if p.FolderID != nil {
			prompts[*p.FolderID]++
		}
	}
	var out []dbread.FolderInfo
	var walk func(fs []promptlib.Folder)
	walk = func(fs []promptlib.Folder) { // tree order, as dbread gives it
		for _, f := range fs {
			out = append(out, dbread.FolderInfo{Folder: f, Path: paths[promptlib.Key(f.ID)], ChildCount: len(children[f.ID]), PromptCount: prompts[f.ID]})
			walk(children[f.ID])
		}
	}
	walk(roots)
	return out, nil
}

func (m *memLibrary) Prompt(_ context.Context, id string) (promptlib.Prompt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.lib.Prompts {
		if strings.EqualFold(p.ID, id) {
			return p, nil
		}
	}
	return promptlib.Prompt{}, dbread.ErrNotFound
}

func (m *memLibrary) Folder(_ context.Context, id string) (promptlib.Folder, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range m.lib.Folders {
		if strings.EqualFold(f.ID, id) {
			return f, nil
		}
	}
	return promptlib.Folder{}, dbread.ErrNotFound
}

func (m *memLibrary) Changes() (<-chan struct{}, func()) { return m.changes, func() {} }

// The in-memory library signals its changes itself; its version stays 0, so a snapshot is
// always as new as it (awaitCurrent waits only for the first load).
func (m *memLibrary) Poll(context.Context) (uint64, error) { return 0, nil }
func (m *memLibrary) Version() uint64                      { return 0 }

// testSurface is a prompt surface on an in-process server configured as New does, over a view
// of an in-memory library, with one connected session that records notifications.
type testSurface struct {
	*promptSurface
	lib       *memLibrary
	notes     chan mcp.JSONRPCNotification
	published atomic.Pointer[snapshot] // the last snapshot whose changes were sent
}

func newTestSurface(tb testing.TB, lib promptlib.Library) *testSurface {
	tb.Helper()
	return newScopedTestSurface(tb, lib, nil, nil)
}

// newScopedTestSurface serves a project (nil: the whole library). A non-nil fail makes the
// library unreadable until the test clears it.
func newScopedTestSurface(tb testing.TB, lib promptlib.Library, project *gate.Project, fail error) *testSurface {
	tb.Helper()
	srv := server.NewMCPServer("mcpctl", "test",
		server.WithPromptCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithCompletions(),
		server.WithHooks(&server.Hooks{}),
	)
	ts := &testSurface{lib: newMemLibrary(lib), notes: make(chan mcp.JSONRPCNotification, 1000)}
	ts.lib.fail = fail
	v := newView(ts.lib, project, nil)
	ts.promptSurface = newPromptSurface(srv, v, nil)
	v.subscribe(func(_, next *snapshot) { ts.published.Store(next) })
	stop, err := v.start(context.Background(), false)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	<-v.ready // a big library outlasts initialLoadWait; tests want it loaded
	sess := &noteSession{ch: ts.notes}
	if err := srv.RegisterSession(context.Background(), sess); err != nil {
		tb.Fatal(err)
	}
	return ts
}

type noteSession struct{ ch chan mcp.JSONRPCNotification }

func (s *noteSession) Initialize()                                         {}
func (s *noteSession) Initialized() bool                                   { return true }
func (s *noteSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *noteSession) SessionID() string                                   { return "test" }

// rpcError is a JSON-RPC error response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpc sends one request to the server and decodes the result into out, or returns the error.
func (ts *testSurface) rpc(tb testing.TB, method string, params any, out any) *rpcError {
	tb.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := json.Marshal(ts.srv.HandleMessage(context.Background(), req))
	if err != nil {
		tb.Fatal(err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		tb.Fatalf("%s: decode %s: %v", method, raw, err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	if out != nil {
		if err := json.Unmarshal(resp.Result, out); err != nil {
			tb.Fatalf("%s: decode %s: %v", method, resp.Result, err)
		}
	}
	return nil
}

// listPromptNames pages through prompts/list.
func (ts *testSurface) listPromptNames(tb testing.TB) []string {
	tb.Helper()
	var names []string
	cursor := ""
	for {
		var res mcp.ListPromptsResult
		if e := ts.rpc(tb, "prompts/list", map[string]any{"cursor": cursor}, &res); e != nil {
			tb.Fatalf("prompts/list: %+v", e)
		}
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		if res.NextCursor == "" {
			return names
		}
		cursor = string(res.NextCursor)
	}
}

// waitReload waits until the surface has published a snapshot that satisfies ok: served, and
// its notifications sent.
func (ts *testSurface) waitReload(tb testing.TB, ok func(*snapshot) bool) {
	tb.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if s := ts.published.Load(); s != nil && ok(s) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			tb.Fatal("the surface did not pick up the library change within 10s")
		}
	}
}

func drain(ch chan mcp.JSONRPCNotification) map[string]int {
	got := map[string]int{}
	for {
		select {
		case n := <-ch:
			got[n.Method]++
		default:
			return got
		}
	}
}

func TestLiveUpdates(t *testing.T) {
	lib := promptlib.Library{Prompts: []promptlib.Prompt{
		{ID: "A0000000-0000-4000-8000-000000000001", Title: "Code Review", Content: "Review {{language}} code."},
		{ID: "A0000000-0000-4000-8000-000000000002", Title: "Summarize", Content: "Summarize this."},
	}}
	ts := newTestSurface(t, lib)
	var changed []*snapshot
	var mu sync.Mutex
	// Hooks are added before start in production; here the updater is idle until an edit.
	// The view is idle until an edit, so subscribing after its start is safe here.
	ts.view.subscribe(func(_, s *snapshot) { mu.Lock(); changed = append(changed, s); mu.Unlock() })
	drain(ts.notes)

	steps := []struct {
		name  string
		edit  func(lib *promptlib.Library)
		want  []string
		notes bool
	}{
		{"add", func(lib *promptlib.Library) {
			lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: "A0000000-0000-4000-8000-000000000003", Title: "Write Tests", Content: "x"})
		}, []string{"code-review", "summarize", "write-tests"}, true},
		{"rename", func(lib *promptlib.Library) { lib.Prompts[1].Title = "Summarise Briefly" },
			[]string{"code-review", "summarise-briefly", "write-tests"}, true},
		{"delete", func(lib *promptlib.Library) { lib.Prompts = lib.Prompts[1:] },
			[]string{"summarise-briefly", "write-tests"}, true},
		{"content edit that leaves the listing alone", func(lib *promptlib.Library) { lib.Prompts[0].Content = "Summarize this.\n\nA second paragraph." },
			[]string{"summarise-briefly", "write-tests"}, false},
	}
	for i, step := range steps {
		ts.lib.edit(step.edit)
		ts.waitReload(t, func(*snapshot) bool { mu.Lock(); defer mu.Unlock(); return len(changed) > i })
		if got := ts.listPromptNames(t); strings.Join(got, ",") != strings.Join(step.want, ",") {
			t.Errorf("%s: prompts/list got %q, want %q", step.name, got, step.want)
		}
		notes := drain(ts.notes)
		n := notes[mcp.MethodNotificationPromptsListChanged]
		switch {
		case step.notes && (n < 1 || n > 2):
			t.Errorf("%s: got %d prompts/list_changed, want 1 or 2", step.name, n)
		case !step.notes && n != 0:
			t.Errorf("%s: got %d prompts/list_changed for an unchanged list, want none", step.name, n)
		}
		if r := notes[mcp.MethodNotificationResourcesListChanged]; step.notes && (r < 1 || r > 2) {
			t.Errorf("%s: got %d resources/list_changed, want 1 or 2", step.name, r)
		}
	}
}

// A library the app holds locked at start is served as soon as it can be read, without
// waiting for an edit.
func TestLiveRetriesAFailedLoad(t *testing.T) {
	ts := newScopedTestSurface(t, promptFixture(), nil, dbread.ErrLocked)
	if n := ts.view.current().prompts.len(); n != 0 {
		t.Fatalf("unreadable library: got %d prompts, want 0", n)
	}
	ts.lib.mu.Lock()
	ts.lib.fail = nil
	ts.lib.mu.Unlock()
	ts.waitReload(t, func(s *snapshot) bool { return s.prompts.len() == 3 })
}

// A prompt whose body is unchanged but whose name moves (a new prompt took its slug) is renamed
// from the cache, keeping its summary and arguments.
func TestViewRenamesUnchangedPromptOnClash(t *testing.T) {
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	old := promptlib.Prompt{ID: "BBBB0000-0000-4000-8000-000000000000", Title: "Review", Content: "Check {{lang}} code. More.", CreatedAt: t0, UpdatedAt: t0}
	lib := newMemLibrary(promptlib.Library{Prompts: []promptlib.Prompt{old}})
	v := newView(lib, nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	lib.mu.Lock()
	lib.lib.Prompts = append(lib.lib.Prompts, promptlib.Prompt{ID: "AAAA0000-0000-4000-8000-000000000000", Title: "Review", Content: "Other.", CreatedAt: t0, UpdatedAt: t0})
	lib.mu.Unlock()
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	sp := listedNamed(&v.current().prompts, "review-bbbb")
	if mp := sp.mcpPrompt(); sp.id != old.ID || mp.Name != "review-bbbb" || mp.Description != "Check {{lang}} code." ||
		len(mp.Arguments) != 1 || mp.Arguments[0].Name != "lang" {
		t.Fatalf("renamed prompt: %+v", sp)
	}
	if got, ok := v.current().prompt("review"); !ok || got.id != "AAAA0000-0000-4000-8000-000000000000" {
		t.Errorf("review now names %+v, want the new prompt", got)
	}
}

// TestToolsListIsOnePage: prompts and resources page, tools do not. Claude Code, Codex and
// claude.ai read only the first page of tools/list, so a project whose servers bring hundreds of
// tools would otherwise hide every tool past the page, mcpctl's own included.
func TestToolsListIsOnePage(t *testing.T) {
	ts := newTestSurface(t, promptlib.Library{})
	const n = 2*promptPageSize + 50
	for i := range n {
		ts.srv.AddTool(mcp.NewTool(fmt.Sprintf("up__tool_%04d", i)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	}
	ts.srv.AddTool(mcp.NewTool("search_prompts"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	var res mcp.ListToolsResult
	if e := ts.rpc(t, "tools/list", map[string]any{}, &res); e != nil {
		t.Fatalf("tools/list: %+v", e)
	}
	if res.NextCursor != "" || len(res.Tools) != n+1 {
		t.Errorf("tools/list: %d tools and nextCursor %q, want all %d on one page", len(res.Tools), res.NextCursor, n+1)
	}
	if !slices.ContainsFunc(res.Tools, func(tl mcp.Tool) bool { return tl.Name == "search_prompts" }) {
		t.Error("tools/list: search_prompts is missing")
	}
}
