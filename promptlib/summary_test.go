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
		{"***\n\nAfter a break.", "After a break."},
		{"~~~\n\nAfter a fence.", "After a fence."},
		{"Use snake_case tables.", "Use snake_case tables."},
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

// TestSummaryFences: fenced code is read as Fence reads it (as headings and sections are), so
// the summary is the prose, not a line of the example.
func TestSummaryFences(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"code before the prose", "```go\nfunc main() {}\n```\n\nExplain this code.", "Explain this code."},
		{"tilde fence", "~~~\nls -la\n~~~\nList the files.", "List the files."},
		{"a longer fence holds a ``` line", "````md\n```\nnot the summary\n```\n````\nWrite the README.", "Write the README."},
		{"a tilde block holds a ``` line", "~~~\n```\ninside\n~~~\nOutside.", "Outside."},
		{"a closing run must be as long", "````\ncode\n```\nstill code\n````\nProse.", "Prose."},
		{"indented fence", "   ```\ncode\n   ```\nProse.", "Prose."},
		{"inline code is no fence", "```x``` is code here.", "x is code here."},
		{"a fence ends the paragraph", "Prose first\n```\ncode\n```\nmore", "Prose first"},
		{"only code: its first line", "```\n\nYou are a reviewer. Be terse.\n```", "You are a reviewer."},
		{"a heading before code", "# Title\n```\ncode\n```", "Title"},
	} {
		if got := Summary(tc.in); got != tc.want {
			t.Errorf("%s: Summary(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestPlainMarks: emphasis, strikethrough and code-span delimiters go where they delimit, and
// every other '*', '_', '`' and '~' stays, since identifiers are full of them.
func TestPlainMarks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Kept: nothing is delimited.
		{"Use snake_case tables.", "Use snake_case tables."},
		{"Join on user_id and order_id.", "Join on user_id and order_id."},
		{"Define __init__ first.", "Define __init__ first."},
		{"Edit __init__.py and __post_init__ too.", "Edit __init__.py and __post_init__ too."},
		{"Compute a*b here.", "Compute a*b here."},
		{"Compute a*b*c here.", "Compute a*b*c here."},
		{"Pass *args and **kwargs through.", "Pass *args and **kwargs through."},
		{"Keep _private_name as is.", "Keep _private_name as is."},
		{"It takes ~5 minutes.", "It takes ~5 minutes."},
		{"A ~single~ tilde strikes nothing.", "A ~single~ tilde strikes nothing."},
		{"An unclosed `tick stays.", "An unclosed `tick stays."},
		{"Escaped \\*not emphasis\\* stays.", "Escaped \\*not emphasis\\* stays."},
		{"x * y * z", "x * y * z"},
		// Removed: emphasis, strikethrough, code spans.
		{"Review **this** code.", "Review this code."},
		{"*Always* wrap errors.", "Always wrap errors."},
		{"_Always_ wrap errors.", "Always wrap errors."},
		{"__Never__ log secrets.", "Never log secrets."},
		{"***Both*** at once.", "Both at once."},
		{"**Note:** read this.", "Note: read this."},
		{"~~Old~~ new rule.", "Old new rule."},
		{"**bold _nested_ text**", "bold nested text"},
		{"*a **b** c*", "a b c"},
		{"_snake_case_ in emphasis", "snake_case in emphasis"},
		{"\\\\*really*", "\\\\really"}, // an escaped backslash escapes nothing further
		// Code spans: content verbatim, delimiters gone.
		{"Call `__init__` and `user_id`.", "Call __init__ and user_id."},
		{"`*not emphasis*` here", "*not emphasis* here"},
		{"Use `` `ticks` `` freely.", "Use `ticks` freely."},
		{"**bold with `code_span`** end", "bold with code_span end"},
		{"*open `close*` here", "*open close* here"},
		{"[**linked**](https://example.com/a_b_c) text", "linked text"},
		// Links: text kept, target dropped, but link syntax inside a code span is code.
		{"Index with `m[k](v)` here.", "Index with m[k](v) here."},
		{"`[x` then [y](z) link", "[x then y link"},
		{"See [`code`](http://x) docs", "See code docs"},
		{"Escaped \\`[a](b)` link", "Escaped \\`a` link"},
		{"See https://example.com/a_b_c now.", "See https://example.com/a_b_c now."},
	} {
		if got := plain(tc.in); got != tc.want {
			t.Errorf("plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
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

// FuzzPlain: plain's shortcuts never change what the prefix expression, replaceLinks (always
// looking for code spans), stripMarks and collapsing spaces would make of a line.
func FuzzPlain(f *testing.F) {
	for _, seed := range []string{"", "# Title", "  ## Deep", "> quote", "- item", "12. step", "3) x", "a *b* c",
		"[link](http://x) here", "![img](p.png)", "x ](y", "`code` ~~gone~~", "\t+ plus", "-no space", "a] (b", "`m[k](v)` [a](b)"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		want := stripMarks(replaceLinks(mdPrefix.ReplaceAllString(line, ""), true))
		want = strings.Join(strings.Fields(want), " ")
		if got := plain(line); got != want {
			t.Fatalf("plain(%q) = %q, want %q", line, got, want)
		}
	})
}

// BenchmarkPlainMarkup is plain on lines that carry emphasis, code spans and identifiers: the
// sample library's bodies have none, so BenchmarkSummary never leaves the fast path.
func BenchmarkPlainMarkup(b *testing.B) {
	lines := []string{
		"**Never** log secrets; use `log.Redact(user_id)` and _always_ wrap errors.",
		"Tables are plural snake_case (`order_items`); keys are `<table>_id`, e.g. customer_id.",
		"Define __init__ first, then ~~legacy~~ helpers; *args and **kwargs are passed through.",
		"See [the guide](https://example.com/a_b) for **bold _nested_ text** and a*b*c.",
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			plain(l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// FuzzStripMarks: stripMarks only ever takes out mark bytes and the spaces that pad a code span,
// and never one '_' inside a word.
func FuzzStripMarks(f *testing.F) {
	for _, seed := range []string{"", "snake_case", "__init__", "a*b*c", "**b** _i_ ~~s~~ `c`", "`` ` ``", "*a **b** c*",
		"\\*x*", "***a**b*", "_a_b_", "é*ü*ß", "x__y__z", "~~~a~~~", "` a `", "**`x`**", "*\xff*"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := stripMarks(s)
		var in, out [256]int
		for i := 0; i < len(s); i++ {
			in[s[i]]++
		}
		for i := 0; i < len(got); i++ {
			out[got[i]]++
		}
		for c := range in {
			if out[c] > in[c] || out[c] < in[c] && !markByte[c] && c != ' ' {
				t.Fatalf("stripMarks(%q) = %q: %d of byte %q, want %d (only marks and spaces go)", s, got, out[c], byte(c), in[c])
			}
		}
		if !isSubsequence(got, s) {
			t.Fatalf("stripMarks(%q) = %q, not the input with bytes taken out", s, got)
		}
		intraword := 0
		for i := 1; i+1 < len(s); i++ {
			if s[i] == '_' && isAlnum(s[i-1]) && isAlnum(s[i+1]) {
				intraword++
			}
		}
		if n := strings.Count(got, "_"); n < intraword {
			t.Fatalf("stripMarks(%q) = %q: %d underscores left, want at least the %d inside words", s, got, n, intraword)
		}
	})
}

func isSubsequence(sub, s string) bool {
	for i := 0; i < len(s) && sub != ""; i++ {
		if s[i] == sub[0] {
			sub = sub[1:]
		}
	}
	return sub == ""
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// A setext heading ("Title" over "=====") is a heading, as Headings reads it: the summary is the
// text under it, not "Title =====".
func TestSummarySetextHeading(t *testing.T) {
	for body, want := range map[string]string{
		"Title\n=====\n\nBody text here.":  "Body text here.",
		"Title\n-----\n\nBody text here.":  "Body text here.",
		"Only a title\n============\n":     "Only a title",
		"Text first.\n\n---\n\nMore text.": "Text first.",
	} {
		if got := Summary(body); got != want {
			t.Errorf("Summary(%q) = %q, want %q", body, got, want)
		}
	}
}
