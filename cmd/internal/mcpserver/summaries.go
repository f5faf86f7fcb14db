package mcpserver

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"sort"
	"strings"
	"sync"
)

// summaryStore keeps a table's summaries compressed, up to summaryBlock to a block: a summary
// is only read for a page of prompts/list or resources/list, and at 100k prompts the summaries
// were a third of the server's memory. A block is decompressed when one of its summaries is
// read; the last one read is kept, since pages read neighbours. Blocks hold from summaryBlock/2
// to summaryBlock summaries (the last one fewer), so a table that follows an edit keeps every
// block of the last table but the one or two the edit falls in (packSummaries).
type summaryStore struct {
	data   string   // the flate-compressed blocks, one after another
	ends   []uint32 // where each block ends in data
	firsts []uint32 // the index of each block's first summary
	n      int      // how many summaries

	last *lastBlock // shared by the copies of the table that holds the store
}

// summaryBlock is how many summaries a block holds at most: about 5 KB of text, which
// compresses well and decompresses in microseconds.
const summaryBlock = 64

type lastBlock struct {
	mu      sync.Mutex
	block   int
	entries []string
}

// at is the i-th summary.
func (s *summaryStore) at(i int) string {
	if i < 0 || i >= s.n {
		return ""
	}
	b := s.blockOf(i)
	if s.last != nil {
		s.last.mu.Lock()
		defer s.last.mu.Unlock()
		if s.last.entries != nil && s.last.block == b {
			return s.last.entries[i-int(s.firsts[b])]
		}
	}
	entries, ok := s.block(b)
	if !ok {
		return ""
	}
	if s.last != nil {
		s.last.block, s.last.entries = b, entries
	}
	return entries[i-int(s.firsts[b])]
}

// blockOf is the block that holds summary i.
func (s *summaryStore) blockOf(i int) int {
	return sort.Search(len(s.firsts), func(b int) bool { return int(s.firsts[b]) > i }) - 1
}

// size is how many summaries block b holds.
func (s *summaryStore) size(b int) int {
	if b+1 < len(s.firsts) {
		return int(s.firsts[b+1] - s.firsts[b])
	}
	return s.n - int(s.firsts[b])
}

// block decompresses block b into its summaries; false unless it decodes to exactly the
// summaries the block holds. A kept view's blocks are not checked when it is read (that would
// delay the first list): a damaged one shows its summaries empty.
func (s *summaryStore) block(b int) ([]string, bool) {
	start := uint32(0)
	if b > 0 {
		start = s.ends[b-1]
	}
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	r.(flate.Resetter).Reset(strings.NewReader(s.data[start:s.ends[b]]), nil) //nolint:errcheck // only a dictionary can fail it
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, false
	}
	// One string for the block; the summaries are slices of it.
	text := string(raw)
	var entries []string
	for rest := text; rest != ""; {
		n, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if k <= 0 || uint64(len(rest)-k) < n {
			return nil, false
		}
		entries = append(entries, rest[k:k+int(n)])
		rest = rest[k+int(n):]
	}
	return entries, len(entries) == s.size(b)
}

// reader reads the summaries in order without the shared cache: a build reads every block of
// the last table, and would otherwise evict the block a list request is reading, and the
// other way round.
func (s *summaryStore) reader() *summaryReader { return &summaryReader{s: s, block: -1} }

type summaryReader struct {
	s       *summaryStore
	block   int
	entries []string
}

func (r *summaryReader) at(i int) string {
	if i < 0 || i >= r.s.n {
		return ""
	}
	if r.block < 0 || i < int(r.s.firsts[r.block]) || i >= int(r.s.firsts[r.block])+r.s.size(r.block) {
		r.block = r.s.blockOf(i)
		r.entries, _ = r.s.block(r.block)
	}
	if k := i - int(r.s.firsts[r.block]); k < len(r.entries) {
		return r.entries[k]
	}
	return ""
}

// inflaters reuses flate readers: each holds a 32 KB window, and a build of 100k prompts reads
// every block of the last table.
var inflaters = sync.Pool{New: func() any { return flate.NewReader(strings.NewReader("")) }}

// packSummaries compresses a table's summaries, in the table's order, into a store: summary i
// is texts[i], or when from[i] ≥ 0 summary from[i] of prev. A run of summaries that is a whole
// block of prev keeps that block's bytes as they are, so following one edit of a library of
// 100k prompts compresses one or two blocks, not all ~1,600 (~50 ms).
func packSummaries(texts []string, from []int32, prev *summaryStore) summaryStore {
	n := len(texts)
	s := summaryStore{n: n, last: &lastBlock{}}
	var data, raw bytes.Buffer
	w, _ := flate.NewWriter(&data, flate.BestSpeed) // a valid level: cannot fail
	// pending are the summaries before i that no block holds yet.
	var pending []string
	i := 0
	// flush compresses the first k pending summaries into a block.
	flush := func(k int) {
		if k == 0 {
			return
		}
		raw.Reset()
		for _, sum := range pending[:k] {
			raw.Write(binary.AppendUvarint(nil, uint64(len(sum))))
			raw.WriteString(sum)
		}
		w.Reset(&data)
		w.Write(raw.Bytes()) // writes to a bytes.Buffer: cannot fail
		w.Close()
		s.ends, s.firsts = append(s.ends, uint32(data.Len())), append(s.firsts, uint32(i-len(pending)))
		pending = pending[k:]
	}
	var old *summaryReader
	if prev != nil {
		old = prev.reader()
	}
	text := func(k int) string {
		if from != nil && from[k] >= 0 {
			return old.at(int(from[k]))
		}
		return texts[k]
	}
	for i < n {
		b, size := prev.wholeBlockAt(from, i)
		if size < summaryBlock/2 && i+size < n {
			// prev's small last block, no longer last (prompts sort after it): copied as it
			// is, every prompt added at the end would leave one more small block behind.
			size = 0
		}
		switch {
		case size > 0 && (len(pending) == 0 || len(pending) >= summaryBlock/2):
			// A whole block of prev: copied as it is.
			flush(len(pending))
			start := uint32(0)
			if b > 0 {
				start = prev.ends[b-1]
			}
			data.WriteString(prev.data[start:prev.ends[b]])
			s.ends, s.firsts = append(s.ends, uint32(data.Len())), append(s.firsts, uint32(i))
			i += size
		case size > 0:
			// A few summaries left over before it: they join the block rather than stand as
			// a small block of their own, in two halves when that is more than a block.
			for range size {
				pending = append(pending, text(i))
				i++
			}
			if len(pending) > summaryBlock {
				flush(len(pending) / 2)
			}
			flush(len(pending))
		default:
			pending = append(pending, text(i))
			i++
			if len(pending) == summaryBlock {
				flush(summaryBlock)
			}
		}
	}
	flush(len(pending))
	s.data = data.String()
	return s
}

// wholeBlockAt reports whether the summaries from i on start with a whole block of s, in its
// order: the block, and how many summaries it holds (0 when they do not).
func (s *summaryStore) wholeBlockAt(from []int32, i int) (int, int) {
	if s == nil || from == nil || from[i] < 0 {
		return 0, 0
	}
	f := int(from[i])
	b := s.blockOf(f)
	if b < 0 || int(s.firsts[b]) != f {
		return 0, 0
	}
	size := s.size(b)
	if i+size > len(from) {
		return 0, 0
	}
	for k := 1; k < size; k++ {
		if from[i+k] != int32(f+k) {
			return 0, 0
		}
	}
	return b, size
}
