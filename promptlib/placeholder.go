package promptlib

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A prompt body names its arguments with placeholders:
//
//	{{name}}          a required argument
//	{{name|default}}  an optional argument, replaced by default when no value is given
//
// A name is [A-Za-z_][A-Za-z0-9_]{0,63}; spaces and tabs around the name and the default are
// ignored ("{{ name | x }}"). A default runs to the closing braces and holds no braces and no
// line break. Anything else between double braces ("{{ }}", "{{a b}}", "{{#each}}", a JSON
// snippet) is not a placeholder and stays in the text as typed, so bodies that merely contain
// braces keep working.

// MaxPlaceholderName is the longest placeholder name.
const MaxPlaceholderName = 64

// maxUsesListed bounds how many occurrences an argument's Where names, so a name used on every
// line of a long prompt does not give a description longer than the prompt.
const maxUsesListed = 3

// Placeholder is one argument of a prompt body. A name used several times is one argument: it
// is required if any use is required, and its default is the first default written, reading
// from the top (later, different defaults are ignored, the way a reader of the body would take
// the first one as the intended value).
type Placeholder struct {
	Name       string
	Required   bool
	Default    string // meaningful when HasDefault
	HasDefault bool
	Uses       []PlaceholderUse // every occurrence, in body order
}

// PlaceholderUse is where a placeholder occurs: its line (1-based) and the markdown heading
// the line sits under ("" before the first heading).
type PlaceholderUse struct {
	Line    int
	Heading string
}

// Where says where the placeholder occurs, for an argument's description:
// `line 3 under "## Context", line 9 under "## Output"`.
// Each line is named once: three uses on line 1 were "line 1, line 1, line 1".
func (p Placeholder) Where() string {
	var lines []PlaceholderUse
	for _, u := range p.Uses {
		if n := len(lines); n == 0 || lines[n-1].Line != u.Line {
			lines = append(lines, u)
		}
	}
	var parts []string
	for i, u := range lines {
		if i == maxUsesListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-maxUsesListed))
			break
		}
		s := "line " + strconv.Itoa(u.Line)
		if u.Heading != "" {
			s += " under " + strconv.Quote(u.Heading)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// token is one placeholder occurrence: body[start:end] is its text.
type token struct {
	start, end int
	name       string
	def        string
	hasDef     bool
}

// scan finds every placeholder in body, left to right, without overlaps. Parse and Render
// share it, so what Parse reports is exactly what Render replaces.
func scan(body string) []token {
	var toks []token
	for i := 0; i+1 < len(body); {
		open := strings.Index(body[i:], "{{")
		if open < 0 {
			break
		}
		open += i
		end := strings.Index(body[open+2:], "}}")
		if end < 0 {
			break
		}
		end += open + 2
		if t, ok := parseInner(body[open+2 : end]); ok {
			t.start, t.end = open, end+2
			toks = append(toks, t)
			i = end + 2
			continue
		}
		// Not a placeholder: the braces are literal text. Move on by one byte so that
		// "{{{name}}}" still finds "{{name}}" inside.
		i = open + 1
	}
	return toks
}

// parseInner reads "name" or "name|default" (with optional blanks around each part).
func parseInner(s string) (token, bool) {
	name, def, hasDef := strings.Cut(s, "|")
	name = strings.Trim(name, " \t")
	if !validName(name) {
		return token{}, false
	}
	if hasDef {
		if strings.ContainsAny(def, "{}\r\n") {
			return token{}, false
		}
		def = strings.Trim(def, " \t")
	}
	return token{name: name, def: def, hasDef: hasDef}, true
}

func validName(s string) bool {
	if s == "" || len(s) > MaxPlaceholderName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Placeholders returns the arguments of body in order of first use.
func Placeholders(body string) []Placeholder { return placeholders(body, scan(body)) }

func placeholders(body string, toks []token) []Placeholder {
	if len(toks) == 0 {
		return nil
	}
	var out []Placeholder
	index := make(map[string]int)
	lines := newLineIndex(body)
	for _, t := range toks {
		use := lines.at(t.start)
		i, seen := index[t.name]
		if !seen {
			i = len(out)
			index[t.name] = i
			// Clones: a placeholder outlives its body in caches, and a substring would keep
			// the whole body alive.
			out = append(out, Placeholder{Name: strings.Clone(t.name)})
		}
		p := &out[i]
		if !t.hasDef {
			p.Required = true
		} else if !p.HasDefault {
			p.Default, p.HasDefault = strings.Clone(t.def), true
		}
		p.Uses = append(p.Uses, use)
	}
	return out
}

// lineIndex answers "which line and heading is byte offset n on", for offsets asked in
// increasing order (one pass over the body however many placeholders it has).
type lineIndex struct {
	body    string
	line    int // number of the last line read (0 before the first)
	lineEnd int // offset of the end of that line (its '\n' or len(body))
	heading string
	code    Fence // fenced code, where "#" starts a comment, not a heading
	// para says the last line read can be a setext heading's text (ParagraphLine), last is it.
	para bool
	last string
}

func newLineIndex(body string) *lineIndex { return &lineIndex{body: body, lineEnd: -1} }

func (l *lineIndex) at(n int) PlaceholderUse {
	for l.line == 0 || n > l.lineEnd {
		start := l.lineEnd + 1
		end := len(l.body)
		if nl := strings.IndexByte(l.body[start:], '\n'); nl >= 0 {
			end = start + nl
		}
		text := strings.TrimSpace(l.body[start:end])
		// A heading that holds the placeholder counts as its own. A setext heading's text is
		// the line above its underline: the placeholder on that line is under it already.
		switch {
		case l.code.Code(text):
			l.para = false
		case text == "":
			l.para = false
		case l.para && SetextLevel(text) > 0:
			l.heading = strings.Clone(clip(l.last, 80))
			l.para = false
		case ATXHeading(text):
			l.heading = strings.Clone(clip(text, 80))
			l.para = false
		default:
			l.para, l.last = ParagraphLine(text), text
		}
		l.line++
		l.lineEnd = end
	}
	return PlaceholderUse{Line: l.line, Heading: l.heading}
}

// ArgumentError is a Render call whose values do not fit the body's placeholders. Both lists
// are sorted and name every offending argument, so one error tells the caller everything to fix.
type ArgumentError struct {
	Missing []string // required arguments without a value
	Unknown []string // values for names the body does not use
}

func (e *ArgumentError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "missing required "+plural("argument", len(e.Missing))+" "+quoteList(e.Missing))
	}
	if len(e.Unknown) > 0 {
		parts = append(parts, "unknown "+plural("argument", len(e.Unknown))+" "+quoteList(e.Unknown))
	}
	return "promptlib: " + strings.Join(parts, "; ")
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// CheckArguments reports, as an *ArgumentError, the required arguments values lacks and the
// values no placeholder uses; nil if there are none. An empty value is a value here: for an
// optional argument Render then uses the default (clients tend to send every declared argument,
// with "" for those the user skipped), for a required one it renders empty.
func CheckArguments(args []Placeholder, values map[string]string) error {
	var e ArgumentError
	known := make(map[string]bool, len(args))
	for _, a := range args {
		known[a.Name] = true
		if _, ok := values[a.Name]; a.Required && !ok {
			e.Missing = append(e.Missing, a.Name)
		}
	}
	for name := range values {
		if !known[name] {
			e.Unknown = append(e.Unknown, name)
		}
	}
	if len(e.Missing) == 0 && len(e.Unknown) == 0 {
		return nil
	}
	sort.Strings(e.Missing)
	sort.Strings(e.Unknown)
	return &e
}

// Render replaces every placeholder of body by its value, in one pass: a value is copied as
// typed and never scanned again, so a value holding "{{x}}" stays "{{x}}". An optional argument
// without a value (or with "") takes its default. A missing required argument or a value for a
// name the body does not use is an *ArgumentError naming all of them.
func Render(body string, values map[string]string) (string, error) {
	toks := scan(body)
	args := placeholders(body, toks)
	if err := CheckArguments(args, values); err != nil {
		return "", err
	}
	if len(toks) == 0 {
		return body, nil
	}
	byName := make(map[string]*Placeholder, len(args))
	for i := range args {
		byName[args[i].Name] = &args[i]
	}
	var b strings.Builder
	b.Grow(len(body))
	last := 0
	for _, t := range toks {
		b.WriteString(body[last:t.start])
		// Every use of a name renders the same: an optional argument that was omitted (or sent
		// empty) takes the first default written, a required one is always given.
		p := byName[t.name]
		v, ok := values[t.name]
		if !p.Required && (!ok || v == "") {
			v = p.Default
		}
		b.WriteString(v)
		last = t.end
	}
	b.WriteString(body[last:])
	return b.String(), nil
}
