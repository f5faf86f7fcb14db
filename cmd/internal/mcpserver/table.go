package mcpserver

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib"
)

// promptTable holds a snapshot's prompts in a compact form: every string in one text, fixed
// size records that point into it, in name order, and an index by id. At 100k prompts a
// pointer-rich form (a struct, an mcp.Prompt and map entries per prompt) held ~150 MB; this one
// holds ~25 MB, which the GC scans in no time since it has no pointers per prompt.
type promptTable struct {
	text      string
	recs      []promptRec // in name order
	summaries summaryStore
	byID      []int32    // indexes into recs, in promptlib.Key(id) order
	folders   stringList // the folder ids recs refer to; 0 in a record is the top level
	argSets   stringList // encoded argument lists (encodeArgs); 0 in a record is none
}

// stringList is a list of strings kept as one: no allocation per item to make or to read back.
type stringList struct {
	text string
	ends []uint32
}

func (l *stringList) len() int { return len(l.ends) }

func (l *stringList) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// promptRec is one prompt: its strings lie in text from off on, one after another, in the
// order id, name, title; its summary is the same index in summaries.
type promptRec struct {
	off, title   uint32
	id, name     uint16
	sumHash      uint32 // of the summary: what list_changed compares
	folder, args uint32 // 1+index into folders and argSets; 0 for none
	bucket       uint32 // the library bucket its row is in (bucketOf)
	hash         uint64 // what the prompt was built from (view.hash)
	created      int64  // created_at in Unix microseconds: who keeps a name on a clash (NameEach)
}

// servedPrompt is one visible library prompt, as an MCP prompt and resource. Its strings point
// into the table's text: holding one keeps the whole text alive, so keep them only as long as
// a request lasts.
type servedPrompt struct {
	id, name, title string
	summary         string // only from listed
	sumHash         uint32
	folderID        string // "" at the top level
	hash            uint64
	bucket          uint32
	argSet          string // encodeArgs of its arguments
	created         int64  // created_at in Unix microseconds (promptRec.created)
}

func (t *promptTable) len() int { return len(t.recs) }

// at is the i-th prompt in name order.
func (t *promptTable) at(i int) servedPrompt {
	r := &t.recs[i]
	p := servedPrompt{hash: r.hash, bucket: r.bucket, sumHash: r.sumHash, created: r.created}
	at := r.off
	next := func(n uint32) string {
		s := t.text[at : at+n]
		at += n
		return s
	}
	p.id, p.name, p.title = next(uint32(r.id)), next(uint32(r.name)), next(r.title)
	if r.folder != 0 {
		p.folderID = t.folders.at(int(r.folder - 1))
	}
	if r.args != 0 {
		p.argSet = t.argSets.at(int(r.args - 1))
	}
	return p
}

func (t *promptTable) compareNames(a, b promptRec) int {
	return strings.Compare(t.text[a.off+uint32(a.id):a.off+uint32(a.id)+uint32(a.name)], t.text[b.off+uint32(b.id):b.off+uint32(b.id)+uint32(b.name)])
}

func (t *promptTable) nameAt(i int) string {
	r := &t.recs[i]
	start := r.off + uint32(r.id)
	return t.text[start : start+uint32(r.name)]
}

func (t *promptTable) titleAt(i int) string {
	r := &t.recs[i]
	start := r.off + uint32(r.id) + uint32(r.name)
	return t.text[start : start+r.title]
}

func (t *promptTable) idAt(i int) string {
	r := &t.recs[i]
	return t.text[r.off : r.off+uint32(r.id)]
}

// after is the index of the first prompt whose name sorts after name.
func (t *promptTable) after(name string) int {
	return sort.Search(len(t.recs), func(k int) bool { return t.nameAt(k) > name })
}

// byName finds a prompt by its MCP name.
func (t *promptTable) byName(name string) (servedPrompt, bool) {
	i := sort.Search(len(t.recs), func(k int) bool { return t.nameAt(k) >= name })
	if i == len(t.recs) || t.nameAt(i) != name {
		return servedPrompt{}, false
	}
	return t.at(i), true
}

// indexByID is the index in name order of the prompt with the id, compared as promptlib.Key
// does.
func (t *promptTable) indexByID(id string) (int, bool) {
	k := sort.Search(len(t.byID), func(k int) bool { return compareKeys(t.idAt(int(t.byID[k])), id) >= 0 })
	if k == len(t.byID) || compareKeys(t.idAt(int(t.byID[k])), id) != 0 {
		return 0, false
	}
	return int(t.byID[k]), true
}

// compareKeys orders ids as promptlib.Key (lower case) does, without lowering copies of them:
// the view compares ids a million times while it builds a table of 100k prompts.
func compareKeys(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca >= 0x80 || cb >= 0x80 {
			return strings.Compare(promptlib.Key(a[i:]), promptlib.Key(b[i:]))
		}
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// sameListing reports whether two prompts list the same in prompts/list.
func (p servedPrompt) sameListing(q servedPrompt) bool {
	return p.name == q.name && p.title == q.title && p.sumHash == q.sumHash && p.argSet == q.argSet
}

// tableBuilder makes a promptTable, one prompt at a time.
type tableBuilder struct {
	text             strings.Builder
	recs             []promptRec
	summaries        []string // the recs', in the same order; "" for one taken from prev
	from             []int32  // per rec: the index of its summary in prev, or -1
	prev             *summaryStore
	folders, argSets interner
	// byID, when set, is the table's index by id (indexIDs) known beforehand, for recs added
	// in name order.
	byID []int32
}

// newTableBuilder makes a builder of a table of n prompts that may take summaries from prev's.
func newTableBuilder(n int, prev *summaryStore) *tableBuilder {
	return &tableBuilder{recs: make([]promptRec, 0, n), prev: prev, folders: interner{index: map[string]uint32{}}, argSets: interner{index: map[string]uint32{}}}
}

// add copies p into the table; its summary is p.summary, or when from ≥ 0 the from-th of the
// builder's prev, whose hash p carries (read only if its block must be compressed again).
func (b *tableBuilder) add(p servedPrompt, from int32) error {
	if len(p.id) > 0xffff || len(p.name) > 0xffff || int64(b.text.Len())+int64(len(p.id)+len(p.name)+len(p.title)) > 0xffffffff {
		return fmt.Errorf("mcpserver: prompt %.40q is too large to serve", p.id)
	}
	r := promptRec{off: uint32(b.text.Len()), id: uint16(len(p.id)), name: uint16(len(p.name)), title: uint32(len(p.title)),
		sumHash: p.sumHash, hash: p.hash, bucket: p.bucket, created: p.created}
	if from < 0 { // a new summary
		r.sumHash = summaryHash(p.summary)
	}
	for _, s := range []string{p.id, p.name, p.title} {
		b.text.WriteString(s)
	}
	r.folder = b.folders.add(p.folderID)
	r.args = b.argSets.add(p.argSet)
	b.recs = append(b.recs, r)
	b.summaries, b.from = append(b.summaries, p.summary), append(b.from, from)
	return nil
}

// interner makes a stringList of distinct strings.
type interner struct {
	index map[string]uint32
	text  strings.Builder
	ends  []uint32
}

// add is 1+the index of s in the list, adding it if new; 0 for "".
func (in *interner) add(s string) uint32 {
	if s == "" {
		return 0
	}
	if i, ok := in.index[s]; ok {
		return i
	}
	in.text.WriteString(s)
	in.ends = append(in.ends, uint32(in.text.Len()))
	in.index[strings.Clone(s)] = uint32(len(in.ends))
	return uint32(len(in.ends))
}

func (in *interner) list() stringList { return stringList{text: in.text.String(), ends: in.ends} }

// build sorts the prompts by name and indexes them by id.
func (b *tableBuilder) build() promptTable {
	t := promptTable{text: b.text.String(), recs: b.recs, folders: b.folders.list(), argSets: b.argSets.list()}
	if !slices.IsSortedFunc(t.recs, t.compareNames) {
		order := make([]int, len(t.recs))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(i, j int) int { return t.compareNames(t.recs[i], t.recs[j]) })
		recs, summaries, from := make([]promptRec, len(order)), make([]string, len(order)), make([]int32, len(order))
		for k, i := range order {
			recs[k], summaries[k], from[k] = t.recs[i], b.summaries[i], b.from[i]
		}
		t.recs, b.summaries, b.from = recs, summaries, from
		b.byID = nil // it was by the places before the sort
	}
	t.summaries = packSummaries(b.summaries, b.from, b.prev)
	if t.byID = b.byID; len(t.byID) != len(t.recs) {
		t.indexIDs()
	}
	return t
}

func (t *promptTable) indexIDs() {
	t.byID = make([]int32, len(t.recs))
	for i := range t.byID {
		t.byID[i] = int32(i)
	}
	slices.SortFunc(t.byID, func(i, j int32) int { return compareKeys(t.idAt(int(i)), t.idAt(int(j))) })
}

// promptArg is one argument as the table keeps it: what checking a call needs, and where the
// body uses it, for its description in prompts/list.
type promptArg struct {
	promptlib.Placeholder
	where string
}

// encodeArgs packs a prompt's arguments into one string: prompts share few distinct argument
// lists, so the table keeps each once. Each argument is its name, default and where it is
// used (each a uvarint length and the bytes) and a flags byte.
func encodeArgs(args []promptlib.Placeholder) string {
	if len(args) == 0 {
		return ""
	}
	var b []byte
	for _, a := range args {
		for _, s := range []string{a.Name, a.Default, a.Where()} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		var flags byte
		if a.Required {
			flags |= 1
		}
		if a.HasDefault {
			flags |= 2
		}
		b = append(b, flags)
	}
	return string(b)
}

// args decodes the prompt's arguments.
func (p servedPrompt) args() []promptArg {
	args, _ := decodeArgs(p.argSet)
	return args
}

// decodeArgs undoes encodeArgs; false for a string encodeArgs did not write (a damaged kept
// view: loadView checks every list before it serves one).
func decodeArgs(s string) ([]promptArg, bool) {
	var out []promptArg
	ok := walkArgs(s, func(a promptArg) { out = append(out, a) })
	return out, ok
}

// walkArgs hands each argument of an encoded list to fn, and reports whether the list was
// whole.
func walkArgs(s string, fn func(promptArg)) bool {
	ok := true
	field := func() string {
		n, k := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
		if k <= 0 || uint64(len(s)-k) < n {
			ok, s = false, ""
			return ""
		}
		v := s[k : k+int(n)]
		s = s[k+int(n):]
		return v
	}
	for s != "" {
		var a promptArg
		a.Name, a.Default, a.where = field(), field(), field()
		if !ok || s == "" {
			return false
		}
		a.Required, a.HasDefault = s[0]&1 != 0, s[0]&2 != 0
		s = s[1:]
		fn(a)
	}
	return true
}

// placeholders is what checking a call's arguments needs.
func (p servedPrompt) placeholders() []promptlib.Placeholder {
	args := p.args()
	out := make([]promptlib.Placeholder, len(args))
	for i, a := range args {
		out[i] = a.Placeholder
	}
	return out
}

// listed is the i-th prompt in name order with its summary, as a list shows it.
func (t *promptTable) listed(i int) servedPrompt {
	p := t.at(i)
	p.summary = t.summaries.at(i)
	return p
}

func summaryHash(s string) uint32 {
	h := fnv.New32a()
	io.WriteString(h, s)
	return h.Sum32()
}

// mcpPrompt is the prompt as prompts/list shows it (from listed): its arguments are the body's placeholders,
// each described by argumentDescription.
func (p servedPrompt) mcpPrompt() mcp.Prompt {
	mp := mcp.Prompt{Name: p.name, Title: p.title, Description: p.summary}
	for _, a := range p.args() {
		mp.Arguments = append(mp.Arguments, mcp.PromptArgument{Name: a.Name, Description: argumentDescription(a), Required: a.Required})
	}
	return mp
}
