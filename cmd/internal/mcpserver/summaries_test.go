package mcpserver

import (
	"fmt"
	"testing"
)

func TestSummaryStore(t *testing.T) {
	var sums []string
	for i := range 3*summaryBlock + 5 {
		sums = append(sums, fmt.Sprintf("Summary %d of a prompt, with ünïcode and {{args}}.", i))
	}
	sums[7] = "" // a prompt without text has an empty summary
	s := packSummaries(sums)
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
	short := packSummaries([]string{"a", "b"})
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
