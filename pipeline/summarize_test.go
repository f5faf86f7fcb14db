package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

func TestSummarizeTreeWithoutLLM(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		name string
		text string
		want []string
	}{
		{"json array: counts, keys with types, a sample", jsonArray(t, 2000), []string{
			"JSON array of 2000 elements",
			"- 1 [0–",
			" objects {id:number, name:string, enabled:boolean, tags:array, owner:string}; e.g. name=\"flow-0\"",
		}},
		{"nested json: members with their kinds", nestedJSON(t), []string{
			`- 1 "service" (23 B): string "billing"`,
			`"regions" (12.8 KB): object {region-0:object, region-1:object`,
		}},
		{"markdown: heading and first sentence", markdownDoc(t), []string{
			"Markdown, 14.6 KB",
			"## Part 1 (2.4 KB, 4 parts): Part 1 starts here.",
		}},
		{"prose: first sentence", proseDoc(t), []string{"paragraphs 1–6 (2.2 KB): Paragraph 0 begins with a sentence."}},
		{"yaml: keys and values", yamlDoc(t), []string{"- 1 name: (36 B): billing", "env: (8.8 KB): 200 entries"}},
		// Ranges of a log's lines start as their first line does: its timestamp says where to
		// drill for a time.
		{"log: ranges by their first line", logLines(200_000), []string{
			"Text, 200.0 KB, in ",
			"- 1 lines 1–",
			" parts): 2026-11-25T10:00:00Z INFO request 0 served in 0 ms …\n- 2 lines ",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := transform(t, te.Engine, "subindex", tc.text)
			for _, w := range tc.want {
				if !strings.Contains(out.Text, w) {
					t.Errorf("the table lacks %q:\n%s", w, out.Text)
				}
			}
		})
	}
	// The table grows as deep as budgetBytes allows.
	te.writeModel(t, "deep", "minBytes: 1\nstages:\n  - type: section-split\n  - type: summarize-tree\n    config: {budgetBytes: 20000}\n")
	shallow := transform(t, te.Engine, "subindex", markdownDoc(t))
	deep := transform(t, te.Engine, "deep", markdownDoc(t))
	if !strings.Contains(deep.Text, "### Step 1.1") || strings.Contains(shallow.Text, "### Step 1.1") || len(deep.Text) > 20000+500 {
		t.Errorf("budgetBytes 20000 gave %d bytes (steps listed %v), the default %d bytes (steps listed %v); want the steps only in the deeper table",
			len(deep.Text), strings.Contains(deep.Text, "### Step 1.1"), len(shallow.Text), strings.Contains(shallow.Text, "### Step 1.1"))
	}
}

// logLines is a log of about n bytes, one request a line.
func logLines(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "2026-11-25T%02d:%02d:%02dZ INFO request %d served in %d ms\n", 10+i/3600, i/60%60, i%60, i, i%97)
	}
	return b.String()
}
