package promptlib

import (
	"regexp"
	"strings"
)

// A prompt's content is markdown. Fence and Headings read it as CommonMark does where it
// matters for navigating it: fenced code, and headings written either way.

// A Fence follows fenced code blocks line by line: a run of three or more backticks or tildes
// opens one, and only a run of the same character at least as long, with nothing after it,
// closes it. So "```sh" inside a "````md" block is its content, and never closes a block;
// prompts that show markdown nest fences so.
type Fence struct {
	char byte // the block's fence character; 0 outside a block
	n    int  // the length of its opening run
}

// Code takes the next line, trimmed, and reports whether it is code or a fence: never a
// heading or a paragraph.
func (f *Fence) Code(trimmed string) bool {
	c, n := fenceRun(trimmed)
	if f.char == 0 {
		// A backtick fence's info string has no backtick: "```x```" is inline code.
		if n >= 3 && (c == '~' || !strings.ContainsRune(trimmed[n:], '`')) {
			f.char, f.n = c, n
			return true
		}
		return false
	}
	if c == f.char && n >= f.n && strings.TrimSpace(trimmed[n:]) == "" {
		f.char = 0
	}
	return true
}

// InCode reports whether the last line taken left a code block open.
func (f *Fence) InCode() bool { return f.char != 0 }

// fenceRun is the fence character s starts with and how many times, or 0, 0.
func fenceRun(s string) (byte, int) {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return 0, 0
	}
	n := 1
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return s[0], n
}

// SetextLevel is the level of a setext heading's underline, trimmed ("===" 1, "---" 2), or 0.
// It underlines a heading only after a paragraph's line (ParagraphLine); elsewhere "---" is a
// rule. Three characters at least: a lone "-" is an empty list item.
func SetextLevel(trimmed string) int {
	if len(trimmed) < 3 || trimmed[0] != '=' && trimmed[0] != '-' {
		return 0
	}
	if strings.Trim(trimmed, trimmed[:1]) != "" {
		return 0
	}
	if trimmed[0] == '=' {
		return 1
	}
	return 2
}

// ParagraphLine reports whether a trimmed, non-blank line outside code can be (part of) a
// setext heading's text: not an ATX heading, a list item, a quote, a table row, a rule or an
// HTML block.
func ParagraphLine(trimmed string) bool {
	switch trimmed[0] {
	case '#', '>', '|', '<':
		return false
	case '-', '*', '+':
		return len(trimmed) > 1 && trimmed[1] != ' ' && trimmed[1] != '\t' && SetextLevel(trimmed) == 0
	}
	if i := strings.IndexAny(trimmed, ".)"); i > 0 && i < 10 && i+1 < len(trimmed) && trimmed[i+1] == ' ' &&
		strings.Trim(trimmed[:i], "0123456789") == "" {
		return false // "1. item"
	}
	return true
}

// atxHeading is an ATX heading line: up to three spaces, one to six '#', then a space or the end.
var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)

// ATXHeading reports whether line is an ATX heading ("## Title"); outside code, which the
// caller knows (Fence).
func ATXHeading(line string) bool { return atxHeading.MatchString(line) }

// A Heading is one heading of a markdown text.
type Heading struct {
	Level      int
	Start, End int // the offsets of its first line and past its last (a setext underline)
	// Line is the heading as an ATX line ("## Title"), trimmed, whether it was written so or
	// as setext ("Title" over "---").
	Line string
}

// Headings calls fn with each heading of markdown t in order, outside fenced code and YAML
// front matter, until fn returns false.
func Headings(t string, fn func(Heading) bool) {
	var code Fence
	para := -1 // the start of the paragraph that runs to this line
	frontMatter := strings.HasPrefix(t, "---\n") || strings.HasPrefix(t, "---\r\n")
	for start, end := 0, 0; start < len(t); start = end {
		if end = strings.IndexByte(t[start:], '\n') + start + 1; end == start {
			end = len(t)
		}
		if c := t[start]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			// Most lines: text, which neither opens nor closes anything, decided by one byte.
			if para < 0 && !frontMatter && !code.InCode() {
				para = start
			}
			continue
		}
		line := strings.TrimRight(t[start:end], "\r\n")
		trimmed := strings.TrimSpace(line)
		h := Heading{Start: start, End: end}
		switch {
		case frontMatter:
			// YAML between "---" lines at the very start: its keys are no paragraph.
			frontMatter = start == 0 || trimmed != "---" && trimmed != "..."
		case code.Code(trimmed), trimmed == "":
			para = -1
		case trimmed[0] == '#' && atxHeading.MatchString(line):
			para = -1
			h.Level, h.Line = len(trimmed)-len(strings.TrimLeft(trimmed, "#")), trimmed
		case para >= 0 && SetextLevel(trimmed) > 0:
			// The paragraph's lines are its text (a title is clipped long before 200 bytes).
			text := strings.Join(strings.Fields(t[para:min(start, para+200)]), " ")
			h.Level, h.Start = SetextLevel(trimmed), para
			h.Line = strings.Repeat("#", h.Level) + " " + text
			para = -1
		case !ParagraphLine(trimmed):
			para = -1
		case para < 0:
			para = start
		}
		if h.Level > 0 && !fn(h) {
			return
		}
	}
}
