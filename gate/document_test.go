package gate

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/mcpctl/mcpctl/promptlib"
)

// A Doc must not pin the prompt's body: the server drops bodies once Docs are made.
func TestNewDocKeepsNoBody(t *testing.T) {
	body := strings.Repeat("Some rule about migrations.\n", 100) + "## Rollback\n"
	p := promptlib.Prompt{ID: "A-1", Title: "Migrations", Content: body}
	d := NewDoc(p, "migrations", "Database")
	lo := uintptr(unsafe.Pointer(unsafe.StringData(body)))
	hi := lo + uintptr(len(body))
	inBody := func(s string) bool {
		if s == "" {
			return false
		}
		q := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return q >= lo && q < hi
	}
	for _, s := range append([]string{d.ID, d.Name, d.Title, d.Summary, d.FolderPath}, d.Chapters...) {
		if inBody(s) {
			t.Errorf("Doc field %q points into the body", s)
		}
	}
	if d.Bytes != len(body) || !slices.Equal(d.Chapters, []string{"Rollback"}) {
		t.Errorf("Doc bytes %d chapters %q", d.Bytes, d.Chapters)
	}
}

func FuzzNewDoc(f *testing.F) {
	f.Add("Error Handling", "Wrap errors.\n## Rollback\n```\n# not a heading\n```\n")
	f.Add("Données", "## Sécurité\n\xff\xfe 👨‍💻 {{placeholder}}")
	f.Fuzz(func(t *testing.T, title, body string) {
		d := NewDoc(promptlib.Prompt{ID: "X", Title: title, Content: body}, promptlib.Slug(title), "A / B")
		if d.Bytes != len(body) {
			t.Errorf("Bytes = %d, want %d", d.Bytes, len(body))
		}
		if !slices.IsSorted(d.terms) {
			t.Error("terms not sorted")
		}
		for i := 1; i < len(d.terms); i++ {
			if d.terms[i].term() == d.terms[i-1].term() {
				t.Errorf("term %x twice", d.terms[i].term())
			}
		}
	})
}

func TestTermCount(t *testing.T) {
	tm := termOf("kubernetes")
	c := packCount(tm, 5000, &[fieldBody]int32{1, 0, 9, 7})
	if c.term() != tm {
		t.Errorf("term %x, want %x", c.term(), tm)
	}
	for f, want := range map[int]int{fieldTitle: 1, fieldChapters: 0, fieldSummary: fieldMax, fieldFolder: 7, fieldBody: bodyMax} {
		if got := c.counts().in(f); got != want {
			t.Errorf("field %d: count %d, want %d (saturated at the field's maximum)", f, got, want)
		}
	}
	// Packed counts sort by term whatever the counts: the term is in the high bits.
	lo, hi := min(termOf("a"), termOf("b")), max(termOf("a"), termOf("b"))
	if packCount(lo, bodyMax, &[fieldBody]int32{7, 7, 7, 7}) >= packCount(hi, 0, &[fieldBody]int32{}) {
		t.Error("a smaller term with large counts sorts after a larger term")
	}
	if termOf("x") >= 1<<termBits || pairOf("x", "y") >= 1<<termBits {
		t.Error("a term does not fit termBits")
	}
}
