package mcpserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSummaryStore(t *testing.T) {
	var sums []string
	for i := range 3*summaryBlock + 5 {
		sums = append(sums, fmt.Sprintf("Summary %d of a prompt, with ünïcode and {{args}}.", i))
	}
	sums[7] = "" // a prompt without text has an empty summary
	s := packSummaries(sums, nil, nil)
	if len(s.ends) != 4 {
		t.Fatalf("%d blocks for %d summaries", len(s.ends), len(sums))
	}
	for _, i := range []int{0, 7, 63, 64, 130, 3*summaryBlock + 4, 5, 64} { // out of order, repeated
		if got := s.at(i); got != sums[i] {
			t.Errorf("summary %d = %q, want %q", i, got, sums[i])
		}
	}
	if s.at(-1) != "" || s.at(len(sums)) != "" {
		t.Error("a summary out of range is not empty")
	}
	damaged := s
	damaged.last = &lastBlock{}
	damaged.data = "x" + s.data[1:]
	_ = damaged.at(0) // a damaged block reads as empty summaries, never a panic

	// A block that decodes cleanly to fewer summaries than it should (flate has no checksum)
	// is refused too, on every path: first read, and read again from the cache.
	short := packSummaries([]string{"a", "b"}, nil, nil)
	short.n = summaryBlock
	if got := short.at(0); got != "" {
		t.Errorf("a short block served %q", got)
	}
	if got := short.at(5); got != "" {
		t.Errorf("a short block served %q at 5", got)
	}
	r := s.reader()
	for i := range sums {
		if got := r.at(i); got != sums[i] {
			t.Fatalf("reader: summary %d = %q, want %q", i, got, sums[i])
		}
	}
}

// A store packed from the last one after a few summaries are inserted, deleted or replaced
// holds the new summaries, compresses again only the blocks the edit falls in, and keeps its
// blocks from half full to full however many edits it follows.
func TestSummaryStoreFollowsEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var want []string
	for i := range 1000 {
		want = append(want, fmt.Sprintf("Summary %d of a prompt.", i))
	}
	s := packSummaries(want, nil, nil)
	made := 0
	for edit := range 300 {
		// from: each new summary's index in the last store, or -1 with its text.
		from := make([]int32, len(want))
		for i := range from {
			from[i] = int32(i)
		}
		texts := make([]string, len(want))
		switch i := rng.IntN(len(want)); edit % 4 {
		case 3: // at the end, as a prompt whose title starts with a date sorts
			i = len(want)
			fallthrough
		case 0:
			from, texts = slices.Insert(from, i, -1), slices.Insert(texts, i, fmt.Sprint("Inserted ", edit))
			want = slices.Insert(want, i, texts[i])
		case 1:
			from, texts, want = slices.Delete(from, i, i+1), slices.Delete(texts, i, i+1), slices.Delete(want, i, i+1)
		default:
			from[i], texts[i], want[i] = -1, fmt.Sprint("Replaced ", edit), fmt.Sprint("Replaced ", edit)
		}
		last := s
		s = packSummaries(texts, from, &last)
		for b := range s.ends {
			if !lastHolds(&last, blockBytes(&s, b)) {
				made++
			}
			if size := s.size(b); size > summaryBlock || size < summaryBlock/2 && b < len(s.ends)-1 {
				t.Fatalf("edit %d: block %d of %d holds %d summaries", edit, b, len(s.ends), size)
			}
		}
	}
	r := s.reader()
	for i := range want {
		if got := r.at(i); got != want[i] {
			t.Fatalf("summary %d = %q, want %q", i, got, want[i])
		}
		if got := s.at(i); got != want[i] {
			t.Fatalf("at: summary %d = %q, want %q", i, got, want[i])
		}
	}
	if made > 3*300 {
		t.Errorf("%d blocks compressed again over 300 edits, want at most 3 an edit", made)
	}
}

func blockBytes(s *summaryStore, b int) string {
	start := uint32(0)
	if b > 0 {
		start = s.ends[b-1]
	}
	return s.data[start:s.ends[b]]
}

func lastHolds(s *summaryStore, block string) bool {
	for b := range s.ends {
		if blockBytes(s, b) == block {
			return true
		}
	}
	return false
}
