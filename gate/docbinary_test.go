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
	d.TOCBytes = 321
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

var update = flag.Bool("update", false, "write the stems of a new DocFormat to testdata/gate/stems")

// TestDocFormatNamesTheStems holds stem() to the stems written down under today's DocFormat. A
// change to stemming (the stemmer, spelling, splitting) fails here until DocFormat is bumped:
// kept Docs hold terms stemmed the old way and would no longer match what a session asks. With
// -update it writes the stems of a new DocFormat, from the old file's words, and removes the old
// file; it never rewrites the file of a DocFormat that already has one.
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
	var ws []string
	var out strings.Builder
	changed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		w, was, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: line %q is not \"word stem\"", files[0], line)
		}
		ws = append(ws, w)
		if now := stem(w); now != was {
			changed++
			if !*update {
				t.Errorf("stem(%q) = %q, was %q", w, now, was)
			}
		}
		fmt.Fprintf(&out, "%s %s\n", w, stem(w))
	}
	want := filepath.Join(dir, DocFormat+".golden")
	switch {
	case changed > 0 && files[0] == want && *update:
		t.Fatalf("%d stems changed under DocFormat %s: bump DocFormat in docbinary.go first, then run with -update", changed, DocFormat)
	case changed > 0 && files[0] == want:
		t.Fatalf("%d stems changed, yet DocFormat is still %s: kept Docs hold terms stemmed the old way, so bump DocFormat, then run with -update", changed, DocFormat)
	case files[0] != want && !*update:
		t.Fatalf("the stems are those of %s, not of DocFormat %s: run with -update", filepath.Base(files[0]), DocFormat)
	case files[0] != want:
		if err := os.WriteFile(want, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(files[0]); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d words, %d stems changed)", want, len(ws), changed)
	}
}
