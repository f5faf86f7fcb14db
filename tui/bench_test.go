package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// benchModel is a console on a library of n prompts with the Library screen loaded and 5,000
// traffic events on the Traffic screen.
func benchModel(b *testing.B, n int) *Model {
	b.Helper()
	dir := librarytest.Cached(b, n)
	db, err := dbread.Open(context.Background(), filepath.Join(dir, "prompts.db"), dbread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	m := New(context.Background(), Config{DB: db, LibraryDir: dir, QueueDir: filepath.Join(dir, "import-queue"),
		TrafficDir: traffic.Dir(b.TempDir()), ProjectsDir: b.TempDir(), Now: func() time.Time { return clock }, NoColor: true})
	b.Cleanup(m.Close)
	loadLibrary(b, m)
	evs := make([]traffic.Event, 0, keptEvents)
	for len(evs) < keptEvents {
		for _, e := range trafficEvents() {
			e.TS = e.TS.Add(time.Duration(len(evs)) * time.Millisecond)
			evs = append(evs, e)
		}
	}
	m.Update(trafficMsg{events: evs[:keptEvents]})
	return m
}

// The figures issue 13 asks for: one key's Update plus the View it leads to, at 80×24.
// Commands the key returns (reading the next folder, rendering markdown) run off the UI
// goroutine and are not part of the figure.
func BenchmarkConsoleKey(b *testing.B) {
	const n = 10_000
	for _, tc := range []struct {
		name  string
		setup []string
		keys  []string
	}{
		{"library-prompt-list", []string{"l"}, []string{"j", "j", "j", "k", "k", "k"}},
		{"library-folders", nil, []string{"j", "j", "k", "k"}},
		{"switch-screens", nil, []string{"2", "3", "4", "5", "1"}},
		{"traffic-5000-events", []string{"3"}, []string{"j", "j", "k", "k"}},
	} {
		b.Run(fmt.Sprintf("%s/prompts=%d", tc.name, n), func(b *testing.B) {
			m := benchModel(b, n)
			for _, k := range tc.setup {
				m.Update(keyMsg(k))
			}
			msgs := make([]tea.Msg, len(tc.keys))
			for i, k := range tc.keys {
				msgs[i] = keyMsg(k)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				m.Update(msgs[i%len(msgs)])
				_ = m.View()
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/key")
		})
	}
}

// What runs off the UI goroutine after a key: reading a folder's prompts (the 500 newest of
// all) and rendering one prompt as markdown (the largest in the library, cut at previewLimit).
func BenchmarkConsoleCommands(b *testing.B) {
	const n = 10_000
	m := benchModel(b, n)
	ls := m.screens[0].(*libraryScreen)
	b.Run(fmt.Sprintf("list-500-newest/prompts=%d", n), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if msg := ls.loadPrompts()().(promptsMsg); msg.err != nil {
				b.Fatal(msg.err)
			}
		}
	})
	var big promptlib.Prompt
	for _, p := range promptlib.Sample(n, 1).Prompts {
		if len(p.Content) > len(big.Content) {
			big = p
		}
	}
	b.Run(fmt.Sprintf("render-markdown/bytes=%d", len(big.Content)), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			renderPrompt("k", big, 52, m.st)()
		}
	})
}

// The Pipeline screen scrolling a file near its 8 MB limit, original beside the default
// model's copy: one key's update and the view it leads to, at 80×24.
func BenchmarkPipelineScroll(b *testing.B) {
	var doc strings.Builder
	for i := 0; doc.Len() < maxPipelineInput-4096; i++ {
		fmt.Fprintf(&doc, "## Part %d\n\nA line of prose that wraps at the column width, as most of a long document does.\n\n", i)
	}
	path := filepath.Join(b.TempDir(), "big.md")
	if err := os.WriteFile(path, []byte(doc.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	s := newPipelineScreen(env{cfg: &Config{Pipeline: splitter{}}, st: newStyles(false)})
	s.resize(80, 24)
	s.update(keyMsg("m")) // the default model: the whole text on both sides
	for _, k := range []string{"o", path, "enter"} {
		if cmd := s.update(keyMsg(k)); cmd != nil && k == "enter" {
			settle(s, cmd)
		}
	}
	if s.out == nil {
		b.Fatalf("the file was not transformed: %v", s.err)
	}
	keys := []tea.Msg{keyMsg("j"), keyMsg("j"), keyMsg("k"), keyMsg("k")}
	_ = s.view() // the first view wraps the text once
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.update(keys[i%len(keys)])
		_ = s.view()
	}
}

// One reading of a queue that holds 50 pending and 300 processed create_prompt operations of
// 20 KB each: what the Queue screen does after each change to the queue, the first time and
// again (the kinds it decoded remembered).
func BenchmarkScanQueue(b *testing.B) {
	q := b.TempDir()
	body := strings.Repeat("a line of a prompt's body\n", 800)
	for i := range 350 {
		sub := q
		if i >= 50 {
			sub = filepath.Join(q, "processed")
		}
		if err := os.MkdirAll(sub, 0o700); err != nil {
			b.Fatal(err)
		}
		op := fmt.Sprintf(`{"id":"%08d-0000-4000-8000-000000000000","operation":"create_prompt","timestamp":"2026-01-01T00:00:00Z","data":{"title":"t%d","content":%q}}`, i, i, body)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("%08d-0000-4000-8000-000000000000.json", i)), []byte(op), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for name, kinds := range map[string]*opKinds{"first": nil, "again": {}} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if st, err := scanQueueWith(q, kinds); err != nil || len(st.Ops) != 150 {
					b.Fatalf("%v, %d operations", err, len(st.Ops))
				}
			}
		})
	}
}

// bigPayloadEvent is a traced tools/call response whose payload is about size bytes: a result
// with a line of text and structuredContent holding records, as a database tool returns them.
func bigPayloadEvent(size int) traffic.Event {
	var recs strings.Builder
	for i := 0; recs.Len() < size; i++ {
		if i > 0 {
			recs.WriteByte(',')
		}
		fmt.Fprintf(&recs, `{"id":%d,"name":"Customer %d","email":"c%d@example.com","status":"active","notes":"%s"}`,
			i, i, i, strings.Repeat("a note on the customer ", 4))
	}
	payload := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"records"}],"structuredContent":{"records":[` +
		recs.String() + `]}}}`
	return traffic.Event{TS: clock, Session: "a1b2c3d4", Kind: traffic.KindResponse, Method: "tools/call", ID: "7", Name: "db__big",
		Status: traffic.StatusOK, BytesOut: len(payload), Payload: []byte(payload)}
}

// The Traffic screen with an event of a 5 MB payload open, the terminal resized between 80 and
// 120 columns. ui is what the UI goroutine does for a resize: its Update and view, then the
// arrived layout's Update and view. layout is the command that wraps the kept text for the new
// width, off the UI goroutine; open the one enter starts, which also pretty-prints the payload.
// Before the layout was a command, the resize's Update did all of open's work: 210 ms at 5 MB;
// now the UI goroutine spends 0.3 ms, the layout command 90 ms.
func BenchmarkTrafficDetailResize(b *testing.B) {
	e := bigPayloadEvent(5 << 20)
	m := newModel(b, Config{TrafficDir: traffic.Dir(b.TempDir()), Now: func() time.Time { return clock }, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(trafficMsg{events: []traffic.Event{e}})
	m.Update(keyMsg("3"))
	openEvent(b, m)
	ts := m.screens[2].(*trafficScreen)
	sizes := []tea.WindowSizeMsg{{Width: 120, Height: 40}, {Width: 80, Height: 24}}
	mb := fmt.Sprintf("payload=%dMB", len(e.Payload)>>20)
	b.Run("ui/"+mb, func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, cmd := m.Update(sizes[i%len(sizes)])
			_ = m.View()
			b.StopTimer()
			msgs := runBatch(cmd)
			b.StartTimer()
			for _, msg := range msgs {
				if d, ok := msg.(detailMsg); ok {
					m.Update(d)
				}
			}
			_ = m.View()
		}
		if ts.detailW != m.w {
			b.Fatalf("the detail is laid out for %d columns, the screen has %d", ts.detailW, m.w)
		}
	})
	b.Run("layout/"+mb, func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			ts.detailW, ts.laying = 0, false
			ts.w = sizes[i%len(sizes)].Width
			ts.relayout()()
		}
	})
	b.Run("open/"+mb, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ts.open(e)()
		}
	})
}
