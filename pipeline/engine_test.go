package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
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
	// The sections beside the one asked for: its parent's parts, else the top level.
	for id, want := range map[string]string{
		"99.99": "the top-level sections are 1 to 8",
		"3.9":   "section 3 has parts 3.1 to 3.4",
		"3.2.7": "section 3.2 has no parts: read it whole with section \"3.2\"",
	} {
		_, err = te.ReadSection(context.Background(), out.Ref, id)
		if !errors.Is(err, ErrUnknownSection) || !strings.Contains(err.Error(), want) {
			t.Errorf("unknown id %s: %v, want ErrUnknownSection saying %q", id, err, want)
		}
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

// The sections in _meta stay about the size of the index: a 20,000-element array's tree is
// over 20,000 sections, and the meta carries its ranges as deep as they fit, with how many
// parts each left-out level has.
func TestMetaOfA20000ElementArrayIsBounded(t *testing.T) {
	te := newTestEngine(t)
	text := jsonArray(t, 20_000)
	out := transform(t, te.Engine, "subindex", text)
	meta := out.Meta()
	data, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("index %d bytes, _meta %d bytes, %d sections omitted", len(out.Text), len(data), meta.Omitted)
	if len(data) > 20_000 {
		t.Errorf("_meta mcpctl/sections is %d bytes for a %d-byte index, want at most 20 KB", len(data), len(out.Text))
	}
	if countInfos(meta.Sections) > MaxMetaSections {
		t.Errorf("_meta carries %d sections, want at most %d", countInfos(meta.Sections), MaxMetaSections)
	}
	shown := 0
	for i, s := range meta.Sections {
		want := out.Sections[i]
		if s.ID != want.ID || s.Bytes != want.Bytes() || len(s.Children)+s.Parts != len(want.Children) || (len(s.Children) > 0) == (s.Parts > 0) {
			t.Errorf("meta section %s: %d bytes, %d children, parts %d; want %s, %d bytes, its %d sub-sections shown or counted in parts",
				s.ID, s.Bytes, len(s.Children), s.Parts, want.ID, want.Bytes(), len(want.Children))
		}
	}
	shown = countInfos(meta.Sections)
	if all := countAll(out.Sections); meta.Omitted != all-shown || meta.Omitted == 0 {
		t.Errorf("omitted %d, want the %d sections left out of %d", meta.Omitted, all-shown, all)
	}
}

// A tree that fits is carried whole, with nothing marked as omitted; a top level past the bound
// is cut and says so.
func TestInfosWithin(t *testing.T) {
	leaf := func(id string) Section { return Section{ID: id, Title: "t" + id, End: 10} }
	tree := []Section{
		{ID: "1", End: 20, Children: []Section{leaf("1.1"), {ID: "1.2", End: 10, Children: []Section{leaf("1.2.1"), leaf("1.2.2")}}}},
		leaf("2"),
	}
	for _, tc := range []struct {
		n, top, omitted int
		depth           int
	}{
		{n: 100, top: 2, omitted: 0, depth: 3},
		{n: 4, top: 2, omitted: 2, depth: 2},
		{n: 3, top: 2, omitted: 4, depth: 1},
		{n: 1, top: 1, omitted: 5, depth: 1},
	} {
		infos, omitted := InfosWithin(tree, tc.n)
		var depthOf func([]SectionInfo) int
		depthOf = func(ss []SectionInfo) int {
			d := 0
			for _, s := range ss {
				d = max(d, 1+depthOf(s.Children))
			}
			return d
		}
		depth := depthOf(infos)
		if len(infos) != tc.top || omitted != tc.omitted || depth != tc.depth {
			t.Errorf("InfosWithin(n=%d): %d top-level, %d omitted, depth %d; want %d, %d, %d", tc.n, len(infos), omitted, depth, tc.top, tc.omitted, tc.depth)
		}
		if tc.depth == 1 && infos[0].Parts != 2 {
			t.Errorf("InfosWithin(n=%d): section 1 has parts %d, want 2", tc.n, infos[0].Parts)
		}
	}
}

// countInfos counts the sections of a program-form tree.
func countInfos(ss []SectionInfo) int {
	n := len(ss)
	for _, s := range ss {
		n += countInfos(s.Children)
	}
	return n
}

// A caller keys what it keeps of a transform (serve's view keeps briefings' table sizes) with
// ConfigKey: a new version of the built-in stages, which split content differently, must change
// it as an edited proxymodel does, or the old sizes are served after an upgrade.
func TestConfigKeyChangesWithTheBuiltinStages(t *testing.T) {
	te := newTestEngine(t)
	before := te.ConfigKey()
	old := builtinVersion
	builtinVersion += "-next"
	t.Cleanup(func() { builtinVersion = old })
	if te.ConfigKey() == before {
		t.Errorf("ConfigKey is %s under built-in stages %q and %q; want it to change with them", before, old, builtinVersion)
	}
}
