package gate

import (
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

// MaxIndexLine is the longest index line, in characters.
const MaxIndexLine = 100

// ImportantPriority is the lowest priority an index over its cap still lists.
const ImportantPriority = 7

// Entry is one prompt as the gate sees it. Entries are computed once per library snapshot.
type Entry struct {
	ID         string
	Name       string   // unique MCP prompt name (promptlib.Names over the project's prompts)
	Title      string   // as stored
	Summary    string   // promptlib.Summary of the content
	Priority   int      // 1..10, from the project's priorities, else 5
	Chapters   []string // the content's markdown headings, in order, markup removed
	FolderPath string   // "A / B"; "" at the top level
	Bytes      int      // len(Content)
	Content    string
}

// The fields a tag is searched in (see match.go); each counts at most one hit per tag.
const (
	fieldName = iota
	fieldTitle
	fieldSummary
	fieldChapters
	fieldFolder
	numFields
)

// Line is the entry's index line, "- name: summary", at most MaxIndexLine characters: a long
// summary is cut at a word and marked with "…".
func (e Entry) Line() string {
	head := "- " + e.Name
	if e.Summary == "" {
		return clip(head, MaxIndexLine)
	}
	room := MaxIndexLine - utf8.RuneCountInString(head) - 2
	if room < 8 { // a name so long no useful summary fits
		return clip(head, MaxIndexLine)
	}
	return head + ": " + clip(e.Summary, room)
}

// Index is the prompt index of one library snapshot seen through one project. It is immutable
// once built and safe for concurrent use.
type Index struct {
	project Project
	entries []Entry // index order: priority descending, then name
	// cols hold each matched field of every entry, folded (see fold) and concatenated in index
	// order, so a tag is found with one fast substring scan per field over the whole index
	// instead of one search per prompt.
	cols [numFields]column
	// rank is each entry's place in (title, id) order and byRank its inverse, so matching
	// sorts integers.
	rank    []int32
	byRank  []int32
	byID    map[string]int
	byName  map[string]int
	unknown []string
}

// NewIndex builds the index of a library snapshot for a project: the prompts in the project's
// folder subtree (the whole library without a folder), minus the SystemFolder's, with names,
// summaries, chapters and priorities. The only error is a project folder that is not in the
// library (ErrNoFolder).
func NewIndex(lib promptlib.Library, p Project) (*Index, error) {
	return build(lib, p, nil)
}

// Update builds the index of a new snapshot of the library, as NewIndex does, reusing the
// summaries and chapters of every prompt whose content has not changed since ix was built (the
// costly part). ix is left as it was; a nil ix builds from scratch.
func (ix *Index) Update(lib promptlib.Library, p Project) (*Index, error) {
	return build(lib, p, ix)
}

func build(lib promptlib.Library, p Project, prev *Index) (*Index, error) {
	if p.Priorities == nil {
		p.Priorities = map[string]int{}
	}
	scope, err := FolderScope(lib.Folders, p)
	if err != nil {
		return nil, err
	}
	system := systemFolders(lib.Folders)
	paths := FolderPaths(lib.Folders)

	// Names are given over the prompts in scope without the system folder's, the same set the
	// server serves as MCP prompts, so a name means the same prompt in a briefing, in
	// priorities and as a slash command.
	inScope := make([]promptlib.Prompt, 0, len(lib.Prompts))
	for _, pr := range lib.Prompts {
		if pr.FolderID != nil && system[promptlib.Key(*pr.FolderID)] {
			continue
		}
		if scope == nil || (pr.FolderID != nil && scope[promptlib.Key(*pr.FolderID)]) {
			inScope = append(inScope, pr)
		}
	}
	names := promptlib.Names(inScope)

	ix := &Index{project: p, entries: make([]Entry, 0, len(inScope))}
	var todo []int // entries whose summary and chapters must be computed
	for _, pr := range inScope {
		folder := ""
		if pr.FolderID != nil {
			if system[promptlib.Key(*pr.FolderID)] {
				continue
			}
			folder = paths[promptlib.Key(*pr.FolderID)]
		}
		e := Entry{
			ID:         pr.ID,
			Name:       names[pr.ID],
			Title:      pr.Title,
			FolderPath: folder,
			Bytes:      len(pr.Content),
			Content:    pr.Content,
			Priority:   p.Priority(names[pr.ID]),
		}
		if old, ok := prev.lookup(pr.ID); ok && old.Content == pr.Content {
			e.Summary, e.Chapters = old.Summary, old.Chapters
		} else {
			todo = append(todo, len(ix.entries))
		}
		ix.entries = append(ix.entries, e)
	}
	derive(ix.entries, todo)
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
	ix.cols = newColumns(ix.entries, prev)
	byTitle := make([]int32, len(ix.entries))
	for i := range byTitle {
		byTitle[i] = int32(i)
	}
	slices.SortFunc(byTitle, func(a, b int32) int {
		ea, eb := &ix.entries[a], &ix.entries[b]
		if c := strings.Compare(ea.Title, eb.Title); c != 0 {
			return c
		}
		return strings.Compare(ea.ID, eb.ID)
	})
	ix.rank = make([]int32, len(ix.entries))
	for r, i := range byTitle {
		ix.rank[i] = int32(r)
	}
	ix.byRank = byTitle
	ix.byID = make(map[string]int, len(ix.entries))
	ix.byName = make(map[string]int, len(ix.entries))
	for i, e := range ix.entries {
		ix.byID[e.ID] = i
		ix.byName[e.Name] = i
	}
	for name := range p.Priorities {
		if _, ok := ix.byName[name]; !ok {
			ix.unknown = append(ix.unknown, name)
		}
	}
	sort.Strings(ix.unknown)
	return ix, nil
}

// derive computes the summary and chapters of the listed entries. They cost most of a build
// (promptlib.Summary runs regular expressions and sentence segmentation), so large builds are
// spread over the CPUs; the workers are waited for before derive returns.
func derive(entries []Entry, todo []int) {
	do := func(part []int) {
		for _, i := range part {
			e := &entries[i]
			e.Summary, e.Chapters = promptlib.Summary(e.Content), Chapters(e.Content)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo)/512+1)
	if workers <= 1 {
		do(todo)
		return
	}
	var wg sync.WaitGroup
	size := (len(todo) + workers - 1) / workers
	for part := range slices.Chunk(todo, size) {
		wg.Go(func() { do(part) })
	}
	wg.Wait()
}

// lookup finds an entry by id in a possibly nil index.
func (ix *Index) lookup(id string) (*Entry, bool) {
	if ix == nil {
		return nil, false
	}
	i, ok := ix.byID[id]
	if !ok {
		return nil, false
	}
	return &ix.entries[i], true
}

// Project is the project the index was built for.
func (ix *Index) Project() Project { return ix.project }

// Len is the number of prompts in the index.
func (ix *Index) Len() int { return len(ix.entries) }

// Entries are the index's entries in index order (priority descending, then name). The slice is
// shared: callers must not modify it.
func (ix *Index) Entries() []Entry { return ix.entries }

// Entry finds an entry by prompt id.
func (ix *Index) Entry(id string) (Entry, bool) {
	i, ok := ix.byID[id]
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

// field is one of an entry's matched fields, unfolded. Chapters are searched as one field, one
// heading a line (no tag holds a newline, so a match never spans two headings).
func (e *Entry) field(f int) string {
	switch f {
	case fieldName:
		return e.Name
	case fieldTitle:
		return e.Title
	case fieldSummary:
		return e.Summary
	case fieldChapters:
		return strings.Join(e.Chapters, "\n")
	default:
		return e.FolderPath
	}
}

// column is one field of every entry, folded. Entries often share a value (a folder path, the
// same headings), so each distinct value is stored once: text holds the distinct values, each
// followed by a NUL (which no tag holds, so no match spans two values); starts[v] is where value
// v begins and starts[len] is len(text); of[i] is entry i's value.
type column struct {
	text   string
	starts []int32
	of     []int32
}

// newColumns builds the five columns, each on its own goroutine: they share nothing, and on a
// rebuild they are most of the work. A column whose values are those of prev's, entry for entry
// (an edit usually changes one prompt's summary and chapters, not every name and folder), is
// reused as is. All are done when it returns.
func newColumns(entries []Entry, prev *Index) [numFields]column {
	var cols [numFields]column
	var wg sync.WaitGroup
	for f := range cols {
		wg.Go(func() {
			if prev != nil && sameField(prev.entries, entries, f) {
				cols[f] = prev.cols[f]
				return
			}
			cols[f] = newColumn(entries, f)
		})
	}
	wg.Wait()
	return cols
}

func sameField(a, b []Entry, f int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if f == fieldChapters {
			if !slices.Equal(a[i].Chapters, b[i].Chapters) {
				return false
			}
		} else if a[i].field(f) != b[i].field(f) {
			return false
		}
	}
	return true
}

func newColumn(entries []Entry, field int) column {
	var b strings.Builder
	c := column{of: make([]int32, len(entries))}
	ids := make(map[string]int32, len(entries)) // keyed by the unfolded value: equal values fold alike
	for i := range entries {
		v := entries[i].field(field)
		id, ok := ids[v]
		if !ok {
			id = int32(len(c.starts))
			ids[v] = id
			c.starts = append(c.starts, int32(b.Len()))
			writeFolded(&b, v)
			b.WriteByte(0)
		}
		c.of[i] = id
	}
	c.starts = append(c.starts, int32(b.Len()))
	c.text = b.String()
	return c
}

// writeFolded writes fold(s) without building it first; most fields are ASCII.
func writeFolded(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			b.WriteString(fold(s[i:]))
			return
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '-' || c == '_':
			c = ' '
		}
		b.WriteByte(c)
	}
}

// addHits adds one to hits[i] for every entry i whose field contains tag (folded). hit is
// scratch space of at least one bool per distinct value, all false.
func (c *column) addHits(tag string, hits []int, hit []bool) {
	n := len(c.starts) - 1
	off, k, found := 0, 0, false
	for off < len(c.text) {
		j := strings.Index(c.text[off:], tag)
		if j < 0 {
			break
		}
		// The value holding the match: values are searched in order, so look from the last one on.
		k = c.valueAt(k, n, int32(off+j))
		hit[k], found = true, true
		off = int(c.starts[k+1]) // one hit per value: go on at the next one
	}
	if !found {
		return
	}
	for i, v := range c.of {
		if hit[v] {
			hits[i]++
		}
	}
	clear(hit[:n])
}

// valueAt finds the value holding pos, searching from value k on: gallop forward, then bisect.
func (c *column) valueAt(k, n int, pos int32) int {
	step := 1
	lo := k
	for lo+step < n && c.starts[lo+step] <= pos {
		lo += step
		step *= 2
	}
	hi := min(lo+step, n) // starts[hi] > pos, or hi == n
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if c.starts[mid] <= pos {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// UnknownPriorities lists the names in the project's priorities that match no prompt in the
// index, sorted, so the caller can log a typo instead of silently ignoring it.
func (ix *Index) UnknownPriorities() []string { return ix.unknown }

// Lines is the index as the instructions show it: every prompt when there are at most limit,
// otherwise only prompts of priority ≥ 7, highest first, still at most limit. Each line is
// Entry.Line. A limit below 1 lists nothing.
func (ix *Index) Lines(limit int) []string {
	var lines []string
	for _, i := range pick(ix.entries, limit, nil) {
		lines = append(lines, ix.entries[i].Line())
	}
	return lines
}

// pick applies the index cap to the entries that skip does not exclude (entries are in index
// order): all of them when they are at most limit, else the first limit of priority ≥ 7. It
// returns their positions.
func pick(entries []Entry, limit int, skip func(i int) bool) []int {
	if limit < 1 {
		return nil
	}
	n := 0
	for i := range entries {
		if skip == nil || !skip(i) {
			n++
		}
	}
	out := make([]int, 0, min(n, limit))
	for i := range entries {
		if len(out) == limit {
			break
		}
		if skip != nil && skip(i) {
			continue
		}
		if n > limit && entries[i].Priority < ImportantPriority {
			break // index order: nothing important follows
		}
		out = append(out, i)
	}
	return out
}

// Chapters lists the markdown headings of a body (ATX: "#" to "######" then a space), in order,
// with emphasis, code marks and link targets removed. Lines inside fenced code blocks are not
// headings: a shell comment is not a chapter.
func Chapters(body string) []string {
	var out []string
	fence := ""
	for line := range strings.Lines(body) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			continue
		}
		if fence != "" || !strings.HasPrefix(t, "#") || len(line)-len(strings.TrimLeft(line, " ")) > 3 {
			continue
		}
		if h := headingText(t); h != "" {
			out = append(out, h)
		}
	}
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
