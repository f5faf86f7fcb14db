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

func BenchmarkSummary(b *testing.B) {
	lib := Sample(1000, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range lib.Prompts {
			Summary(p.Content)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lib.Prompts)), "ns/prompt")
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Use it, e.g. for Go. Then stop.": "Use it, e.g. for Go.",
		"Version 1.2 is out! Yes.":        "Version 1.2 is out!",
		"日本語です。次の文。":                      "日本語です。",
		"No terminator":                   "No terminator",
		"Ends here.":                      "Ends here.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCollapseSpace: the fast path never differs from strings.Fields joined with spaces.
func FuzzCollapseSpace(f *testing.F) {
	for _, seed := range []string{"", " ", "a b", " a", "a ", "a  b", "a\tb", "é b", "a\u00a0b", "a\u3000 b", "\xff \xfe"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzPlain: plain's shortcuts never change what the three expressions and collapsing spaces
// would make of a line.
func FuzzPlain(f *testing.F) {
	for _, seed := range []string{"", "# Title", "  ## Deep", "> quote", "- item", "12. step", "3) x", "a *b* c",
		"[link](http://x) here", "![img](p.png)", "x ](y", "`code` ~~gone~~", "\t+ plus", "-no space", "a] (b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		want := mdMarks.ReplaceAllString(mdLink.ReplaceAllString(mdPrefix.ReplaceAllString(line, ""), "$1"), "")
		want = strings.Join(strings.Fields(want), " ")
		if got := plain(line); got != want {
			t.Fatalf("plain(%q) = %q, want %q", line, got, want)
		}
	})
}
