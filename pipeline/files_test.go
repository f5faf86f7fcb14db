package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// readMultipleFiles is what server-filesystem's read_multiple_files answers for files (path and
// content; content "" for a file it could not read): each "PATH:\nCONTENT\n", or "PATH: Error -
// MESSAGE", joined by "\n---\n".
func readMultipleFiles(files [][2]string) string {
	parts := make([]string, len(files))
	for i, f := range files {
		if f[1] == "" {
			parts[i] = f[0] + ": Error - ENOENT: no such file or directory, open '" + f[0] + "'"
		} else {
			parts[i] = f[0] + ":\n" + f[1] + "\n"
		}
	}
	return strings.Join(parts, "\n---\n")
}

// severalFiles is a markdown guide with rules ("---") in it, a note, a file that was not there,
// a JSON file and a Go file, as read_multiple_files gives them.
func severalFiles(tb testing.TB) ([][2]string, string) {
	tb.Helper()
	var md strings.Builder
	md.WriteString("# Guide\n\nHow it works.\n\n---\n\nNote: rules are not files.\n\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&md, "## Part %d\n\n%s\n\n---\n\n", i, strings.Repeat("Words about the part, at some length. ", 40))
	}
	files := [][2]string{
		{"/repo/docs/guide.md", md.String()},
		{"/repo/NOTES.txt", "remember the milk\n"},
		{"/repo/missing.txt", ""},
		{"/repo/data/flows.json", jsonArray(tb, 120)},
		{"/repo/main.go", goSource(tb)},
	}
	return files, readMultipleFiles(files)
}

// Several files in one text are split at their boundaries, each titled by its path and split
// by its own format: the sections ran from one file into the next, titled by whatever heading
// or line they started at.
func TestSeveralFilesSplitByFile(t *testing.T) {
	files, text := severalFiles(t)
	if f := Detect(text); f != FormatFiles {
		t.Fatalf("Detect = %q, want files", f)
	}
	f, sections := newSplitter(nil).split(context.Background(), text)
	checkTiling(t, text, sections)
	if f != FormatFiles || len(sections) != len(files) {
		t.Fatalf("split: %q in %d sections, want one per file, %d", f, len(sections), len(files))
	}
	for i, s := range sections {
		got := s.Text(text)
		if s.Title != files[i][0] || s.Kind != KindFile || !strings.HasPrefix(got, files[i][0]+":") {
			t.Errorf("section %d is %q (%s) and starts %.40q; want the file %s from its path line", i, s.Title, s.Kind, got, files[i][0])
		}
		if files[i][1] != "" && !strings.Contains(got, files[i][1]) {
			t.Errorf("section %q does not hold its file's content", s.Title)
		}
	}
	if kids := sections[0].Children; len(kids) < 3 || kids[1].Title != "## Part 1" {
		t.Errorf("the guide's parts are %d, the second %q; want its headings", len(kids), kids[1].Title)
	}
	if kids := sections[3].Children; len(kids) == 0 || Leaves(kids)[0].Kind != KindJSONElement {
		t.Errorf("the JSON file has %d parts; want its elements", len(kids))
	}

	te := newTestEngine(t)
	out := transform(t, te.Engine, "subindex", text)
	for _, want := range []string{"Files, ", "- 1 /repo/docs/guide.md (", "How it works.", "- 3 /repo/missing.txt (", "Error - ENOENT", "- 5 /repo/main.go ("} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("the index lacks %q:\n%s", want, out.Text)
		}
	}
	checkDrillDown(t, te.Engine, out, text)

	// Pages start where files do, when one starts past a page's first quarter, and say which
	// file they are of.
	r, err := paginate(context.Background(), Content{Text: text}, Env{Config: map[string]any{"pageBytes": 4000}})
	if err != nil {
		t.Fatal(err)
	}
	starts := map[int]bool{}
	for _, p := range r.Sections {
		starts[p.Start] = true
		if !strings.Contains(p.Title, ": /repo/") {
			t.Errorf("page %q does not name its file", p.Title)
		}
	}
	for _, s := range sections {
		if name := s.Title; (name == "/repo/data/flows.json" || name == "/repo/main.go") && !starts[s.Start] {
			t.Errorf("no page starts where %s does", name)
		}
	}
}

// Text that is not several files keeps its own format: markdown's rules are followed by text,
// not a path; a YAML stream's documents start with keys; one file is not several.
func TestFilesNeedAPathAfterEveryRule(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"markdown with rules", "# Notes\n\nFirst part.\n\n---\nSecond: part.\n\n---\n\nThird part.\n"},
		{"a path in prose", "Read this:\n\n---\n/etc/hosts:\n127.0.0.1 localhost\n"},
		{"yaml stream", "name: a\nreplicas: 1\n---\nname: b\nreplicas: 2\n"},
		{"one file", "/repo/a.txt:\nhello\n"},
		{"a heading first", "# /repo/a.txt:\nhello\n\n---\n/repo/b.txt:\nworld\n"},
		{"sentences ending in paths", "See docs/setup.md:\nit says how.\n\n---\nThen read README.md:\nit says why.\n"},
	} {
		if f := Detect(tc.text); f == FormatFiles {
			t.Errorf("%s: Detect = files", tc.name)
		}
	}
}

// Many files under one long directory are grouped in ranges named by their files, not by the
// directory they share: cut at 36 characters, every range of absolute paths read
// "/Users/alice/work/myproject/src/c… … /Users/alice/work/myproject/src/c…".
func TestFileRangesAreNamedByTheirFiles(t *testing.T) {
	var files [][2]string
	for i := range 30 {
		files = append(files, [2]string{fmt.Sprintf("/Users/alice/work/myproject/src/components/widget%02d.tsx", i), "export const x = 1;\n"})
	}
	files = append(files, [2]string{"/Users/alice/work/myproject/src/a/very/deep/directory/of/many/levels/last.tsx", "export const y = 2;\n"})
	text := readMultipleFiles(files)
	_, sections := newSplitter(nil).split(context.Background(), text)
	checkTiling(t, text, sections)
	seen := map[string]bool{}
	for _, s := range sections {
		if s.Kind != KindRange {
			continue
		}
		if seen[s.Title] || strings.Contains(s.Title, "/Users/alice") || !strings.Contains(s.Title, ".tsx") {
			t.Errorf("range %q: want each range named by its first and last file, below the directory they share", s.Title)
		}
		seen[s.Title] = true
	}
	if len(seen) < 2 {
		t.Fatalf("%d ranges in %d sections; want the 31 files grouped", len(seen), len(sections))
	}
	if want := "components/widget00.tsx … components/widget04.tsx"; sections[0].Title != want {
		t.Errorf("first range %q, want %q", sections[0].Title, want)
	}
}
