package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkTiling fails unless the tree tiles text exactly: leaves in order give text back, every
// parent is the concatenation of its children, no section is empty and no boundary cuts a
// UTF-8 sequence.
func checkTiling(tb testing.TB, text string, sections []Section) {
	tb.Helper()
	var b strings.Builder
	for _, l := range Leaves(sections) {
		b.WriteString(l.Text(text))
	}
	if got := b.String(); got != text {
		tb.Fatalf("leaves give %d bytes, want the %d bytes of the input back exactly", len(got), len(text))
	}
	var walk func(ss []Section, lo, hi int)
	walk = func(ss []Section, lo, hi int) {
		pos := lo
		for _, s := range ss {
			if s.Start != pos || s.End <= s.Start {
				tb.Fatalf("section %q covers [%d,%d), want it to start at %d and be non-empty", s.Title, s.Start, s.End, pos)
			}
			if s.Start < len(text) && utf8.ValidString(text) && !utf8.RuneStart(text[s.Start]) {
				tb.Fatalf("section %q starts inside a UTF-8 sequence at %d", s.Title, s.Start)
			}
			if len(s.Children) > 0 {
				walk(s.Children, s.Start, s.End)
			}
			pos = s.End
		}
		if len(ss) > 0 && pos != hi {
			tb.Fatalf("sections end at %d, want %d", pos, hi)
		}
	}
	walk(sections, 0, len(text))
}

func TestSectionSplitEveryKind(t *testing.T) {
	for _, tc := range contentKinds(t) {
		t.Run(tc.name, func(t *testing.T) {
			if got := Detect(tc.text); got != tc.want {
				t.Fatalf("Detect = %q, want %q", got, tc.want)
			}
			f, sections := newSplitter(nil).split(context.Background(), tc.text)
			if f != tc.want {
				t.Errorf("split format = %q, want %q", f, tc.want)
			}
			if len(sections) < 2 {
				t.Fatalf("got %d top-level sections, want the structure split", len(sections))
			}
			checkTiling(t, tc.text, sections)
			assignIDs(sections, "")
			for _, id := range ids(sections) {
				s, ok := Find(sections, id)
				if !ok || s.ID != id {
					t.Fatalf("Find(%q) = %v, %v", id, s.ID, ok)
				}
			}
		})
	}
}

func TestSectionSplitStructure(t *testing.T) {
	ctx := context.Background()
	t.Run("long array grouped into ranges of elements", func(t *testing.T) {
		text := jsonArray(t, 2000)
		_, sections := newSplitter(nil).split(ctx, text)
		if len(sections) > defaultMaxSections {
			t.Fatalf("got %d top-level sections, want at most %d ranges", len(sections), defaultMaxSections)
		}
		// Ranges are sized by bytes, to be read whole by read_section, each element a child.
		for _, s := range sections {
			if s.Bytes() > rangeBytes+64 || len(s.Children) < 2 || s.Children[0].Kind != KindJSONElement {
				t.Errorf("range %q: %d bytes, %d children; want at most %d bytes of elements", s.Title, s.Bytes(), len(s.Children), rangeBytes)
			}
		}
		if got := sections[0].Title; !strings.HasPrefix(got, "[0–") {
			t.Errorf("first range titled %q, want [0–…]", got)
		}
		el := sections[0].Children[5]
		if !strings.Contains(el.Text(text), `"name": "flow-5"`) || !strings.HasPrefix(el.Title, "[5] name=") {
			t.Errorf("element 5 is %q titled %q", el.Text(text), el.Title)
		}
	})
	t.Run("markdown nests headings and ignores fenced #", func(t *testing.T) {
		text := markdownDoc(t)
		_, sections := newSplitter(nil).split(ctx, text)
		// The one title heading's parts are the top level.
		if len(sections) != 8 || sections[0].Kind != KindIntro || sections[1].Title != "# Guide (intro)" {
			t.Fatalf("top level has %d sections, %q, %q; want the text before the heading, # Guide's intro, then its 6 parts", len(sections), sections[0].Title, sections[1].Title)
		}
		parts := sections[1:]
		if parts[1].Title != "## Part 1" || len(parts[1].Children) != 4 {
			t.Fatalf("%q has %d children, want an intro and 3 steps", parts[1].Title, len(parts[1].Children))
		}
		for _, l := range Leaves(sections) {
			if strings.Contains(l.Title, "not a heading") {
				t.Errorf("a # line inside a code fence became section %q", l.Title)
			}
		}
	})
	t.Run("go declarations with their doc comments", func(t *testing.T) {
		text := goSource(t)
		_, sections := newSplitter(nil).split(ctx, text)
		leaves := Leaves(sections)
		if leaves[0].Title != "(preamble)" {
			t.Errorf("first section %q, want the preamble", leaves[0].Title)
		}
		if len(sections) > defaultMaxSections {
			t.Errorf("%d top-level sections, want 61 declarations grouped into at most %d", len(sections), defaultMaxSections)
		}
		if got := leaves[1].Text(text); !strings.HasPrefix(got, "// F0 says hello.\nfunc F0") {
			t.Errorf("F0's section starts %q, want its doc comment then the func", clip(got, 40))
		}
	})
}

// Long flat content (a log, a YAML list, one huge part under a heading) is grouped by bytes as
// JSON is: no table lists more than maxSections, and a range of parts fits read_section whole.
// Grouped by count, a 1.6 MB log was eight ranges of fifty 4 KB parts, each range too large to
// read whole: 408 calls to read it all.
func TestLongFlatContentGroupedBySize(t *testing.T) {
	var log, list strings.Builder
	for i := 0; log.Len() < 1600<<10; i++ {
		fmt.Fprintf(&log, "2026-11-25T10:%02d:%02dZ INFO req=%d path=/api/v1/items/%d status=200\n", i/60%60, i%60, i, i%997)
	}
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&list, "- name: item-%d\n  note: the item's note, a few words long, and then some more words to make it longer\n", i)
	}
	tests := []struct {
		name   string
		text   string
		format Format
	}{
		{"1.6 MB log", log.String(), FormatText},
		{"100 KB log", log.String()[:100<<10], FormatText},
		{"YAML list of 3,000 items", list.String(), FormatYAML},
		{"one heading over 1 MB of lines", "# Dump\n\n" + log.String()[:1<<20], FormatMarkdown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, sections := newSplitter(nil).split(context.Background(), tt.text)
			if f != tt.format {
				t.Fatalf("format %s, want %s", f, tt.format)
			}
			checkTiling(t, tt.text, sections)
			// A table lists at most maxSections, except a range read whole: its parts are
			// there to drill into, never listed.
			var walk func(title string, ss []Section, whole bool)
			walk = func(title string, ss []Section, whole bool) {
				if len(ss) > defaultMaxSections && !whole {
					t.Errorf("%s lists %d sections, want at most %d", title, len(ss), defaultMaxSections)
				}
				for _, s := range ss {
					leaves := len(Leaves(s.Children)) == len(s.Children)
					if len(s.Children) > 0 && leaves && s.Kind == KindRange && s.Bytes() > rangeBytes {
						t.Errorf("range %q of %d parts is %d bytes, want at most %d to be read whole", s.Title, len(s.Children), s.Bytes(), rangeBytes)
					}
					walk(strconv.Quote(s.Title), s.Children, s.Kind == KindRange && leaves && s.Bytes() <= rangeBytes)
				}
			}
			walk("the top level", sections, false)
		})
	}
}

func TestSectionSplitSmallAndEdgeInput(t *testing.T) {
	for _, text := range []string{"", "x", "{}", "[]", "[1]", `"a string"`, "# only a heading\n", "\xff\xfe garbage \x00", strings.Repeat("é", 20000), strings.Repeat("a", 50000)} {
		_, sections := newSplitter(nil).split(context.Background(), text)
		if len(sections) > 0 {
			checkTiling(t, text, sections)
		}
	}
}

func FuzzSectionSplitTiles(f *testing.F) {
	for _, tc := range contentKinds(f) {
		f.Add(tc.text[:min(len(tc.text), 3000)], 100)
	}
	f.Add(`[{"a":1},{"b":[1,2,{"c":"d"}]}]`, 64)
	f.Add("a:\n  - b\n  - c: d\n", 64)
	f.Add("/a/b.md:\n# x\n\ntext\n\n---\n/a/c.json:\n[1, {\"k\": 2}]\n\n---\n/a/d.txt: Error - gone", 64)
	f.Add("Found 2 rows.\n\n[{\"a\": 1}, {\"a\": 2}]", 64)
	f.Fuzz(func(t *testing.T, text string, maxBytes int) {
		sp := newSplitter(map[string]any{"maxBytes": maxBytes % 5000, "maxSections": 3})
		_, sections := sp.split(context.Background(), text)
		if len(sections) > 0 {
			checkTiling(t, text, sections)
		}
	})
}

// manyHeadings is a markdown handbook under one title: n "##" sections, the eighth with 20
// "###" subsections.
func manyHeadings(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("# Handbook\n\nHow the team works.\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## Topic %d\n\nTopic %d says what to do. %s\n\n", i, i, strings.Repeat("Keep it short — ça va. ", 4))
		if i == 8 {
			for j := 1; j <= 20; j++ {
				fmt.Fprintf(&b, "### Detail %d.%d\n\nA detail.\n\n", i, j)
			}
		}
	}
	return b.String()
}

// TestMarkdownSiblingsGroupedIntoRanges: maxSections holds for markdown headings, at every
// level, as it does for JSON and code: more siblings than that become ranges titled by their
// first and last headings, and every heading is still a section of its own below them.
func TestMarkdownSiblingsGroupedIntoRanges(t *testing.T) {
	text := manyHeadings(t, 40)
	f, sections := newSplitter(map[string]any{"maxSections": 12}).split(context.Background(), text)
	if f != FormatMarkdown {
		t.Fatalf("format %q, want markdown", f)
	}
	checkTiling(t, text, sections)
	if len(sections) > 12 {
		t.Fatalf("%d top-level sections, want the title's intro and 40 headings grouped into at most 12", len(sections))
	}
	// 41 siblings in ranges of a round size: 8 ranges of 5, and the last heading by itself.
	if got, want := sections[0].Title, "# Handbook (intro) … ## Topic 4"; got != want || sections[0].Kind != KindRange || len(sections[0].Children) != 5 {
		t.Errorf("first section %q (%s, %d children), want range %q of 5", got, sections[0].Kind, len(sections[0].Children), want)
	}
	if last := sections[len(sections)-1]; last.Title != "## Topic 40" || last.Kind != KindHeading {
		t.Errorf("last section %q (%s), want the lone heading ## Topic 40 itself, not a range of one", last.Title, last.Kind)
	}
	var headings []string
	var walk func(ss []Section, depth int)
	walk = func(ss []Section, depth int) {
		if len(ss) > 12 {
			t.Errorf("%d siblings at depth %d (first %q), want at most 12", len(ss), depth, ss[0].Title)
		}
		for _, s := range ss {
			if s.Kind == KindHeading {
				headings = append(headings, s.Title)
			}
			walk(s.Children, depth+1)
		}
	}
	walk(sections, 1)
	var want []string
	for i := 1; i <= 40; i++ {
		want = append(want, "## Topic "+strconv.Itoa(i))
		if i == 8 {
			for j := 1; j <= 20; j++ {
				want = append(want, "### Detail 8."+strconv.Itoa(j))
			}
		}
	}
	if strings.Join(headings, "|") != strings.Join(want, "|") {
		t.Errorf("headings in the tree:\n%q\nwant every heading once, in order:\n%q", headings, want)
	}
}

// TestMarkdownTableFitsTheStarterBudget is the proxymodel `mcpctl create proxymodel` writes
// (maxSections 12, budgetBytes 1500) on a 40-section markdown file: the table fits the budget
// and every section reads back exactly.
func TestMarkdownTableFitsTheStarterBudget(t *testing.T) {
	te := newTestEngine(t)
	te.writeModel(t, "starter", ModelStarter("starter"))
	text := manyHeadings(t, 40)
	out := transform(t, te.Engine, "starter", text)
	if !out.Applied {
		t.Fatalf("the starter model did not apply to %d bytes", len(text))
	}
	if len(out.Text) > 1500 {
		t.Errorf("table of %d bytes, want at most budgetBytes 1500:\n%s", len(out.Text), out.Text)
	}
	checkDrillDown(t, te.Engine, out, text)
}

// A changelog in setext headings (Rust's RELEASES.md) is split at them, and its sections are
// summarized by their first sentence, not their underline.
func TestSetextMarkdownSplitAndSummarized(t *testing.T) {
	var b strings.Builder
	for v := 30; v > 20; v-- {
		b.WriteString("Version 1." + strconv.Itoa(v) + ".0 (2024-01-01)\n==========================\n\n")
		b.WriteString("<!-- release notes -->\n\nLanguage\n--------\n- Stabilise the thing number " + strconv.Itoa(v) + ".\n" + strings.Repeat("- Another change that matters to someone.\n", 40) + "\n")
		b.WriteString("Libraries\n---------\n" + strings.Repeat("- A library change.\n", 40) + "\n")
	}
	text := b.String()
	if got := Detect(text); got != FormatMarkdown {
		t.Fatalf("Detect = %q, want markdown", got)
	}
	_, sections := newSplitter(nil).split(context.Background(), text)
	checkTiling(t, text, sections)
	if len(sections) != 10 || sections[0].Title != "# Version 1.30.0 (2024-01-01)" || len(sections[0].Children) != 3 || sections[0].Children[1].Title != "## Language" {
		var titles []string
		for _, s := range sections {
			titles = append(titles, s.Title)
		}
		t.Fatalf("top level %q; want the 10 versions, each an intro, Language and Libraries", titles)
	}
	out := transform(t, newTestEngine(t).Engine, "subindex", text)
	for _, w := range []string{"- 1 # Version 1.30.0 (2024-01-01) (", "Stabilise the thing number 30."} {
		if !strings.Contains(out.Text, w) {
			t.Errorf("the table lacks %q:\n%s", w, out.Text)
		}
	}
	if strings.Contains(out.Text, "<!--") || strings.Contains(out.Text, ": ---") || strings.Contains(out.Text, ": ===") {
		t.Errorf("a summary is a comment or an underline:\n%s", out.Text)
	}
}
