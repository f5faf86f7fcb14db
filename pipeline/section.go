package pipeline

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Section is a byte range of the original content, with a title and perhaps children. The
// children of a section cover exactly its range, in order, so the leaves of a section tree read
// in order give the original back.
type Section struct {
	ID    string // dotted position in the tree, "3.12"; set by the Engine
	Title string // a short label: a heading, a key, "[200–399]", a signature
	Start int    // byte offset in the original, inclusive
	End   int    // byte offset in the original, exclusive
	Kind  string // what the range holds, for summaries: see the kind constants
	// ValueStart is, for a JSON element or member, the offset where its value starts (after
	// the key and colon, and after the container's opening bracket for a first item); 0
	// otherwise.
	ValueStart int
	Children   []Section // nil for a leaf
}

// Section kinds.
const (
	KindJSONElement = "json-element" // one element of a JSON array, with its separator
	KindJSONMember  = "json-member"  // one "key": value of a JSON object, with its separator
	KindRange       = "range"        // a run of array elements, object members, items, declarations or headings
	KindYAML        = "yaml"         // a key or item of a YAML document
	KindHeading     = "heading"      // a markdown heading and what follows it
	KindCode        = "code"         // a declaration in source code
	KindProse       = "prose"        // paragraphs
	KindLines       = "lines"        // lines of text with no structure we know
	KindPage        = "page"         // a page of paginate
	KindIntro       = "intro"        // what stands before a section's first child
	KindPreamble    = "preamble"     // a short text in front of a JSON document
	KindFile        = "file"         // one file of several in one text, under its path
)

// Bytes is the section's size in bytes.
func (s Section) Bytes() int { return s.End - s.Start }

// Text returns the section's exact bytes of original.
func (s Section) Text(original string) string { return original[s.Start:s.End] }

// SectionInfo is a section as programs see it: in `_meta["mcpctl/sections"]` and in
// `mcpctl pipeline run --json`. Leaves have no Children.
type SectionInfo struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Bytes    int           `json:"bytes"`
	Children []SectionInfo `json:"children,omitempty"`
	// Parts is, for a section whose children were left out (InfosWithin), how many it has;
	// read_section on the section lists them.
	Parts int `json:"parts,omitempty"`
}

// Infos converts a section tree to its program form.
func Infos(sections []Section) []SectionInfo {
	if len(sections) == 0 {
		return nil
	}
	out := make([]SectionInfo, len(sections))
	for i, s := range sections {
		out[i] = SectionInfo{ID: s.ID, Title: s.Title, Bytes: s.Bytes(), Children: Infos(s.Children)}
	}
	return out
}

// InfosWithin converts a section tree to its program form level by level, as deep as the
// sections down to that level number at most n (the top level alone is cut at n). A section
// whose children are left out carries their number in Parts, and omitted counts every section
// left out. A 20,000-element JSON array is a few ranges of ranges of elements: its whole tree
// is over 20,000 sections (880 KB of JSON) where its index shows a few lines.
func InfosWithin(sections []Section, n int) (infos []SectionInfo, omitted int) {
	depth := 1
	for shown := countTo(sections, 1); ; depth++ {
		deeper := countTo(sections, depth+1)
		if deeper == shown || deeper > n {
			break
		}
		shown = deeper
	}
	top := sections
	if len(top) > n {
		top = top[:n]
	}
	return infosTo(top, depth), countAll(sections) - countTo(top, depth)
}

func infosTo(sections []Section, depth int) []SectionInfo {
	out := make([]SectionInfo, len(sections))
	for i, s := range sections {
		out[i] = SectionInfo{ID: s.ID, Title: s.Title, Bytes: s.Bytes()}
		if depth > 1 {
			out[i].Children = infosTo(s.Children, depth-1)
		} else {
			out[i].Parts = len(s.Children)
		}
	}
	return out
}

// TableLine is a section's line in a table of contents: its id, title, size and, when it has
// sub-sections, how many. The footer of an index and read_section's table of a section's
// sub-sections both use it, so a model sees one form.
func TableLine(s Section) string {
	line := fmt.Sprintf("- %s %s (%s", s.ID, s.Title, HumanBytes(s.Bytes()))
	if len(s.Children) > 0 {
		line += fmt.Sprintf(", %d parts", len(s.Children))
	}
	return line + ")"
}

// Leaves returns the leaves of a section tree, in order.
func Leaves(sections []Section) []Section {
	var out []Section
	var walk func([]Section)
	walk = func(ss []Section) {
		for _, s := range ss {
			if len(s.Children) == 0 {
				out = append(out, s)
			} else {
				walk(s.Children)
			}
		}
	}
	walk(sections)
	return out
}

// Find returns the section with the given id.
func Find(sections []Section, id string) (Section, bool) {
	for _, s := range sections {
		if s.ID == id {
			return s, true
		}
		if strings.HasPrefix(id, s.ID+".") {
			return Find(s.Children, id)
		}
	}
	return Section{}, false
}

// ids lists every id of a tree in order, for error messages.
func ids(sections []Section) []string {
	var out []string
	for _, s := range sections {
		out = append(out, s.ID)
		out = append(out, ids(s.Children)...)
	}
	return out
}

// assignIDs numbers a tree: "1", "2", ... at the top, "2.1", "2.2" below. The ids are cut from
// one string, so numbering thousands of sections costs one allocation.
func assignIDs(sections []Section, prefix string) {
	var buf []byte
	var ends []int
	var gather func(ss []Section, prefix []byte)
	gather = func(ss []Section, prefix []byte) {
		for i := range ss {
			start := len(buf)
			buf = append(buf, prefix...)
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			ends = append(ends, len(buf))
			if len(ss[i].Children) > 0 {
				gather(ss[i].Children, append(buf[start:len(buf):len(buf)], '.'))
			}
		}
	}
	gather(sections, []byte(prefix))
	all := string(buf)
	n, start := 0, 0
	var set func(ss []Section)
	set = func(ss []Section) {
		for i := range ss {
			ss[i].ID = all[start:ends[n]]
			start = ends[n]
			n++
			set(ss[i].Children)
		}
	}
	set(sections)
}

// normalize makes a tree tile [lo, hi) of text exactly: sections are sorted by their given
// order, out-of-range or overlapping ones dropped, the first stretched back to lo, each one
// stretched forward to where the next starts and the last to hi, and every boundary moved back
// to the start of a UTF-8 sequence. Sections left empty are dropped; a section with a single
// child takes the child's children. Splitters therefore only need to say where things start.
func normalize(text string, sections []Section, lo, hi int) []Section {
	var out []Section
	for _, s := range sections {
		s.Start = max(runeStart(text, s.Start), lo)
		if s.Start >= hi || (len(out) > 0 && s.Start <= out[len(out)-1].Start) {
			continue // outside the range, or overlapping its predecessor
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	out[0].Start = lo
	for i := range out {
		if i+1 < len(out) {
			out[i].End = out[i+1].Start
		} else {
			out[i].End = hi
		}
		if len(out[i].Children) > 0 {
			out[i].Children = normalize(text, out[i].Children, out[i].Start, out[i].End)
			if len(out[i].Children) == 1 {
				out[i].Children = out[i].Children[0].Children
			}
		}
	}
	return out
}

// runeStart moves i back to the start of the UTF-8 sequence holding it.
func runeStart(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if i < 0 {
		return 0
	}
	for j := 0; i > 0 && j < utf8.UTFMax-1 && !utf8.RuneStart(text[i]); j++ {
		i--
	}
	return i
}

// HumanBytes renders a size for a table of contents: "812 B", "12.4 KB", "1.3 MB".
func HumanBytes(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1000_000)
	}
}

// clip shortens s to at most n bytes on a rune boundary, one line, marking the cut with "…".
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:runeStart(s, n-3)]) + "…"
}
