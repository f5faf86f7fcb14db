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
