package mcpserver

import (
	"testing"
	"time"
)

// A call's progress reaches the client at most every progressInterval, its first and its last
// notification always.
func TestProgressPace(t *testing.T) {
	var pp progressPace
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at       time.Duration
		progress float64
		total    float64
		want     bool
	}{
		{0, 1, 100, true},                        // the first
		{time.Millisecond, 2, 100, false},        // too soon
		{99 * time.Millisecond, 3, 100, false},   // still too soon
		{100 * time.Millisecond, 4, 100, true},   // an interval after the last forwarded
		{101 * time.Millisecond, 5, 0, false},    // no total: too soon
		{150 * time.Millisecond, 100, 100, true}, // the last, however soon
		{300 * time.Millisecond, 101, 0, true},   // no total, an interval on
		{301 * time.Millisecond, 102, 0, false},
	}
	for _, s := range steps {
		if got := pp.allow(t0.Add(s.at), s.progress, s.total); got != s.want {
			t.Errorf("at %v, progress %v of %v: forwarded %v, want %v", s.at, s.progress, s.total, got, s.want)
		}
	}
}
