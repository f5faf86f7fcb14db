package tui

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\nwith\ttab", "plain text\nwith\ttab"},
		{"Escape \x1b[31mRed", "Escape ^[[31mRed"},
		{"before \x1b[2J\x1b[H CLEARED", "before ^[[2J^[[H CLEARED"},
		{"\x1b]0;pwned\x07", "^[]0;pwned^G"},
		{"bell\x07 del\x7f cr\r", "bell^G del^? cr^M"},
		{"c1 \u009b31m", "c1 \ufffd31m"},
		{"bad \xff utf8", "bad \ufffd utf8"},
		{"émoji 👨‍💻 ok", "émoji 👨‍💻 ok"},
		// Text hidden or disguised: shown by its code point (the Pipeline screen drew them raw).
		{"a \u202eevil\u202c b", "a <U+202E>evil<U+202C> b"},
		{"tag \U000E0049\U000E0047 z", "tag <U+E0049><U+E0047> z"},
		{"zero\u200bwidth\u2060join\ufeff", "zero<U+200B>width<U+2060>join<U+FEFF>"},
		{"soft\u00adhyphen", "soft\u00adhyphen"},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
