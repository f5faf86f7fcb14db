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
		out = sp.groupBySize(out, items[len(items)-1].valEnd, func(a, b int) string {
			if array {
				return "[" + strconv.Itoa(a) + "–" + strconv.Itoa(b) + "]"
			}
			return "keys " + clip(strconv.Quote(items[a].key), 30) + " … " + clip(strconv.Quote(items[b].key), 30)
		})
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
