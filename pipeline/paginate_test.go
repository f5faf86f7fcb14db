package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPaginate(t *testing.T) {
	env := Env{Log: slog.New(slog.DiscardHandler)}
	for _, tc := range []struct {
		name string
		text string
		size int
	}{
		{"markdown", strings.Repeat(markdownDoc(t), 3), 8000},
		{"one long line of multi-byte text", strings.Repeat("日本語👍🏽", 5000), 1000},
		{"minified json", strings.ReplaceAll(jsonArray(t, 500), "\n", ""), 4000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.Original, env.Config = tc.text, map[string]any{"pageBytes": tc.size}
			r, err := paginate(context.Background(), Content{Text: tc.text}, env)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Sections) < 2 || r.Text != tc.text[:r.Sections[0].End] {
				t.Fatalf("%d pages, text is the first page: %v", len(r.Sections), r.Text == tc.text[:r.Sections[0].End])
			}
			checkTiling(t, tc.text, r.Sections)
			for _, p := range r.Sections {
				if p.Bytes() > tc.size {
					t.Errorf("%s is %d bytes, over pageBytes %d", p.Title, p.Bytes(), tc.size)
				}
				if !utf8.ValidString(p.Text(tc.text)) {
					t.Errorf("%s cuts a UTF-8 sequence", p.Title)
				}
			}
			if tc.name == "markdown" {
				for _, p := range r.Sections[1:] {
					if !strings.HasPrefix(p.Text(tc.text), "#") {
						t.Errorf("%s starts %q, want a page cut before a heading", p.Title, clip(p.Text(tc.text), 20))
					}
					if !strings.Contains(p.Title, ": ") {
						t.Errorf("page titled %q, want its first heading in the title", p.Title)
					}
				}
			}
		})
	}
	env.Config = map[string]any{}
	if r, _ := paginate(context.Background(), Content{Text: "short"}, env); r.Text != "short" || r.Sections != nil {
		t.Errorf("one page of content: %q with %d sections, want it passed through", r.Text, len(r.Sections))
	}
}

func TestDefaultModelSendsTheFirstPageAndListsTheRest(t *testing.T) {
	te := newTestEngine(t)
	text := strings.Repeat(markdownDoc(t), 3)
	out, err := te.Transform(t.Context(), Request{Model: "default", Content: Content{Text: text, Type: TypePrompt, Source: "big-guide"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Text, text[:out.Sections[0].End]) || len(out.Text) > 9000 {
		t.Errorf("text is %d bytes; want the first page and the footer", len(out.Text))
	}
	for _, p := range out.Sections {
		if !strings.Contains(out.Text, "- "+p.ID+" "+p.Title) {
			t.Errorf("the footer does not list page %s %q", p.ID, p.Title)
		}
	}
	checkDrillDown(t, te.Engine, out, text)
}

// The footer of content with thousands of pages lists the first MaxFooterSections and names the
// rest by their first and last id; it listed every page, 1,500 lines for 12 MB.
func TestFooterOfThousandsOfPagesIsBounded(t *testing.T) {
	te := newTestEngine(t)
	var b strings.Builder
	for i := 0; b.Len() < 12<<20; i++ {
		fmt.Fprintf(&b, "# Part %d\n\n%s", i, strings.Repeat("one line of a long guide, under a heading on every page\n", 120))
	}
	text := b.String()
	out := transform(t, te.Engine, "default", text)
	if len(out.Sections) < 1000 {
		t.Fatalf("%d pages; the test wants thousands", len(out.Sections))
	}
	last := out.Sections[len(out.Sections)-1]
	more := fmt.Sprintf("- … %d more, %s to %s (", len(out.Sections)-MaxFooterSections, out.Sections[MaxFooterSections].ID, last.ID)
	if !strings.Contains(out.Text, more) || strings.Contains(out.Text, "- "+last.ID+" ") || len(out.Text) > 16_000 {
		t.Errorf("the result is %d bytes; want the first page and %d listed pages, then %q…", len(out.Text), MaxFooterSections, more)
	}
	if got, err := te.ReadSection(t.Context(), out.Ref, last.ID); err != nil || got != text[last.Start:last.End] {
		t.Errorf("the last page, unlisted, reads back %d bytes, %v", len(got), err)
	}
}

// Pages without a heading are titled by their number alone: the footer gives a run of them one
// line, not one line each that says nothing new (3 KB of "page 57 of 199" for a 1.6 MB log).
func TestFooterNamesPlainPagesInOneLine(t *testing.T) {
	te := newTestEngine(t)
	text := strings.Repeat("one line of a long log, nothing to split it by but its words\n", 20_000)
	out := transform(t, te.Engine, "default", text)
	n := len(out.Sections)
	if n < 100 {
		t.Fatalf("%d pages; the test wants a hundred or more", n)
	}
	line := fmt.Sprintf("\n- 1 to %d: %d pages without a heading (%s, at most 8.0 KB each)\n", n, n, HumanBytes(len(text)))
	if !strings.Contains(out.Text, line) || strings.Contains(out.Text, "\n- 2 ") {
		t.Errorf("the footer is\n%s\nwant the pages in the one line %q", out.Text[out.Sections[0].End:], line)
	}
	if len(out.Text) > out.Sections[0].End+400 {
		t.Errorf("the footer is %d bytes", len(out.Text)-out.Sections[0].End)
	}
	checkDrillDown(t, te.Engine, out, text)
}

// A page is titled by a heading of the document, not by a line that reads as one only out of
// context: a "# comment" in fenced code that a page boundary cut.
func TestPageTitlesAreTheDocumentsHeadings(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Setup\n\n```sh\n")
	for i := range 400 {
		fmt.Fprintf(&b, "# step %d: install the tools\nmake tools-%d\n", i, i)
	}
	b.WriteString("```\n\n## Running it\n\nRun it.\n")
	text := b.String()
	env := Env{Log: slog.New(slog.DiscardHandler), Original: text, Config: map[string]any{"pageBytes": 4000}}
	r, err := paginate(context.Background(), Content{Text: text}, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sections) < 3 {
		t.Fatalf("%d pages, want the fence cut across several", len(r.Sections))
	}
	checkTiling(t, text, r.Sections)
	for i, p := range r.Sections {
		switch {
		case strings.Contains(p.Title, "step"):
			t.Errorf("page %d is titled %q, by a comment in fenced code", i+1, p.Title)
		case i == 0 && !strings.HasSuffix(p.Title, ": Setup"):
			t.Errorf("the first page is titled %q, want its heading Setup", p.Title)
		case i == len(r.Sections)-1 && !strings.HasSuffix(p.Title, ": Running it"):
			t.Errorf("the last page is titled %q, want its heading Running it", p.Title)
		}
	}
}
