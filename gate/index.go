package gate

import (
	"regexp"
	"sort"
	"strings"
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
	Title      string   //
	Summary    string   // promptlib.Summary of the content
	Priority   int      // 1..10, from the project's priorities, else 5
	Chapters   []string // the content's markdown headings, in order, markup removed
	FolderPath string   // "A / B"; "" at the top level
	Bytes      int      // len(Content)
	Content    string

	// hay holds the matched fields in folded form (see fold), computed once so matching a
	// 10k-prompt index costs only substring searches.
	hay [numFields]string
}

// The fields a tag is searched in; each counts at most one hit per tag.
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
	byID    map[string]int
	byName  map[string]int
	unknown []string
}

// NewIndex builds the index of a library snapshot for a project: the prompts in the project's
// folder subtree (the whole library without a folder), minus the SystemFolder's, with names,
// summaries, chapters and priorities. The only error is a project folder that is not in the
// library (ErrNoFolder).
func NewIndex(lib promptlib.Library, p Project) (*Index, error) {
	if p.Priorities == nil {
		p.Priorities = map[string]int{}
	}
	var scope map[string]bool
	if p.Folder != "" {
		root, err := ResolveFolder(lib.Folders, p.Folder)
		if err != nil {
			return nil, err
		}
		scope = subtree(lib.Folders, root)
	}
	system := systemFolders(lib.Folders)
	paths := FolderPaths(lib.Folders)

	// Names are given over every prompt in scope, system prompts included, so they agree with
	// the MCP prompt names the server gives the same set.
	inScope := make([]promptlib.Prompt, 0, len(lib.Prompts))
	for _, pr := range lib.Prompts {
		if scope == nil || (pr.FolderID != nil && scope[*pr.FolderID]) {
			inScope = append(inScope, pr)
		}
	}
	names := promptlib.Names(inScope)

	ix := &Index{project: p, entries: make([]Entry, 0, len(inScope))}
	for _, pr := range inScope {
		folder := ""
		if pr.FolderID != nil {
			if system[*pr.FolderID] {
				continue
			}
			folder = paths[*pr.FolderID]
		}
		e := Entry{
			ID:         pr.ID,
			Name:       names[pr.ID],
			Title:      pr.Title,
			Summary:    promptlib.Summary(pr.Content),
			Chapters:   Chapters(pr.Content),
			FolderPath: folder,
			Bytes:      len(pr.Content),
			Content:    pr.Content,
		}
		e.Priority = p.Priority(e.Name)
		e.hay = [numFields]string{
			fieldName:     fold(e.Name),
			fieldTitle:    fold(e.Title),
			fieldSummary:  fold(e.Summary),
			fieldChapters: fold(strings.Join(e.Chapters, "\n")),
			fieldFolder:   fold(e.FolderPath),
		}
		ix.entries = append(ix.entries, e)
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

var (
	heading     = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	headingMark = regexp.MustCompile("[*_`~]+|!?\\[([^\\]]*)\\]\\([^)]*\\)")
)

// Chapters lists the markdown headings of a body, in order, with markup removed. Lines inside
// fenced code blocks are not headings (a shell comment is not a chapter).
func Chapters(body string) []string {
	var out []string
	fence := ""
	for line := range strings.Lines(body) {
		line = strings.TrimRight(line, "\r\n")
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
		if fence != "" || !strings.Contains(line, "#") {
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		h := headingMark.ReplaceAllStringFunc(m[1], func(s string) string {
			if sm := headingMark.FindStringSubmatch(s); sm[1] != "" {
				return sm[1]
			}
			return ""
		})
		if h = strings.Join(strings.Fields(h), " "); h != "" {
			out = append(out, h)
		}
	}
	return out
}

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
