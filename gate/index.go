package gate

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

// MaxIndexLine is the longest index line, in characters.
const MaxIndexLine = 100

// Entry is one prompt in an index: its Doc and the priority the project gives it. The Doc is
// the caller's (NewIndex): at 10k prompts a copy of each was 2 MB more.
type Entry struct {
	*Doc
	Priority int // 1..10, from the project's priorities, else 5
}

// Index is the prompt index of one library snapshot seen through one project: the Docs of the
// visible prompts, their priorities, and an inverted index of their terms for ranking. It is
// immutable once built and safe for concurrent use.
type Index struct {
	project  Project
	entries  []Entry // index order: priority descending, then name
	byID     map[string]int
	byName   map[string]int
	postings map[term][]posting
	avgLen   [numFields]float64
	synonyms synonymTable
	topics   []string // the project's vocabulary: frequent heading words, for the index text
	unknown  []string

	foldersOnce sync.Once
	folders     map[string]bool // folderNames

	folderKeysOnce sync.Once
	folderKeys     map[string]bool // namesFolder
}

// posting is one document's counts of one term.
type posting struct {
	doc int32
	fieldCounts
}

// NewIndex builds the index of a project from the Docs of the prompts it sees (LibraryIndex
// shows how they are made). Priorities and synonyms come from p. It is cheap next to NewDoc: a
// caller that keeps the Docs of unchanged prompts rebuilds the index after an edit in
// milliseconds. docs is not modified, and is retained: the caller must not modify it either.
func NewIndex(docs []Doc, p Project) *Index {
	if p.Priorities == nil {
		p.Priorities = map[string]int{}
	}
	ix := &Index{project: p, entries: make([]Entry, len(docs)), synonyms: newSynonyms(p.Synonyms)}
	for i, d := range docs {
		ix.entries[i] = Entry{Doc: &docs[i], Priority: p.Priority(d.Name)}
	}
	sort.Slice(ix.entries, func(i, j int) bool {
		a, b := &ix.entries[i], &ix.entries[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	ix.byID = make(map[string]int, len(docs))
	ix.byName = make(map[string]int, len(docs))
	n := 0
	for i := range ix.entries {
		e := &ix.entries[i]
		ix.byID[promptlib.Key(e.ID)] = i
		ix.byName[e.Name] = i
		n += len(e.terms)
		for f := range numFields {
			ix.avgLen[f] += float64(e.lens[f])
		}
	}
	for f := range numFields {
		ix.avgLen[f] = max(ix.avgLen[f]/float64(max(len(docs), 1)), 1)
	}
	// Two passes over the terms: the first numbers each distinct term and counts its documents
	// (one map access per posting), the second fills one backing array through those numbers
	// (none), so the postings cost one allocation in all.
	ids := make(map[term]int32, n/4+1)
	var count []int32
	seq := make([]int32, 0, n) // the term number of every posting, in entry order
	for i := range ix.entries {
		for _, tf := range ix.entries[i].terms {
			id, ok := ids[tf.term()]
			if !ok {
				id = int32(len(count))
				ids[tf.term()] = id
				count = append(count, 0)
			}
			count[id]++
			seq = append(seq, id)
		}
	}
	start := make([]int32, len(count)+1)
	for id, c := range count {
		start[id+1] = start[id] + c
	}
	backing := make([]posting, n)
	next := slices.Clone(start[:len(count)])
	k := 0
	for i := range ix.entries {
		for _, tf := range ix.entries[i].terms {
			id := seq[k]
			k++
			backing[next[id]] = posting{doc: int32(i), fieldCounts: tf.counts()}
			next[id]++
		}
	}
	ix.postings = make(map[term][]posting, len(count))
	for t, id := range ids {
		ix.postings[t] = backing[start[id]:start[id+1]:start[id+1]]
	}
	ix.topics = topics(ix.entries)
	for name := range p.Priorities {
		if _, ok := ix.byName[name]; !ok {
			ix.unknown = append(ix.unknown, name)
		}
	}
	sort.Strings(ix.unknown)
	return ix
}

// Project is the project the index was built for.
func (ix *Index) Project() Project { return ix.project }

// Len is the number of prompts in the index.
func (ix *Index) Len() int { return len(ix.entries) }

// Entries are the index's entries in index order (priority descending, then name). The slice is
// shared: callers must not modify it.
func (ix *Index) Entries() []Entry { return ix.entries }

// Entry finds an entry by prompt id, in either case.
func (ix *Index) Entry(id string) (Entry, bool) {
	i, ok := ix.byID[promptlib.Key(id)]
	if !ok {
		return Entry{}, false
	}
	return ix.entries[i], true
}

// ByName finds an entry by prompt name.
func (ix *Index) ByName(name string) (Entry, bool) {
	i, ok := ix.byName[name]
	if !ok {
		return Entry{}, false
	}
	return ix.entries[i], true
}

// UnknownPriorities lists the names in the project's priorities that match no prompt in the
// index, sorted, so the caller can log a typo instead of silently ignoring it.
func (ix *Index) UnknownPriorities() []string { return ix.unknown }

// Topics is the project's vocabulary as the index text shows it: the words of its headings
// that the most prompts share (but not most of them), so an assistant picks tags that exist.
func (ix *Index) Topics() []string { return ix.topics }

// Lines is the index as the instructions show it, at most limit lines of Entry.Line: every
// prompt when there are at most limit, otherwise the first limit in index order (priority
// descending, then name), so the most important prompts are always named. A limit below 1
// lists nothing.
func (ix *Index) Lines(limit int) []string {
	var lines []string
	for _, i := range pick(ix.entries, limit, nil) {
		lines = append(lines, ix.entries[i].Line())
	}
	return lines
}

// pick applies the index cap to the entries that skip does not exclude (entries are in index
// order): the first limit of them. It returns their positions.
func pick(entries []Entry, limit int, skip func(i int) bool) []int {
	if limit < 1 {
		return nil
	}
	out := make([]int, 0, min(len(entries), limit))
	for i := range entries {
		if len(out) == limit {
			break
		}
		if skip != nil && skip(i) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// maxTopics is how many vocabulary words the index text shows.
const maxTopics = 40

// topics picks the heading words shared by the most prompts, skipping words in more than half
// of them (they tell prompts apart no better than "the"). Each stem is shown in its most common
// spelling.
func topics(entries []Entry) []string {
	type count struct {
		docs     int
		spelling map[string]int
	}
	byStem := map[term]*count{}
	for i := range entries {
		for _, w := range entries[i].topicWords {
			c := byStem[w.stem]
			if c == nil {
				c = &count{spelling: map[string]int{}}
				byStem[w.stem] = c
			}
			c.spelling[w.spelling] += int(w.n)
			c.docs++
		}
	}
	type topic struct {
		word string
		docs int
	}
	var all []topic
	for _, c := range byStem {
		if c.docs < 2 && len(entries) > 10 || c.docs*2 > len(entries) && len(entries) > 4 {
			continue
		}
		best, n := "", -1
		for w, k := range c.spelling {
			if k > n || k == n && w < best {
				best, n = w, k
			}
		}
		all = append(all, topic{best, c.docs})
	}
	slices.SortFunc(all, func(a, b topic) int {
		if a.docs != b.docs {
			return b.docs - a.docs
		}
		return strings.Compare(a.word, b.word)
	})
	var out []string
	for _, t := range all[:min(len(all), maxTopics)] {
		out = append(out, t.word)
	}
	sort.Strings(out)
	return out
}

// topicFiller are heading words that every kind of prompt uses.
var topicFiller = setOf(`overview summary rules rule example examples notes note why what how when
	checklist steps step guide guidelines context background purpose scope see references
	introduction details usage good bad avoid instead never always todo`)

// Chapters lists the markdown headings of a body (promptlib.Headings: "## Title", or "Title"
// over "---"), in order, with emphasis, code marks and link targets removed. Lines inside
// fenced code blocks are not headings: a shell comment is not a chapter.
func Chapters(body string) []string {
	var out []string
	promptlib.Headings(body, func(h promptlib.Heading) bool {
		if text := headingText(h.Line); text != "" {
			out = append(out, text)
		}
		return true
	})
	return out
}

// headingText is the text of an ATX heading line (already trimmed), or "" when the line is not
// a heading.
func headingText(t string) string {
	level := len(t) - len(strings.TrimLeft(t, "#"))
	if level > 6 {
		return ""
	}
	rest := t[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "" // "#hashtag" is not a heading
	}
	rest = strings.TrimSpace(rest)
	// A closing run of '#' preceded by a space is not part of the text.
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest && (trimmed == "" || strings.HasSuffix(trimmed, " ") || strings.HasSuffix(trimmed, "\t")) {
		rest = strings.TrimSpace(trimmed)
	}
	if strings.ContainsAny(rest, "*_`~[") {
		rest = headingMark.ReplaceAllString(rest, "$1")
	}
	return strings.Join(strings.Fields(rest), " ")
}

var headingMark = regexp.MustCompile("[*_`~]+|!?\\[([^\\]]*)\\]\\([^)]*\\)")

// clip cuts s to at most n characters, at a word boundary when one is near, marking the cut
// with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}
