package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

func TestMain(m *testing.M) {
	// Golden files are plain text: what a NO_COLOR terminal shows.
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// clock is the fixed now of every test.
var clock = time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)

// Fixed operation ids of the queue fixture.
const (
	pendingID   = "11111111-1111-4111-8111-111111111111"
	failedID    = "22222222-2222-4222-8222-222222222222"
	processedID = "33333333-3333-4333-8333-333333333333"
)

// fixture is a console's world on disk: a real library, a queue, traffic files and projects.
type fixture struct {
	lib *librarytest.Library
	db  *dbread.DB
	cfg Config
}

// newFixture builds a library of n sample prompts and the console's Config around it. The
// queue, traffic and projects are empty; the with* helpers fill them.
func newFixture(tb testing.TB, n int) *fixture {
	tb.Helper()
	lib := librarytest.New(tb, n)
	db, err := dbread.Open(context.Background(), lib.DB, dbread.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	state := tb.TempDir()
	return &fixture{lib: lib, db: db, cfg: Config{
		DB: db, LibraryDir: lib.Dir, QueueDir: lib.Queue,
		TrafficDir:  traffic.Dir(state),
		ProjectsDir: filepath.Join(tb.TempDir(), "projects"),
		Now:         func() time.Time { return clock },
		NoColor:     true,
		GOOS:        "darwin", // a Prompteka library's queue is the app's, as for the console's users
	}}
}

func writeFile(tb testing.TB, path, text string, mod time.Time) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	if !mod.IsZero() {
		if err := os.Chtimes(path, mod, mod); err != nil {
			tb.Fatal(err)
		}
	}
}

// opJSON is an operation file's text.
func opJSON(tb testing.TB, id string, kind promptlib.OpKind, data string) string {
	tb.Helper()
	b, err := json.Marshal(promptlib.Operation{ID: id, Operation: kind, Timestamp: promptlib.Time{Time: clock}, Data: json.RawMessage(data)})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// withQueue puts one pending, one failed and one processed operation in the queue.
func (f *fixture) withQueue(tb testing.TB) {
	tb.Helper()
	q := f.cfg.QueueDir
	for _, d := range []string{"processing", "processed", "failed"} {
		if err := os.MkdirAll(filepath.Join(q, d), 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	writeFile(tb, filepath.Join(q, pendingID+".json"), opJSON(tb, pendingID, promptlib.OpCreatePrompt, `{"title":"New","content":"x"}`), clock.Add(-30*time.Second))
	writeFile(tb, filepath.Join(q, "failed", failedID+".json"), opJSON(tb, failedID, promptlib.OpUpdatePrompt, `{"id":"9F0C0C8E-0000-4000-8000-000000000001","title":"Renamed"}`), clock.Add(-2*time.Hour))
	writeFile(tb, filepath.Join(q, "failed", failedID+".error"), "NOT_FOUND: prompt 9F0C0C8E-0000-4000-8000-000000000001 does not exist\n2026-01-02T03:04:05Z\n", time.Time{})
	writeFile(tb, filepath.Join(q, "processed", processedID+".json"), opJSON(tb, processedID, promptlib.OpDeletePrompt, `{"id":"9F0C0C8E-0000-4000-8000-000000000002"}`), clock.Add(-26*time.Hour))
}

// trafficEvents are two sessions' worth of calls.
func trafficEvents() []traffic.Event {
	at := func(s float64) time.Time { return clock.Add(-time.Minute + time.Duration(s*float64(time.Second))) }
	evs := []traffic.Event{
		{TS: at(0), Session: "a1b2c3d4", Project: "web", Kind: traffic.KindRequest, Method: "initialize", ID: "0", BytesIn: 310},
		{TS: at(0.01), Session: "a1b2c3d4", Project: "web", Kind: traffic.KindResponse, Method: "initialize", ID: "0", DurationMs: 4, BytesIn: 310, BytesOut: 2900, Status: traffic.StatusOK},
		{TS: at(1), Session: "a1b2c3d4", Project: "web", Kind: traffic.KindResponse, Method: "tools/call", ID: "1", Name: "begin_session", DurationMs: 12, BytesIn: 90, BytesOut: 7400, Status: traffic.StatusOK,
			Gate: &traffic.Gate{State: "open", Matched: 9, Sent: 4, Bytes: 7100}},
		{TS: at(1.1), Session: "a1b2c3d4", Project: "web", Kind: traffic.KindNotification, Method: "notifications/tools/list_changed"},
		{TS: at(5), Session: "e5f6a7b8", Kind: traffic.KindResponse, Method: "resources/read", ID: "3", Name: "prompt://review", DurationMs: 30, BytesIn: 70, BytesOut: 1200, Status: traffic.StatusOK,
			Pipeline: &traffic.Pipeline{Model: "subindex", Stages: []string{"section-split", "summarize-tree"}, BytesBefore: 9000, BytesAfter: 1200, CacheHit: true},
			// Traced as serve records it (mcpserver's observe.go): the whole JSON-RPC message.
			Payload: json.RawMessage(`{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"prompt://review","mimeType":"text/markdown",` +
				`"text":"# Review\n\n## Scope\n\nEvery change.\n\n## Checklist\n\n- names\n- tests\n"}]}}`)},
		{TS: at(9), Session: "e5f6a7b8", Kind: traffic.KindResponse, Method: "tools/call", ID: "4", Name: "get_prompt", DurationMs: 2, BytesIn: 60, BytesOut: 300, Status: traffic.StatusError, ErrorCode: "NOT_FOUND",
			Payload: json.RawMessage(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"NOT_FOUND: no prompt has this id"}],"isError":true}}`)},
	}
	for i, d := range []float64{3, 5, 8, 4} {
		evs = append(evs, traffic.Event{TS: at(10 + float64(i)), Session: "a1b2c3d4", Project: "web", Kind: traffic.KindResponse, Method: "tools/call",
			ID: strings.Repeat("1", i+2), Name: "search_prompts", DurationMs: d, BytesIn: 80, BytesOut: 4000, Status: traffic.StatusOK})
	}
	return evs
}

// withTraffic writes the events as one server session would.
func (f *fixture) withTraffic(tb testing.TB, evs []traffic.Event) *traffic.Writer {
	tb.Helper()
	w, err := traffic.Open(f.cfg.TrafficDir, clock)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

// withProject writes a project file.
func (f *fixture) withProject(tb testing.TB, name, yaml string) {
	tb.Helper()
	writeFile(tb, filepath.Join(f.cfg.ProjectsDir, name+".yaml"), yaml, time.Time{})
}

// splitter is a Transformer for the Pipeline screen's tests: it cuts markdown at its "## "
// headings and serves a table of contents, the shape of the real pipeline's section-split.
type splitter struct{}

var _ Transformer = splitter{}

func (splitter) Models() []string { return []string{"subindex", "default"} }

func (splitter) Transform(_ context.Context, model string, in Input) (Output, error) {
	out := Output{BytesBefore: len(in.Text), Stages: []string{"section-split", "summarize-tree"}, Ref: "sha256:test"}
	if model == "default" {
		out.Text, out.BytesAfter, out.Stages = in.Text, len(in.Text), []string{"passthrough"}
		return out, nil
	}
	var toc strings.Builder
	toc.WriteString("Sections (read_section):\n")
	parts := strings.Split(in.Text, "\n## ")
	for i, p := range parts {
		title, _, _ := strings.Cut(strings.TrimPrefix(p, "# "), "\n")
		id := "s" + string(rune('1'+i))
		out.Sections = append(out.Sections, Section{ID: id, Title: title, Bytes: len(p), Depth: min(i, 1)})
		toc.WriteString("- " + id + " " + title + "\n")
	}
	out.Text = toc.String()
	out.BytesAfter = len(out.Text)
	return out, nil
}

// openEvent presses enter on the Traffic screen and shows the event once laid out, as the
// program does with the command enter returns.
func openEvent(tb testing.TB, m *Model) {
	tb.Helper()
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		tb.Fatal("enter opened no event")
	}
	layOut(m, cmd)
}

// resize gives the console a new size and returns the commands that asks for.
func resize(m *Model, w, h int) tea.Cmd {
	_, cmd := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return cmd
}

// layOut runs the Traffic detail's layouts among cmd's commands and those they lead to, and
// shows them; the other commands (a preview's rendering) are left.
func layOut(m *Model, cmd tea.Cmd) {
	for _, msg := range runBatch(cmd) {
		if d, ok := msg.(detailMsg); ok {
			_, next := m.Update(d)
			layOut(m, next)
		}
	}
}

// settle runs a Pipeline screen's command and those its answers lead to, as the program does:
// a file is read, then transformed.
func settle(s *pipelineScreen, cmd tea.Cmd) {
	for cmd != nil {
		cmd = s.update(cmd())
	}
}
