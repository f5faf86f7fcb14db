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
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
