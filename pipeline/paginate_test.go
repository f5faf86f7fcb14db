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
	text := strings.Repeat("one line of a long log, nothing to split it by but its words\n", 200_000)
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
