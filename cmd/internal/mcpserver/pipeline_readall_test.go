package mcpserver

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/pipeline"
)

// readAll reads every leaf of out back as a model would, with read_section: a section's text,
// page by page, or, for one too large to return whole, its table page by page and then each
// sub-section listed. It returns the calls made and the text read, every answer checked
// against read_section's output schema and bound.
func readAll(tb testing.TB, e *pipeline.Engine, out pipeline.Output) (calls int, text string) {
	tb.Helper()
	var b strings.Builder
	var read func(id string)
	read = func(id string) {
		s, body, err := e.Section(tb.Context(), out.Ref, id)
		if err != nil {
			tb.Fatal(err)
		}
		for page, pages := 1, 1; page <= pages; page++ {
			res, err := readSection(out.Ref, s, body, page)
			if err != nil {
				tb.Fatal(err)
			}
			calls++
			checkSectionResult(tb, res)
			pages = res.Pages
			if res.Sections == nil {
				b.WriteString(res.Content)
				continue
			}
			for _, c := range res.Sections {
				read(c.ID)
			}
		}
	}
	for _, s := range out.Sections {
		read(s.ID)
	}
	return calls, b.String()
}

// A long JSON array reads back in about one read_section call per 30 KB: its ranges are sized
// to be read whole, nested when there are many. They were one level of 500 elements each, too
// large to read whole, so reading 689 KB took a call per element, 3,014 in all.
func TestLongJSONArrayReadsInFewCalls(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n  \"items\": [\n")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    {\n      \"id\": %d,\n      \"name\": \"item %d\",\n      \"tags\": [\n        \"a\",\n        \"b\"\n      ],\n      \"desc\": %q\n    }", i, i, strings.Repeat("x", 100))
	}
	b.WriteString("\n  ],\n  \"meta\": {\"count\": 3000}\n}\n")
	files := map[string]string{"3,000 elements": b.String()}
	// The reviewer's data, when it is on this machine, for the figures in the commit.
	for _, f := range []string{"/tmp/rv-pipe/files/big.json", "/tmp/rv-pipe/files/big-compact.json"} {
		if data, err := os.ReadFile(f); err == nil {
			files[f] = string(data)
		}
	}
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: t.TempDir(), NoLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for name, text := range files {
		for _, model := range []string{"subindex"} { // default pages by 8 KB, whatever the format
			out, err := e.Transform(t.Context(), pipeline.Request{Model: model, Content: pipeline.Content{Text: text, Type: pipeline.TypeToolResult}})
			if err != nil || out.Ref == "" {
				t.Fatalf("%s: %v, ref %q", name, err, out.Ref)
			}
			calls, got := readAll(t, e, out)
			t.Logf("%s under %s: %d bytes read back in %d read_section calls", name, model, len(text), calls)
			if got != text {
				t.Errorf("%s under %s: read back %d bytes, want the %d of the original", name, model, len(got), len(text))
			}
			if limit := len(text)/30_000 + 12; calls > limit {
				t.Errorf("%s under %s: %d calls to read %d bytes, want at most %d", name, model, calls, len(text), limit)
			}
		}
	}
}
