package mcpserver

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"strings"
	"sync"
)

// summaryStore keeps a table's summaries compressed, summaryBlock to a block: a summary is only
// read for a page of prompts/list or resources/list, and at 100k prompts the summaries were a
// third of the server's memory. A block is decompressed when one of its summaries is read; the
// last one read is kept, since pages read neighbours.
type summaryStore struct {
	data string   // the flate-compressed blocks, one after another
	ends []uint32 // where each block ends in data
	n    int      // how many summaries

	last *lastBlock // shared by the copies of the table that holds the store
}

// summaryBlock is how many summaries one block holds: about 5 KB of text, which compresses well
// and decompresses in microseconds.
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
	b := i / summaryBlock
	if s.last != nil {
		s.last.mu.Lock()
		defer s.last.mu.Unlock()
		if s.last.entries != nil && s.last.block == b {
			return s.last.entries[i%summaryBlock]
		}
	}
	entries, ok := s.block(b)
	if !ok {
		return ""
	}
	if s.last != nil {
		s.last.block, s.last.entries = b, entries
	}
	return entries[i%summaryBlock]
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
	return entries, len(entries) == min(summaryBlock, s.n-b*summaryBlock)
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
	if b := i / summaryBlock; b != r.block {
		r.block = b
		r.entries, _ = r.s.block(b)
	}
	if k := i % summaryBlock; k < len(r.entries) {
		return r.entries[k]
	}
	return ""
}

// inflaters reuses flate readers: each holds a 32 KB window, and a build of 100k prompts reads
// every block of the last table.
var inflaters = sync.Pool{New: func() any { return flate.NewReader(strings.NewReader("")) }}

// packSummaries compresses summaries, in the table's order, into a store.
func packSummaries(summaries []string) summaryStore {
	s := summaryStore{n: len(summaries), last: &lastBlock{}}
	var data, raw bytes.Buffer
	w, _ := flate.NewWriter(&data, flate.BestSpeed) // a valid level: cannot fail
	for start := 0; start < len(summaries); start += summaryBlock {
		raw.Reset()
		for _, sum := range summaries[start:min(start+summaryBlock, len(summaries))] {
			raw.Write(binary.AppendUvarint(nil, uint64(len(sum))))
			raw.WriteString(sum)
		}
		w.Reset(&data)
		w.Write(raw.Bytes()) // writes to a bytes.Buffer: cannot fail
		w.Close()
		s.ends = append(s.ends, uint32(data.Len()))
	}
	s.data = data.String()
	return s
}
