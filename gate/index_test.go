package gate

import (
	"errors"
	"fmt"
	"reflect"
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
		{"short", Entry{Name: "security-review", Summary: "Check inputs."}, "- security-review: Check inputs."},
		{"no summary", Entry{Name: "x"}, "- x"},
		{"cut at a word", Entry{Name: "n", Summary: long}, "- n: " + strings.TrimSpace(strings.Repeat("word ", 18)) + "…"},
		{"long name", Entry{Name: strings.Repeat("a", 95), Summary: "More"}, "- " + strings.Repeat("a", 95)},
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

func TestNewIndex(t *testing.T) {
	f := newFixture(t)
	secBody := "Check every input at the boundary. More.\n\n## Secrets\n\n## Logging\n"
	sec := f.prompt("Engineering / Backend", "Security Review", secBody)
	f.prompt("Engineering", "Common Mistakes", "Do not run migrations by hand.\n")
	f.prompt("Writing", "Release Notes", "Write release notes for users.\n")
	top := f.prompt("", "Scratch", "Top level.\n")
	f.prompt(SystemFolder, "Gate Encouragement", "Custom text.\n")
	f.prompt(SystemFolder+" / nested", "Gate Reminder", "Custom text.\n")

	t.Run("whole library without the system folder", func(t *testing.T) {
		ix := f.index(t, project(100, map[string]int{"release-notes": 9, "typo-name": 3}))
		var got []string
		for _, e := range ix.Entries() {
			got = append(got, fmt.Sprintf("%d %s", e.Priority, e.Name))
		}
		want := []string{"9 release-notes", "5 common-mistakes", "5 scratch", "5 security-review"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("entries %q, want %q", got, want)
		}
		e, ok := ix.Entry(sec)
		wantE := Entry{ID: sec, Name: "security-review", Title: "Security Review", Summary: "Check every input at the boundary.",
			Priority: 5, Chapters: []string{"Secrets", "Logging"}, FolderPath: "Engineering / Backend", Bytes: len(secBody), Content: secBody}
		if !ok || !reflect.DeepEqual(e, wantE) {
			t.Errorf("Entry(sec) = %+v, %v\nwant %+v", e, ok, wantE)
		}
		if got := ix.UnknownPriorities(); !reflect.DeepEqual(got, []string{"typo-name"}) {
			t.Errorf("UnknownPriorities() = %q, want [typo-name]", got)
		}
		if _, ok := ix.ByName("gate-encouragement"); ok {
			t.Error("a system prompt is in the index")
		}
		if e, ok := ix.Entry(top); !ok || e.FolderPath != "" {
			t.Errorf("top-level prompt: got %+v, %v", e, ok)
		}
	})
	t.Run("scoped to a folder subtree", func(t *testing.T) {
		p := project(100, nil)
		p.Folder = "Engineering"
		ix := f.index(t, p)
		var got []string
		for _, e := range ix.Entries() {
			got = append(got, e.Name)
		}
		if want := []string{"common-mistakes", "security-review"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("missing folder", func(t *testing.T) {
		p := project(100, nil)
		p.Folder = "Nowhere"
		if _, err := NewIndex(f.lib, p); !errors.Is(err, ErrNoFolder) {
			t.Errorf("got %v, want ErrNoFolder", err)
		}
	})
}

func TestIndexUpdate(t *testing.T) {
	f := newFixture(t)
	a := f.prompt("", "Alpha", "First version.\n## One\n")
	f.prompt("", "Beta", "Unchanged.\n")
	ix := f.index(t, NoProject())
	f.lib.Prompts[0].Content = "Second version.\n## Two\n"
	next, err := ix.Update(f.lib, NoProject())
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := next.Entry(a); e.Summary != "Second version." || !reflect.DeepEqual(e.Chapters, []string{"Two"}) {
		t.Errorf("updated entry: got %q %q, want the new summary and chapters", e.Summary, e.Chapters)
	}
	if e, _ := ix.Entry(a); e.Summary != "First version." {
		t.Errorf("old index changed: %q", e.Summary)
	}
	fresh := f.index(t, NoProject())
	if !reflect.DeepEqual(next.Entries(), fresh.Entries()) {
		t.Error("Update and NewIndex disagree")
	}
	for _, tags := range [][]string{{"version"}, {"two"}, {"one"}, {"beta"}} {
		a, b := Select(next, tags, 1000, 50, nil), Select(fresh, tags, 1000, 50, nil)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("tags %q: updated index selects %+v, a fresh one %+v", tags, a, b)
		}
	}
	var none *Index
	if cold, err := none.Update(f.lib, NoProject()); err != nil || !reflect.DeepEqual(cold.Entries(), fresh.Entries()) {
		t.Errorf("Update on a nil index: %v, or entries differ from NewIndex", err)
	}
}

// sixty makes n prompts "p01".. with priorities from prio(i).
func sixty(tb testing.TB, n int, prio func(i int) int) (*Index, Project) {
	f := newFixture(tb)
	p := project(DefaultByteBudget, nil)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("p%02d", i)
		f.prompt("", name, fmt.Sprintf("Prompt number %d.", i))
		p.Priorities[name] = prio(i)
	}
	return f.index(tb, p), p
}

func TestIndexLines(t *testing.T) {
	t.Run("at most the cap: every prompt", func(t *testing.T) {
		ix, _ := sixty(t, 50, func(i int) int { return 5 })
		lines := ix.Lines(50)
		if len(lines) != 50 || lines[0] != "- p01: Prompt number 1." {
			t.Errorf("got %d lines starting %q, want 50 from p01", len(lines), lines[0])
		}
	})
	t.Run("60 against a cap of 50: only priority 7 and up, highest first", func(t *testing.T) {
		ix, _ := sixty(t, 60, func(i int) int {
			switch {
			case i%10 == 0:
				return 9
			case i%3 == 0:
				return 7
			}
			return 5
		})
		lines := ix.Lines(50)
		var want []string
		for _, i := range []int{10, 20, 30, 40, 50, 60, 3, 6, 9, 12, 15, 18, 21, 24, 27, 33, 36, 39, 42, 45, 48, 51, 54, 57} {
			want = append(want, fmt.Sprintf("- p%02d: Prompt number %d.", i, i))
		}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("important prompts beyond the cap are still capped", func(t *testing.T) {
		ix, _ := sixty(t, 60, func(i int) int { return 8 })
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

func TestIndexSample(t *testing.T) {
	lib := promptlib.Sample(600, 7)
	ix, err := NewIndex(lib, NoProject())
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
		if len(e.Chapters) == 0 {
			t.Errorf("%s: no chapters", e.Name)
		}
	}
}
