package promptlib

import (
	"slices"
	"testing"
)

// headingLines is the titles of t's headings, in order.
func headingLines(t string) []string {
	var out []string
	Headings(t, func(h Heading) bool {
		out = append(out, h.Line)
		return true
	})
	return out
}

func TestHeadings(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"atx", "# One\n\ntext\n\n## Two\n", []string{"# One", "## Two"}},
		{"setext", "Version 1.2 (2015)\n==================\n\nNotes.\n\nLanguage\n--------\n\n* item\n", []string{"# Version 1.2 (2015)", "## Language"}},
		{"setext over two lines", "A title that\nruns on\n===\n", []string{"# A title that runs on"}},
		{"a rule is not an underline", "text\n\n---\n\nmore\n", nil},
		{"nor after a list item or a quote", "- item\n---\n> quote\n---\n", nil},
		{"front matter", "---\ntitle: Guide\ntags: [a]\n---\n\n# Guide\n", []string{"# Guide"}},
		{"a nested fence is content", "````md\n```sh\n# not a heading\n```\nnot a heading\n---\n````\n\n## After\n", []string{"## After"}},
		{"a fence closes only on a plain run as long", "```go\nx\n```go\n# not a heading\n~~~\n# nor this\n```\n# Heading\n", []string{"# Heading"}},
		{"tildes", "~~~~\n# no\n~~~\n# no\n~~~~\nTitle\n=====\n", []string{"# Title"}},
		{"inline code is no fence", "```x``` is code\n# Yes\n", []string{"# Yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := headingLines(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("headings %q, want %q", got, tc.want)
			}
		})
	}
}
