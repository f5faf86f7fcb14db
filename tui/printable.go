package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable makes text from a library, a queue or a client safe to write to a terminal: every
// control character but newline and tab is shown in caret notation (ESC as "^[", DEL as "^?"),
// and the C1 controls and invalid UTF-8 as U+FFFD. Prompts are anyone's text: an escape
// sequence in a title would otherwise clear the screen, retitle the window or write the
// clipboard (OSC 52) of whoever lists them.
func Printable(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
		case r < 0x20 && r != '\n' && r != '\t':
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case hidesText(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidesText is true for a character that, drawn raw, hides or disguises text on a terminal: a
// bidi control makes what follows it read reversed ("Trojan Source"); a tag character (U+E0020…,
// "ASCII smuggling") or a zero-width space or word joiner carries or splits words unseen. Each
// is shown as its code point, in prompts, payloads and results alike. Joiners inside emoji
// (U+200D) and soft hyphens are typography, and stay.
func hidesText(r rune) bool {
	return bidiControl(r) || r >= 0xe0000 && r <= 0xe007f || r == 0x200b || r == 0x2060 || r == 0xfeff
}

// bidiControl is true for the characters that change the direction text is drawn in.
func bidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
