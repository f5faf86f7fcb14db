package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// tabStop is the column multiple a tab advances to, as on a terminal.
const tabStop = 8

// display makes text from a library, a queue, a traffic file or a pipeline's input ready to be
// laid out: control characters in caret notation (Printable), emoji sequences reduced to what
// every terminal measures alike (plainEmoji), and tabs expanded to spaces. Every such string
// passes through here once, where it enters the console (the commands that read it), so the
// widths the layout computes are the widths the terminal draws.
func display(s string) string {
	return expandTabs(plainEmoji(Printable(s)))
}

// displayMarkdown is display for a prompt's markdown: its tabs are kept for the parser (a tab
// indents a code block or a list item) and expanded by the renderer.
func displayMarkdown(s string) string { return plainEmoji(Printable(s)) }

// plainEmoji drops the characters that join or restyle emoji: zero-width joiners (👨‍💻 becomes
// 👨💻), variation selectors (⚙️ becomes ⚙) and skin-tone modifiers. Terminals disagree on the
// width of such sequences — tmux 3.3a draws 👨‍💻 in four columns and ⚙️ in one, where the
// Unicode rules that lipgloss measures with say two for both — and every row is padded to the
// full width, so a row measured one column short wraps and scrolls the whole screen. Without
// them each emoji is one character whose width terminals and lipgloss agree on.
func plainEmoji(s string) string {
	if !strings.ContainsFunc(s, joinsEmoji) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if joinsEmoji(r) {
			return -1
		}
		return r
	}, s)
}

func joinsEmoji(r rune) bool {
	switch {
	case r < 0x200d:
		return false
	case r == 0x200d, // zero-width joiner
		r >= 0xfe00 && r <= 0xfe0f,   // variation selectors
		r >= 0x1f3fb && r <= 0x1f3ff, // skin-tone modifiers
		r >= 0xe0100 && r <= 0xe01ef, // variation selectors supplement
		r >= 0xe0020 && r <= 0xe007f: // tag characters (subdivision flags)
		return true
	}
	return false
}

// expandTabs replaces each tab by the spaces up to the next tab stop of its line. A tab is a
// control character to the width rules, zero columns, but a terminal moves up to eight: drawn
// raw, a line of Go source is wider than measured, overflows its pane and scrolls the screen.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	for {
		i := strings.IndexAny(s, "\t\n")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		seg := s[:i]
		b.WriteString(seg)
		if s[i] == '\n' {
			b.WriteByte('\n')
			col = 0
		} else {
			col += ansi.StringWidth(seg)
			n := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
		}
		s = s[i+1:]
	}
}

// guardTerminal is the last check on what the console writes: the only escape sequences it
// lays out itself are SGR (colors and attributes, ESC [ params m), so any other escape
// sequence or control character (but newline) is shown in caret notation instead of reaching
// the terminal. Text is made Printable where it enters; this keeps a string that a future
// change forgets to clean from clearing the screen or writing the clipboard.
func guardTerminal(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != 0x1b || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] < 0xa0 {
			clean = false
			break
		}
		if s[i] == 0x1b && sgrLen(s[i:]) == 0 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if n := sgrLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		if s[i] == '\n' {
			b.WriteByte('\n')
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(Printable(s[i : i+size]))
		i += size
	}
	return b.String()
}

// sgrLen is the length of the SGR sequence s starts with, 0 when it starts with none.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}
