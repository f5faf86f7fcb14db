package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testEngine is an Engine over fresh config and cache directories.
type testEngine struct {
	*Engine
	config, cache string
	logs          *syncBuffer
}

// syncBuffer collects log output from concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestEngine(tb testing.TB) *testEngine {
	tb.Helper()
	root := tb.TempDir()
	te := &testEngine{config: filepath.Join(root, "config"), cache: filepath.Join(root, "cache"), logs: &syncBuffer{}}
	te.Engine = te.reopen(tb)
	return te
}

// reopen makes a new Engine on the same directories, as a restarted process would.
func (te *testEngine) reopen(tb testing.TB) *Engine {
	tb.Helper()
	e, err := NewEngine(Options{ConfigDir: te.config, CacheDir: te.cache, Logger: slog.New(slog.NewJSONHandler(te.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func (te *testEngine) writeModel(tb testing.TB, name, yaml string) string {
	tb.Helper()
	return writeFile(tb, filepath.Join(te.config, "proxymodels", name+ModelExt), yaml, 0o600)
}

func (te *testEngine) writeStage(tb testing.TB, name, script string) string {
	tb.Helper()
	return writeFile(tb, filepath.Join(te.config, "stages", name), script, 0o700)
}

func writeFile(tb testing.TB, path, text string, mode os.FileMode) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		tb.Fatal(err)
	}
	return path
}

func transform(tb testing.TB, e *Engine, model string, text string) Output {
	tb.Helper()
	out, err := e.Transform(context.Background(), Request{Model: model, Content: Content{Text: text, Type: TypeToolResult, Source: "srv/tool"}})
	if err != nil {
		tb.Fatalf("Transform(%s): %v", model, err)
	}
	return out
}

// checkDrillDown fails unless every section reads back exactly as its slice of text and the
// leaves, read in order, give text back.
func checkDrillDown(tb testing.TB, e *Engine, out Output, text string) {
	tb.Helper()
	if out.Ref == "" {
		tb.Fatal("no ref")
	}
	var all []Section
	var walk func([]Section)
	walk = func(ss []Section) {
		for _, s := range ss {
			all = append(all, s)
			walk(s.Children)
		}
	}
	walk(out.Sections)
	for _, s := range all {
		got, err := e.ReadSection(context.Background(), out.Ref, s.ID)
		if err != nil {
			tb.Fatalf("ReadSection(%s): %v", s.ID, err)
		}
		if got != text[s.Start:s.End] {
			tb.Fatalf("section %s reads %d bytes, want its %d-byte slice exactly", s.ID, len(got), s.Bytes())
		}
	}
	var b strings.Builder
	for _, l := range Leaves(out.Sections) {
		got, _ := e.ReadSection(context.Background(), out.Ref, l.ID)
		b.WriteString(got)
	}
	if b.String() != text {
		tb.Fatalf("the leaves read back give %d bytes, want the %d input bytes exactly", b.Len(), len(text))
	}
}

func TestSubindexOfA120KBArray(t *testing.T) {
	te := newTestEngine(t)
	text := jsonArray(t, 1400)
	if len(text) < 110_000 || len(text) > 130_000 {
		t.Fatalf("fixture is %d bytes, want about 120 KB", len(text))
	}
	out := transform(t, te.Engine, "subindex", text)
	t.Logf("%d bytes → %d bytes:\n%s", len(text), len(out.Text), out.Text)
	if len(out.Text) > 2048 || len(out.Text)*50 > len(text) {
		t.Errorf("top level is %d bytes, want ≤ 2048 and ≥ 50× smaller than %d", len(out.Text), len(text))
	}
	for _, s := range out.Sections {
		if !strings.Contains(out.Text, "- "+s.ID+" "+s.Title+" (") {
			t.Errorf("top level does not name section %s %q", s.ID, s.Title)
		}
		if len(s.Children) == 0 || s.Children[0].Kind != KindJSONElement {
			t.Errorf("section %s %q has no element children", s.ID, s.Title)
		}
	}
	if !strings.Contains(out.Text, out.Ref) {
		t.Error("the text does not name its ref")
	}
	checkDrillDown(t, te.Engine, out, text)
}

func TestSubindexEveryKindReadsBackExactly(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range contentKinds(t) {
		t.Run(tc.name, func(t *testing.T) {
			out := transform(t, te.Engine, "subindex", tc.text)
			if !out.Applied || len(out.Sections) < 2 {
				t.Fatalf("applied %v with %d sections", out.Applied, len(out.Sections))
			}
			if len(out.Text) >= len(tc.text) {
				t.Errorf("result is %d bytes, not smaller than the %d input bytes", len(out.Text), len(tc.text))
			}
			checkDrillDown(t, te.Engine, out, tc.text)
		})
	}
}

func TestReadSectionErrorsSayWhatToDo(t *testing.T) {
	te := newTestEngine(t)
	out := transform(t, te.Engine, "subindex", markdownDoc(t))
	_, err := te.ReadSection(context.Background(), strings.Repeat("ab", 16), "1")
	if !errors.Is(err, ErrUnknownRef) || !strings.Contains(err.Error(), "run the original call again") {
		t.Errorf("unknown ref: %v, want ErrUnknownRef saying to re-run the call", err)
	}
	_, err = te.ReadSection(context.Background(), out.Ref, "99.99")
	if !errors.Is(err, ErrUnknownSection) || !strings.Contains(err.Error(), "the sections are 1, 2, 3, 3.1") {
		t.Errorf("unknown id: %v, want ErrUnknownSection listing the ids", err)
	}
}

func TestModelAppliesByTypeAndSize(t *testing.T) {
	te := newTestEngine(t)
	te.writeModel(t, "tools", "appliesTo: [toolResult]\nminBytes: 100\nstages:\n  - type: section-split\n")
	for _, tc := range []struct {
		model string
		t     ContentType
		size  int
		want  bool
	}{
		{"subindex", TypeBriefing, 5000, true},
		{"subindex", TypeBriefing, 4000, false},
		{"default", TypePrompt, 40000, true},
		{"default", TypePrompt, 30000, false},
		{"tools", TypeToolResult, 100, true},
		{"tools", TypeResource, 1000, false},
		{"nosuch", TypeToolResult, 1000, false},
	} {
		if got := te.Applies(tc.model, tc.t, tc.size); got != tc.want {
			t.Errorf("Applies(%s, %s, %d) = %v, want %v", tc.model, tc.t, tc.size, got, tc.want)
		}
	}
	for model, want := range map[string]bool{"subindex": true, "default": true, "tools": true, "nosuch": false} {
		if got := te.MakesSections(model); got != want {
			t.Errorf("MakesSections(%s) = %v, want %v", model, got, want)
		}
	}
	out := transform(t, te.Engine, "subindex", "short")
	if out.Applied || out.Text != "short" || out.Ref != "" {
		t.Errorf("small content: applied %v, text %q, ref %q; want it untouched", out.Applied, out.Text, out.Ref)
	}
}
