package promptlib

import "testing"

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Security Review":          "security-review",
		"  Review -- the  Code!! ": "review-the-code",
		"Café crème":               "cafe-creme",
		"日本語":                      "prompt",
		"API v2 (draft)":           "api-v2-draft",
		"👨‍💻 Pair Programming":     "pair-programming",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamesResolveClashesByID(t *testing.T) {
	ps := []Prompt{
		{ID: "BBBB0000-0000-4000-8000-000000000000", Title: "Code Review"},
		{ID: "aaaa0000-0000-4000-8000-000000000000", Title: "code review"},
		{ID: "CCCC0000-0000-4000-8000-000000000000", Title: "Other"},
	}
	got := Names(ps)
	want := map[string]string{
		"aaaa0000-0000-4000-8000-000000000000": "code-review",
		"BBBB0000-0000-4000-8000-000000000000": "code-review-bbbb",
		"CCCC0000-0000-4000-8000-000000000000": "other",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("name of %s = %q, want %q", id, got[id], w)
		}
	}
	// Order must not matter.
	ps[0], ps[1] = ps[1], ps[0]
	if again := Names(ps); again["BBBB0000-0000-4000-8000-000000000000"] != "code-review-bbbb" {
		t.Errorf("names depend on order: %v", again)
	}
}

// Names are unique even when the four characters of id a clash adds are not: same titles with
// ids that start alike, and a title that reads like another's suffixed name.
func TestNamesUniqueWhenSuffixesClash(t *testing.T) {
	ps := []Prompt{
		{ID: "abcd0001-0000-4000-8000-000000000000", Title: "Untitled"},
		{ID: "abcd0002-0000-4000-8000-000000000000", Title: "Untitled"},
		{ID: "abcd0003-0000-4000-8000-000000000000", Title: "Untitled"},
		{ID: "ffff0000-0000-4000-8000-000000000000", Title: "Untitled abcd"},
	}
	names := Names(ps)
	seen := map[string]string{}
	for _, p := range ps {
		n := names[p.ID]
		if other, ok := seen[n]; ok {
			t.Errorf("%s and %s are both named %q", other, p.ID, n)
		}
		seen[n] = p.ID
	}
	if names[ps[0].ID] != "untitled" {
		t.Errorf("the first by id is %q, want the bare slug", names[ps[0].ID])
	}
}
