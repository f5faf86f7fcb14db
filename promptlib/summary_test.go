package promptlib

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Review this code. Then more.", "Review this code."},
		{"# Title\n\nReview **this** [code](http://x). More text.", "Review this code."},
		{"## Only a heading", "Only a heading"},
		{"- first item\n- second", "first item second"},
		{"> quoted *advice* here.\n\nNext para.", "quoted advice here."},
		{"", ""},
	} {
		if got := Summary(tc.in); got != tc.want {
			t.Errorf("Summary(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := Summary(strings.Repeat("word ", 100))
	if n := utf8.RuneCountInString(long); n > MaxSummary || !strings.HasSuffix(long, "…") {
		t.Errorf("long summary has %d characters, ends %q; want ≤ %d ending in …", n, long[len(long)-5:], MaxSummary)
	}
}
