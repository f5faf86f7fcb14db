package promptlib

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSummary is the longest summary, in characters.
const MaxSummary = 160

// SummaryVersion names what Summary makes. Summaries are kept (the search index's copy, the
// server's kept view) and computed again only for prompts that change, so any change to what
// Summary returns must bump it: kept copies of another version are rebuilt.
//
// Version 5 reads a setext heading (Title over "===" or "---") as a heading, where version 4
// took "Title =====" as the first sentence; version 4 skips fenced code as Fence reads it (version 3 skipped each line starting "```" or
// "~~~", "```x``` is code" included, and took the lines between them as text); version 3 keeps
// link syntax inside a code span as written (`m[k](v)` is code, not a link); version 2 removes '*', '_', '`' and '~' only where they delimit emphasis, strikethrough or
// code; version 1 removed them all.
const SummaryVersion = 5

var (
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdPrefix = regexp.MustCompile(`^\s*(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)`)
)

// Summary is a one-line description of a prompt body: its first sentence with markdown removed,
// at most 160 characters (cut at a word, with an ellipsis). Headings and fenced code are
// skipped: a heading names a section and code is an example, rather than saying what the prompt
// does, unless nothing else is there (a heading first, then the code's first line: some prompts
// are one fenced block).
func Summary(body string) string {
	var lines []string
	var heading, code string
	var fence Fence // the package's one reading of fences, as headings and sections use it
	size := 0
	// Walk lines lazily: bodies run to 100 KB and only the first paragraph matters.
	for rest := body; rest != "" && size < 4*MaxSummary; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		if inCode := fence.InCode(); fence.Code(t) {
			if len(lines) > 0 {
				break
			}
			if inCode && code == "" && t != "" && fence.InCode() {
				code = plain(t)
			}
			continue
		}
		if len(lines) > 0 && SetextLevel(t) > 0 {
			// "Title" over "===" or "---": the lines above were a heading, not text.
			if heading == "" {
				heading = strings.Join(lines, " ")
			}
			lines, size = nil, 0
			continue
		}
		// A thematic break ("***", "___") holds no text, and stripMarks keeps marks that
		// delimit nothing, so it is skipped here.
		if t == "" || strings.HasPrefix(t, "---") || thematicBreak(t) {
			if len(lines) > 0 {
				break
			}
			continue
		}
		if strings.HasPrefix(t, "#") {
			if heading == "" {
				heading = plain(t)
			}
			if len(lines) > 0 {
				break
			}
			continue
		}
		p := plain(t)
		lines = append(lines, p)
		size += len(p)
	}
	text := strings.Join(lines, " ")
	if text == "" {
		text = heading
	}
	if text == "" {
		text = code
	}
	return clip(strings.TrimSpace(firstSentence(text)), MaxSummary)
}

// plain strips a line's markdown; the regular expressions and stripMarks run only where markup
// can be. mdPrefix is anchored, so only the first byte after any leading space can call for it;
// the other marks are found in one pass (the scans for each set were most of a summary's time).
func plain(line string) string {
	if t := strings.TrimLeft(line, " \t\n\f\r"); t != "" && prefixStart[t[0]] {
		line = mdPrefix.ReplaceAllString(line, "")
	}
	link, marks := false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case markByte[c]:
			marks = true
		case c == ']' && i+1 < len(line) && line[i+1] == '(':
			link = true
		}
	}
	if link {
		line = replaceLinks(line, marks)
	}
	if marks {
		line = stripMarks(line)
	}
	return collapseSpace(line)
}

// replaceLinks keeps each link's text and drops its target, except where the link's opening or
// closing bracket is inside a code span: CommonMark reads `m[k](v)` as code, not a link.
func replaceLinks(line string, marks bool) string {
	var spans [][2]int
	if marks {
		spans = codeSpans(line)
	}
	if len(spans) == 0 {
		return mdLink.ReplaceAllString(line, "$1")
	}
	inCode := func(i int) bool {
		for _, s := range spans {
			if s[0] <= i && i < s[1] {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	last := 0
	for from := 0; from < len(line); {
		m := mdLink.FindStringSubmatchIndex(line[from:])
		if m == nil {
			break
		}
		start, text, textEnd, end := from+m[0], from+m[2], from+m[3], from+m[1]
		if inCode(start) || inCode(textEnd) {
			// Look again just past this bracket: a link may begin inside what it matched.
			from = start + 1
			continue
		}
		b.WriteString(line[last:start])
		b.WriteString(line[text:textEnd])
		last, from = end, end
	}
	if last == 0 {
		return line
	}
	b.WriteString(line[last:])
	return b.String()
}

// codeSpans are the byte ranges of a line's code spans, backticks included, found as
// stripMarks finds them.
func codeSpans(s string) (spans [][2]int) {
	for i := 0; i < len(s); {
		switch s[i] {
		case '\\':
			i += 2 // an escaped backtick opens nothing
		case '`':
			n := runLen(s, i)
			end := closingTicks(s, i+n, n)
			if end < 0 {
				i += n
				continue
			}
			spans = append(spans, [2]int{i, end + n})
			i = end + n
		default:
			i++
		}
	}
	return spans
}

// prefixStart are the bytes mdPrefix's alternatives begin with; markByte are the bytes
// stripMarks looks at.
var prefixStart, markByte = byteSet("#>-*+0123456789"), byteSet("*_`~")

func byteSet(chars string) (set [256]bool) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

// collapseSpace is strings.Join(strings.Fields(s), " ") without its allocations when s is
// already single-spaced, as most lines are (it was four fifths of a summary's time).
func collapseSpace(s string) string {
	clean := true
	prevSpace := true // a leading space needs work too
	for i := 0; i < len(s); i++ {
		c := s[i]
		space := asciiSpace[c&0x7f] && c < utf8.RuneSelf
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size - 1
		}
		if space && (c != ' ' || prevSpace) {
			clean = false
			break
		}
		prevSpace = space
	}
	if clean && !prevSpace || s == "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// firstSentence ends at the first '.', '!' or '?' followed by a space and then anything but a
// lower-case letter (so "e.g. this" stays whole), or at a CJK full stop. Full Unicode sentence
// segmentation was a third of the index build for no visible gain in one-line summaries.
func firstSentence(s string) string {
	for i, r := range s {
		switch r {
		case '。', '！', '？':
			return s[:i+utf8.RuneLen(r)]
		case '.', '!', '?':
			rest := s[i+1:]
			if !strings.HasPrefix(rest, " ") {
				continue
			}
			next, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, " "))
			if !unicode.IsLower(next) {
				return s[:i+1]
			}
		}
	}
	return s
}

// clip cuts s to at most n characters at a word boundary, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// thematicBreak reports whether a trimmed line is a thematic break: three or more '*', '-' or
// '_', all the same, perhaps with spaces between.
func thematicBreak(t string) bool {
	if t == "" || t[0] != '*' && t[0] != '-' && t[0] != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}
