package pipeline

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"unsafe"
)

// The cache's entry format: compact and quick to decode, because a cache hit must cost far less
// than the stages it saves (decoding thousands of sections as JSON would not). An entry that does
// not decode is a miss.

var errBadEntry = errors.New("pipeline: bad cache entry")

const entryMagic = "mcpctl-pipeline-1\n"

// entry is a stage's cached result, or a document (the original with its final sections) kept
// for ReadSection.
type entry struct {
	Text string
	Base string // the text Sections index; for a document, the text read_section serves
	// baseIsOriginal marks a decoded entry whose Base is the request's original content, which
	// is not stored twice: the Engine fills Base in.
	baseIsOriginal bool
	Sections       []Section
	Metadata       map[string]any
	Stages         []string // for documents: the stages that made the sections
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeEntry encodes e; orig is the request's original content, which Base usually is and
// which is then not stored.
func encodeEntry(e entry, orig string) []byte {
	b := make([]byte, 0, len(e.Text)+64+countAll(e.Sections)*24)
	b = append(b, entryMagic...)
	b = appendString(b, e.Text)
	switch e.Base {
	case e.Text: // a splitting stage: store the text once
		b = append(b, 0)
	case orig: // a later stage: the original is known to whoever asks for this key
		b = append(b, 2)
	default:
		b = append(b, 1)
		b = appendString(b, e.Base)
	}
	meta := []byte{}
	if len(e.Metadata) > 0 {
		meta, _ = json.Marshal(e.Metadata)
	}
	b = appendString(b, string(meta))
	b = binary.AppendUvarint(b, uint64(len(e.Stages)))
	for _, s := range e.Stages {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(countAll(e.Sections)))
	var walk func(ss []Section, depth int)
	walk = func(ss []Section, depth int) {
		for _, s := range ss {
			b = binary.AppendUvarint(b, uint64(depth))
			b = binary.AppendUvarint(b, uint64(s.Start))
			b = binary.AppendUvarint(b, uint64(s.End))
			b = binary.AppendUvarint(b, uint64(s.ValueStart))
			b = appendString(b, s.Title)
			b = appendString(b, s.Kind)
			walk(s.Children, depth+1)
		}
	}
	walk(e.Sections, 0)
	return b
}

func countAll(ss []Section) int {
	n := len(ss)
	for _, s := range ss {
		n += countAll(s.Children)
	}
	return n
}

// reader reads an entry held in one string, so every string it returns is a substring of it:
// decoding thousands of titles costs no allocation each.
type reader struct {
	b   string
	err bool
}

func (r *reader) uvarint() int {
	var v uint64
	for i := 0; i < len(r.b) && i < binary.MaxVarintLen64; i++ {
		c := r.b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if v > 1<<40 {
				break
			}
			r.b = r.b[i+1:]
			return int(v)
		}
	}
	r.err = true
	return 0
}

func (r *reader) string() string {
	n := r.uvarint()
	if r.err || n > len(r.b) {
		r.err = true
		return ""
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// decodeEntry reverses encodeEntry. Kinds are interned so thousands of sections share them.
func decodeEntry(b []byte) (entry, error) {
	var e entry
	if len(b) <= len(entryMagic) || string(b[:len(entryMagic)]) != entryMagic {
		return e, errBadEntry
	}
	// b is ours alone (just read from disk) and never written again, so its bytes can back
	// the strings without a copy.
	r := &reader{b: unsafe.String(&b[len(entryMagic)], len(b)-len(entryMagic))}
	e.Text = r.string()
	switch r.uvarint() {
	case 0:
		e.Base = e.Text
	case 1:
		e.Base = r.string()
	case 2:
		e.baseIsOriginal = true
	default:
		return e, errBadEntry
	}
	if meta := r.string(); meta != "" && !r.err {
		if err := json.Unmarshal([]byte(meta), &e.Metadata); err != nil {
			return e, errBadEntry
		}
	}
	ns := r.uvarint()
	if r.err || ns > 1000 {
		return e, errBadEntry
	}
	for range ns {
		e.Stages = append(e.Stages, r.string())
	}
	n := r.uvarint()
	if r.err || n > len(r.b) {
		return e, errBadEntry
	}
	flat := make([]Section, n)
	depths := make([]int, n)
	for i := range flat {
		depths[i] = r.uvarint()
		s := &flat[i]
		s.Start, s.End, s.ValueStart = r.uvarint(), r.uvarint(), r.uvarint()
		s.Title = r.string()
		s.Kind = r.string()
		if r.err || s.End < s.Start || (i == 0 && depths[i] != 0) || (i > 0 && depths[i] > depths[i-1]+1) {
			return e, errBadEntry
		}
	}
	pos := 0
	e.Sections = buildTree(flat, depths, childCounts(depths), &pos, 0)
	assignIDs(e.Sections, "") // ids are positions, so they are not stored
	return e, nil
}

// childCounts counts each node's direct children in a pre-order list with depths; index
// len(depths) holds the number of roots.
func childCounts(depths []int) []int {
	counts := make([]int, len(depths)+1)
	stack := []int{len(depths)} // the parent at each depth; the roots' parent is the sentinel
	for i, d := range depths {
		stack = append(stack[:d+1], i)
		counts[stack[d]]++
	}
	return counts
}

// buildTree rebuilds the tree from a pre-order list with depths, each slice allocated once at
// its final size.
func buildTree(flat []Section, depths, counts []int, pos *int, depth int) []Section {
	parent := len(flat)
	if *pos > 0 && depth > 0 {
		parent = *pos - 1
	}
	out := make([]Section, 0, counts[parent])
	for *pos < len(flat) && depths[*pos] == depth {
		i := *pos
		*pos++
		out = append(out, flat[i])
		if *pos < len(flat) && depths[*pos] == depth+1 {
			out[len(out)-1].Children = buildTree(flat, depths, counts, pos, depth+1)
		}
	}
	return out
}
