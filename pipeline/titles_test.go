package pipeline

import (
	"strings"
	"testing"
)

// The parts of one long line are told apart by their byte ranges: every one was "lines 1–1".
func TestPartsOfOneLineHaveDistinctTitles(t *testing.T) {
	te := newTestEngine(t)
	text := strings.Repeat("word ", 100_000) // 500 KB, no newline
	out := transform(t, te.Engine, "subindex", text)
	if len(out.Sections) < 2 {
		t.Fatalf("%d sections, want the line cut into several", len(out.Sections))
	}
	seen := map[string]bool{}
	for _, s := range out.Sections {
		if seen[s.Title] || !strings.HasPrefix(s.Title, "line 1, bytes ") {
			t.Errorf("section %s titled %q; want each part of line 1 named by its own byte range", s.ID, s.Title)
		}
		seen[s.Title] = true
	}
	checkDrillDown(t, te.Engine, out, text)
}

// The footer says "only part" when the text above is part of the content, and says that all
// of it is shown when it is (a model of section-split alone): a model re-read what it had.
func TestFooterSaysWhetherAllIsShown(t *testing.T) {
	te := newTestEngine(t)
	te.writeModel(t, "splitonly", "minBytes: 0\nstages:\n  - type: section-split\n")
	one := "# One\n\n" + strings.Repeat("text of the part. ", 200) + "\n"
	for _, c := range []struct {
		model, text, want string
	}{
		{"splitonly", markdownDoc(t), "All of the content is shown above; its "},
		{"default", strings.Repeat("a line of a long log\n", 3000), "Only part of the content is shown above; its "},
	} {
		out := transform(t, te.Engine, c.model, c.text)
		if !strings.Contains(out.Text, c.want) {
			t.Errorf("%s: footer %q; want %q", c.model, out.Text[max(0, strings.LastIndex(out.Text, "\n---\n")):], c.want)
		}
	}
	if f := footer(one, testRefString, []Section{{ID: "1", Title: "# One", End: len(one)}}, false, true); !strings.Contains(f, "its one section:") {
		t.Errorf("one section: %q", f)
	}
}

const testRefString = "0123456789abcdef0123456789abcdef"
