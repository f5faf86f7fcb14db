package promptlib

import (
	"strings"
	"testing"
)

// The fixture generator must produce what the tests claim to cover.
func TestSampleShape(t *testing.T) {
	lib := Sample(1000, 1)
	if len(lib.Prompts) != 1000 {
		t.Fatalf("got %d prompts, want 1000", len(lib.Prompts))
	}
	var upper, large, placeholders, multi, nested, nonASCII int
	folders := map[string]bool{}
	for _, f := range lib.Folders {
		if f.ParentID != nil {
			if !folders[*f.ParentID] {
				t.Fatalf("folder %s comes before its parent", f.ID)
			}
			nested++
		}
		folders[f.ID] = true
	}
	for _, p := range lib.Prompts {
		if err := ValidateTitle(p.Title); err != nil {
			t.Fatal(err)
		}
		if p.ID == strings.ToUpper(p.ID) && ValidID(p.ID) {
			upper++
		}
		if len(p.Content) >= 50_000 {
			large++
		}
		if strings.Contains(p.Content, "{{tone|friendly}}") {
			placeholders++
		}
		if p.Emoji != nil {
			if err := ValidateEmoji(*p.Emoji); err != nil {
				t.Fatal(err)
			}
			if len([]rune(*p.Emoji)) > 1 {
				multi++
			}
		}
		if strings.ContainsAny(p.Content, "É日") {
			nonASCII++
		}
	}
	for what, n := range map[string]int{"upper-case ids": upper, "large prompts": large, "placeholders": placeholders,
		"multi-code-point emoji": multi, "nested folders": nested, "non-ASCII bodies": nonASCII} {
		if n == 0 {
			t.Errorf("sample has no %s", what)
		}
	}
	if a, b := Sample(50, 7), Sample(50, 7); a.Prompts[49].ID != b.Prompts[49].ID {
		t.Error("Sample is not deterministic for a seed")
	}
}
