package gate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestChapters(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"none", "Just text.\n", nil},
		{"levels", "# One\ntext\n## Two ##\n###### Six\n####### Seven\n", []string{"One", "Two", "Six"}},
		{"markup removed", "## **Bold** `code` and [a link](http://x)\n", []string{"Bold code and a link"}},
		{"not headings", "#hashtag\n    # indented code\n#\n", nil},
		{"fenced code skipped", "## In\n```sh\n# comment\n```\n## After\n~~~\n# also\n~~~\n", []string{"In", "After"}},
		{"closing hashes kept when glued", "## C#\n", []string{"C#"}},
		{"crlf", "## Windows\r\nbody\r\n", []string{"Windows"}},
		{"non-ascii", "## Données & Analyse\n", []string{"Données & Analyse"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Chapters(tt.body); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Chapters(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestEntryLine(t *testing.T) {
	long := strings.Repeat("word ", 40)
	tests := []struct {
		name string
		e    Entry
		want string
	}{
		{"short", Entry{Doc: &Doc{Name: "security-review", Summary: "Check inputs."}}, "- security-review: Check inputs."},
		{"no summary", Entry{Doc: &Doc{Name: "x"}}, "- x"},
		{"cut at a word", Entry{Doc: &Doc{Name: "n", Summary: long}}, "- n: " + strings.TrimSpace(strings.Repeat("word ", 18)) + "…"},
		{"long name", Entry{Doc: &Doc{Name: strings.Repeat("a", 95), Summary: "More"}}, "- " + strings.Repeat("a", 95)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.e.Line()
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > MaxIndexLine {
				t.Errorf("line has %d characters, want at most %d", n, MaxIndexLine)
			}
		})
	}
}

// NewIndex from cached Docs equals a fresh build: what the server's view relies on.
func TestNewIndexFromCachedDocs(t *testing.T) {
	lib := promptlib.Sample(300, 3)
	p := NoProject()
	fresh, _, err := LibraryIndex(lib, p)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Doc, 0, fresh.Len())
	for _, e := range fresh.Entries() {
		docs = append(docs, *e.Doc)
	}
	slices.Reverse(docs)
	again := NewIndex(docs, p)
	if !reflect.DeepEqual(again.Entries(), fresh.Entries()) {
		t.Error("NewIndex of the same Docs in another order gives other entries")
	}
	tags := []string{"error handling", "review", "go"}
	if a, b := Select(fresh, tags, 4000, 50, nil), Select(again, tags, 4000, 50, nil); !reflect.DeepEqual(names(a.Full), names(b.Full)) {
		t.Errorf("selections differ: %q vs %q", names(a.Full), names(b.Full))
	}
}

func TestIndexLines(t *testing.T) {
	t.Run("at most the cap: every prompt", func(t *testing.T) {
		ix, _ := sixty(t, 50, func(i int) int { return 5 })
		lines := ix.Lines(50)
		if len(lines) != 50 || lines[0] != "- p01: Prompt number 1." {
			t.Errorf("got %d lines starting %q, want 50 from p01", len(lines), lines[0])
		}
	})
	t.Run("over the cap: the cap's worth, highest priority first", func(t *testing.T) {
		ix, _ := sixty(t, 60, func(i int) int {
			switch {
			case i%10 == 0:
				return 9
			case i%3 == 0:
				return 7
			}
			return 5
		})
		lines := ix.Lines(10)
		var want []string
		for _, i := range []int{10, 20, 30, 40, 50, 60, 3, 6, 9, 12} {
			want = append(want, fmt.Sprintf("- p%02d: Prompt number %d.", i, i))
		}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("over the cap with nothing important still names the cap's worth", func(t *testing.T) {
		ix, _ := sixty(t, 60, func(i int) int { return 5 })
		if got := len(ix.Lines(50)); got != 50 {
			t.Errorf("got %d lines, want 50", got)
		}
	})
	t.Run("cap below 1", func(t *testing.T) {
		ix, _ := sixty(t, 3, func(i int) int { return 5 })
		if got := ix.Lines(0); len(got) != 0 {
			t.Errorf("got %q, want nothing", got)
		}
	})
}

func TestTopics(t *testing.T) {
	var specs []spec
	for i, h := range []string{"Rollback", "Rollback", "Indexes", "Indexes", "Rollbacks", "Tokens"} {
		specs = append(specs, spec{fmt.Sprintf("Note %d", i), 5, "Text.\n\n## " + h + "\n\n## Overview\n"})
	}
	ix := buildIndex(t, 1000, specs...)
	// In the most common spelling ("Rollbacks" counts for rollback); filler headings
	// ("Overview") and words in more than half the prompts ("note") are left out. A small
	// index keeps words of one prompt ("tokens"); a larger one only words shared by two.
	if got, want := ix.Topics(), []string{"indexes", "rollback", "tokens"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Topics() = %q, want %q", got, want)
	}
}

func TestIndexSample(t *testing.T) {
	lib := promptlib.Sample(600, 7)
	ix, _, err := LibraryIndex(lib, NoProject())
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(lib.Prompts) {
		t.Errorf("got %d entries, want %d", ix.Len(), len(lib.Prompts))
	}
	seen := map[string]bool{}
	for _, e := range ix.Entries() {
		if seen[e.Name] {
			t.Errorf("name %q given twice", e.Name)
		}
		seen[e.Name] = true
		if utf8.RuneCountInString(e.Line()) > MaxIndexLine {
			t.Errorf("line too long: %q", e.Line())
		}
	}
}
