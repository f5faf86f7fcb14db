package promptlib

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stripMarks removes from one line of markdown the '*', '_', '~' and '`' that delimit emphasis,
// strikethrough or a code span, after CommonMark's rules, and keeps every other one: summaries
// are read by the model and the user, and snake_case, user_id or a*b must reach them as written.
// A code span's content is kept verbatim.
//
// Where it differs from CommonMark, it is for identifiers' sake:
//   - '*' opens and closes only at a word boundary, as '_' does: CommonMark lets '*' work inside
//     a word, which would take the stars out of a*b*c;
//   - strikethrough is "~~" only (GitHub's also takes one '~', which mostly means "about");
//   - "__name__" of lower-case letters, digits and '_' is a Python name (__init__, __main__),
//     not strong emphasis;
//   - a backslash escape keeps the mark from delimiting, and stays as written.
//
// It takes time linear in the line but for code spans: each length of backtick run that finds
// no closer scans the rest of the line once.
func stripMarks(s string) string {
	var buf [16]delim // most lines have few runs; this keeps them off the heap
	runs := buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && s[i+1] < utf8.RuneSelf && asciiClass[s[i+1]] == classPunct {
				i++ // an escaped mark (or backslash) is text
			}
			i++
		case '`':
			n := runLen(s, i)
			end := closingTicks(s, i+n, n)
			if end < 0 {
				i += n // no closer: the backticks are text
				continue
			}
			// CommonMark drops one space on each side when both have one, so `` `x` `` can
			// show a backtick at its edge.
			pad, inner := 0, s[i+n:end]
			if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && strings.Trim(inner, " ") != "" {
				pad = 1
			}
			runs = append(runs, delim{pos: i, n: n + pad, c: c}, delim{pos: end - pad, n: n + pad, c: c})
			i = end + n
		case '*', '_', '~':
			n := runLen(s, i)
			if c == '~' && n != 2 {
				i += n
				continue
			}
			before := classBefore(s, i)
			if c == '_' && n == 2 && before != classWord {
				if end := dunderEnd(s, i); end > 0 {
					i = end // the whole name is text
					continue
				}
			}
			after := classAfter(s, i+n)
			// Left- and right-flanking as CommonMark defines them, narrowed to word boundaries.
			runs = append(runs, delim{pos: i, n: n, left: n, c: c,
				open:  before != classWord && after != classSpace,
				close: after != classWord && before != classSpace,
			})
			i += n
		default:
			i++
		}
	}
	matchEmphasis(runs)
	changed := false
	for _, r := range runs {
		changed = changed || r.left < r.n
	}
	if !changed {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, r := range runs {
		if r.left == r.n {
			continue
		}
		b.WriteString(s[last:r.pos])
		b.WriteString(s[r.pos : r.pos+r.left]) // what is left of a run is all one byte
		last = r.pos + r.n
	}
	b.WriteString(s[last:])
	return b.String()
}

// delim is a run of one mark byte in a line: an emphasis or strikethrough delimiter, or one side
// of a code span (with the space stripMarks drops beside it).
type delim struct {
	pos, n      int  // where the run is, and its length
	left        int  // how much of the run stays as text; a code span's sides keep nothing
	c           byte // '*', '_', '~' or '`'
	open, close bool // whether it can open or close emphasis
}

// matchEmphasis pairs closers with openers as CommonMark's "process emphasis" does, setting each
// run's left to what stays as text. Delimiters between a matched pair stay as text; openersBottom
// remembers, for each kind of closer, the first run a future search need not go below (how
// CommonMark keeps this linear).
func matchEmphasis(runs []delim) {
	var sbuf [16]int
	stack := sbuf[:0] // indexes of runs that may still open, in order
	var openersBottom [3][2][3]int
	for ci := range runs {
		cl := &runs[ci]
		if cl.c == '`' {
			continue
		}
		if cl.close {
			bottom := &openersBottom[markIndex(cl.c)][b2i(cl.open)][cl.n%3]
			for cl.left > 0 {
				j := len(stack) - 1
				for ; j >= 0 && stack[j] >= *bottom; j-- {
					if op := &runs[stack[j]]; op.c == cl.c && op.left > 0 && !ruleOf3(op, cl) {
						break
					}
				}
				if j < 0 || stack[j] < *bottom {
					*bottom = ci
					break
				}
				op := &runs[stack[j]]
				use := 1
				if op.left >= 2 && cl.left >= 2 {
					use = 2
				}
				op.left -= use
				cl.left -= use
				stack = stack[:j+1] // what lies between is text
				if op.left == 0 {
					stack = stack[:j]
				}
			}
		}
		if cl.open && cl.left > 0 {
			stack = append(stack, ci)
		}
	}
}

// ruleOf3 is CommonMark's rule 9/10: a run that can both open and close pairs with another only
// if their lengths' sum is not a multiple of 3, unless both are; so "*a**b*" is one emphasis.
func ruleOf3(op, cl *delim) bool {
	return (op.open && op.close || cl.open && cl.close) && (op.n+cl.n)%3 == 0 && (op.n%3 != 0 || cl.n%3 != 0)
}

func markIndex(c byte) int {
	switch c {
	case '*':
		return 0
	case '_':
		return 1
	}
	return 2
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runLen is the length of the run of s[i] starting at i.
func runLen(s string, i int) int {
	n := 1
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// closingTicks is where the first run of exactly n backticks at or after i starts, or -1.
func closingTicks(s string, i, n int) int {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		m := runLen(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// dunderEnd is, when s[i:] starts with a Python name such as __init__ or __post_init__ (two
// underscores, a lower-case letter, lower-case letters, digits and single or double
// underscores, two underscores) that ends at a word boundary, the offset just after it; else 0.
func dunderEnd(s string, i int) int {
	j := i + 2
	if j >= len(s) || s[j] < 'a' || s[j] > 'z' {
		return 0
	}
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
		j++
	}
	if !strings.HasSuffix(s[:j], "__") || strings.HasSuffix(s[:j], "___") || classAfter(s, j) == classWord {
		return 0
	}
	return j
}

// Character classes for flanking: CommonMark's Unicode whitespace, punctuation (with symbols,
// as in CommonMark 0.31), and everything else, which makes words.
const (
	classSpace = iota
	classPunct
	classWord
)

// classBefore classifies the character before s[i]; the start of the line counts as space.
func classBefore(s string, i int) int {
	if i == 0 {
		return classSpace
	}
	if c := s[i-1]; c < utf8.RuneSelf {
		return asciiClass[c]
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return runeClass(r)
}

// classAfter classifies s[i]; the end of the line counts as space.
func classAfter(s string, i int) int {
	if i >= len(s) {
		return classSpace
	}
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c]
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return runeClass(r)
}

func runeClass(r rune) int {
	switch {
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsPunct(r) || unicode.IsSymbol(r):
		return classPunct
	}
	return classWord
}

var asciiClass = func() (t [utf8.RuneSelf]int) {
	for c := range t {
		t[c] = runeClass(rune(c))
	}
	return t
}()
