package pipeline

import (
	"strconv"
	"strings"
)

// A small JSON scanner that reports byte offsets, which encoding/json does not. It is only run on
// text json.Valid has accepted, so it need not report errors; on anything unexpected it stops at
// the end of the text rather than loop.

func skipWS(t string, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset just past the string starting at t[i] == '"'.
func stringEnd(t string, i int) int {
	for i++; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(t)
}

// valueEnd returns the offset just past the value starting at t[i].
func valueEnd(t string, i int) int {
	if i >= len(t) {
		return len(t)
	}
	switch t[i] {
	case '"':
		return stringEnd(t, i)
	case '{', '[':
		depth := 0
		for ; i < len(t); i++ {
			switch t[i] {
			case '"':
				i = stringEnd(t, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(t)
	default:
		for ; i < len(t); i++ {
			switch t[i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return i
			}
		}
		return len(t)
	}
}

// jsonItem is one element of an array or member of an object.
type jsonItem struct {
	start            int    // the key's quote for a member, the value for an element
	key              string // a member's key, unquoted
	valStart, valEnd int
}

// jsonItems lists the items of the container starting at t[s] ('{' or '[').
func jsonItems(t string, s int) []jsonItem {
	var items []jsonItem
	eachItem(t, s, func(it jsonItem) bool { items = append(items, it); return true })
	return items
}

// eachItem calls fn with each item of the container starting at t[s] until fn returns false,
// without allocating: summaries scan thousands of objects.
func eachItem(t string, s int, fn func(jsonItem) bool) {
	object := t[s] == '{'
	i := skipWS(t, s+1)
	for i < len(t) && t[i] != '}' && t[i] != ']' {
		it := jsonItem{start: i}
		if object {
			ke := stringEnd(t, i)
			it.key = unquote(t[i:ke])
			i = skipWS(t, ke)
			if i < len(t) && t[i] == ':' {
				i = skipWS(t, i+1)
			}
		}
		it.valStart = i
		it.valEnd = valueEnd(t, i)
		if it.valEnd <= i { // malformed; stop rather than spin
			return
		}
		if !fn(it) {
			return
		}
		i = skipWS(t, it.valEnd)
		if i < len(t) && t[i] == ',' {
			i = skipWS(t, i+1)
		}
	}
}

func unquote(q string) string {
	if len(q) >= 2 && strings.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1] // no escapes: a substring, no allocation
	}
	if s, err := strconv.Unquote(q); err == nil {
		return s
	}
	return strings.Trim(q, `"`)
}

// jsonKind names the kind of the value starting at t[i].
func jsonKind(t string, i int) string {
	if i >= len(t) {
		return "null"
	}
	switch t[i] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// hintKeys are member names whose value identifies an object well enough to title it.
var hintKeys = []string{"name", "title", "id", "key", "slug", "path", "url", "uri"}

// jsonHint returns a short identifying label for an object value, `name="alpha"`, or "".
func jsonHint(t string, it jsonItem) string {
	if t[it.valStart] != '{' {
		return ""
	}
	best, hint := len(hintKeys), ""
	eachItem(t, it.valStart, func(m jsonItem) bool {
		for rank, k := range hintKeys[:best] {
			if m.key == k {
				if kind := jsonKind(t, m.valStart); kind == "string" || kind == "number" {
					best, hint = rank, k+"="+clip(t[m.valStart:m.valEnd], 40)
				}
				break
			}
		}
		return best > 0
	})
	return hint
}

// splitJSON splits the JSON value in t (already checked by json.Valid).
func (sp *splitter) splitJSON(t string) []Section {
	i := skipWS(t, 0)
	if i >= len(t) || (t[i] != '{' && t[i] != '[') {
		return nil
	}
	return sp.jsonContainer(t, i, 0)
}

// jsonContainer makes the sections of the container at t[s]: one per item, grouped into
// ranges when there are more than maxSections, and items over maxBytes split in turn.
func (sp *splitter) jsonContainer(t string, s, depth int) []Section {
	items := jsonItems(t, s)
	array := t[s] == '['
	out := make([]Section, 0, len(items))
	var title strings.Builder
	for n, it := range items {
		sec := Section{Start: it.start, Kind: KindJSONMember, ValueStart: it.valStart}
		if array {
			sec.Kind = KindJSONElement
			title.Reset()
			title.WriteByte('[')
			title.WriteString(strconv.Itoa(n))
			title.WriteByte(']')
			if h := jsonHint(t, it); h != "" {
				title.WriteByte(' ')
				title.WriteString(h)
			}
			sec.Title = title.String()
		} else {
			sec.Title = clip(strconv.Quote(it.key), 60)
		}
		if c := t[it.valStart]; (c == '{' || c == '[') && it.valEnd-it.valStart > sp.maxBytes && depth < maxDepth {
			sec.Children = sp.jsonContainer(t, it.valStart, depth+1)
		}
		out = append(out, sec)
	}
	if len(out) > sp.maxSections {
		out = sp.groupJSON(t, items, out, func(a, b int) string {
			if array {
				return "[" + strconv.Itoa(a) + "–" + strconv.Itoa(b) + "]"
			}
			return "keys " + clip(strconv.Quote(items[a].key), 30) + " … " + clip(strconv.Quote(items[b].key), 30)
		})
	}
	return out
}

// rangeBytes is what a range of small JSON items holds at most: it fits read_section's
// 40,000 bytes whole, with room for what normalize adds at a container's ends (its key, its
// brackets), so one call reads it.
const rangeBytes = 32 << 10

// groupJSON groups a container's many items (secs, one per item) by bytes, then nests: runs of
// items of up to rangeBytes (less for a smaller container) become ranges, each read whole in one
// read_section call and each item still a child to drill into; an item larger than that
// stays itself. While there are more than maxSections ranges, runs of maxSections of them
// become ranges of ranges. Grouping once, by count, made a 3,000-element array six ranges of
// 500 tiny elements each: too large to read whole, so reading it took one call per element,
// 3,014 calls for 689 KB.
func (sp *splitter) groupJSON(t string, items []jsonItem, secs []Section, title func(a, b int) string) []Section {
	size := func(i int) int {
		if i+1 < len(items) {
			return items[i+1].start - items[i].start
		}
		return items[i].valEnd - items[i].start
	}
	// A container of 10 KB in one range would be no index at all: ranges are about a ninth of
	// it with 12 sections (packing leaves ranges part full, so aiming at maxSections would
	// give one more and a level of nesting), at least maxBytes, at most rangeBytes.
	total := items[len(items)-1].valEnd - items[0].start
	aim := max(2, sp.maxSections*3/4)
	budget := min(max((total+aim-1)/aim, sp.maxBytes), max(rangeBytes, sp.maxBytes))
	type span struct {
		sec  Section
		a, b int // the first and last item it holds
	}
	var level []span
	for a := 0; a < len(secs); {
		b, n := a, size(a)
		for b+1 < len(secs) && n+size(b+1) <= budget {
			b++
			n += size(b)
		}
		if a == b {
			level = append(level, span{secs[a], a, a})
		} else {
			level = append(level, span{Section{Start: secs[a].Start, Kind: KindRange, Title: title(a, b), Children: secs[a : b+1 : b+1]}, a, b})
		}
		a = b + 1
	}
	for depth := 0; len(level) > sp.maxSections && depth < maxDepth; depth++ {
		var up []span
		// Even runs: 13 ranges are 7 and 6, not 12 and 1.
		groups := (len(level) + sp.maxSections - 1) / sp.maxSections
		per := (len(level) + groups - 1) / groups
		for i := 0; i < len(level); i += per {
			run := level[i:min(i+per, len(level))]
			children := make([]Section, len(run))
			for j, r := range run {
				children[j] = r.sec
			}
			a, b := run[0].a, run[len(run)-1].b
			up = append(up, span{Section{Start: children[0].Start, Kind: KindRange, Title: title(a, b), Children: children}, a, b})
		}
		level = up
	}
	out := make([]Section, len(level))
	for i, r := range level {
		out[i] = r.sec
	}
	return out
}

// itemSections are the items under ss (JSON's, YAML's), through ranges of them at any depth.
func itemSections(ss []Section) []Section {
	if len(ss) == 0 || ss[0].Kind != KindRange {
		return ss
	}
	var out []Section
	for _, s := range ss {
		if s.Kind == KindRange {
			out = append(out, itemSections(s.Children)...)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// maxDepth bounds recursion into nested structure, so hostile input cannot exhaust the stack.
const maxDepth = 48

// groupRanges groups a long run of sections into at most max ranges of a round size, each a
// section whose children are its items; title names a range by its first and last index.
func groupRanges(items []Section, max int, kind string, title func(a, b int) string) []Section {
	size := niceSize((len(items) + max - 1) / max)
	var out []Section
	for a := 0; a < len(items); a += size {
		b := min(a+size, len(items))
		out = append(out, Section{Start: items[a].Start, Kind: kind, Title: title(a, b-1), Children: items[a:b:b]})
	}
	return out
}

// groupTitled is groupRanges for sections titled by what they hold (headings, declarations):
// a range is titled by its first and last sections' titles, and a range that would hold one
// section is that section, which keeps its own title and summary.
func groupTitled(items []Section, max int) []Section {
	out := groupRanges(items, max, KindRange, func(a, b int) string {
		return clip(items[a].Title, 36) + " … " + clip(items[b].Title, 36)
	})
	for i := range out {
		if len(out[i].Children) == 1 {
			out[i] = out[i].Children[0]
		}
	}
	return out
}

// niceSize rounds n up to 1, 2 or 5 times a power of ten, so ranges read [0–199], [200–399].
func niceSize(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}
