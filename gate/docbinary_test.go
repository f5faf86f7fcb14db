package gate

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestDocBinaryRoundTrip(t *testing.T) {
	p := promptlib.Prompt{ID: "D0000000-0000-4000-8000-000000000001", Title: "Database Migrations",
		Content: "Plan every migration.\n\n## Rollback\n\nKeep a way back for {{table}}.\n\n## Locking\n\nAvoid long locks on big tables."}
	d := NewDoc(p, "database-migrations", "Engineering / Databases")
	d.SetTOC("1. Rollback\n2. Locking\n")
	b := d.AppendBinary([]byte("prefix"))
	got, n, err := DecodeDoc(b[len("prefix"):])
	if err != nil || n != len(b)-len("prefix") {
		t.Fatalf("DecodeDoc: %v, took %d of %d bytes", err, n, len(b)-len("prefix"))
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("decoded %+v\nwant    %+v", got, d)
	}
	// Cut anywhere, it is refused, never a panic.
	whole := d.AppendBinary(nil)
	for i := range len(whole) {
		if _, _, err := DecodeDoc(whole[:i]); err == nil {
			t.Fatalf("a Doc cut at %d of %d bytes decoded", i, len(whole))
		}
	}
}

var update = flag.Bool("update", false, "write the stems of testdata/gate/stems for today's DocFormat")

// TestDocFormatNamesTheStems holds words() and stem() to the terms written down under today's
// DocFormat: each line of testdata/gate/stems/<DocFormat>.golden is a text, a tab, and the stems
// of its words. A change to how words are split or stemmed (the stemmer, spellings) fails here
// until DocFormat is bumped: kept Docs hold terms made the old way and would no longer match
// what a session asks. With -update it writes the file of a new DocFormat from the old one's
// texts, or fills in lines added without stems ("text<TAB>"); it never changes a stem already
// written under today's DocFormat.
func TestDocFormatNamesTheStems(t *testing.T) {
	dir := filepath.Join("..", "testdata", "gate", "stems")
	files, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one golden file of stems in %s, found %q (%v)", dir, files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	changed, added := 0, 0
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		text, was, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: line %q is not \"text<TAB>stems\"", files[0], line)
		}
		var stems []string
		words(text, func(w string) { stems = append(stems, stem(w)) })
		now := strings.Join(stems, " ")
		switch {
		case was == "":
			added++
		case now != was:
			changed++
			t.Logf("%q: stems %q, were %q", text, now, was)
		}
		fmt.Fprintf(&out, "%s\t%s\n", text, now)
	}
	want := filepath.Join(dir, DocFormat+".golden")
	current := files[0] == want
	switch {
	case changed > 0 && current:
		t.Fatalf("%d texts stem otherwise, yet DocFormat is still %s: kept Docs hold terms made the old way, so bump DocFormat in docbinary.go, then run with -update", changed, DocFormat)
	case !*update && !current:
		t.Fatalf("the stems are those of %s, not of DocFormat %s: run with -update", filepath.Base(files[0]), DocFormat)
	case !*update && added > 0:
		t.Fatalf("%d texts have no stems yet: run with -update", added)
	case *update && (!current || added > 0):
		if err := os.WriteFile(want, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if !current {
			if err := os.Remove(files[0]); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %s (%d texts stem otherwise, %d new)", want, changed, added)
	}
}
