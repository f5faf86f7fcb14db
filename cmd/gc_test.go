package cmd

import (
	"runtime/debug"
	"testing"
)

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 500},                    // before the first collection: let the start-up heap grow
		{1 << 20, 1000},             // a tiny heap: at most ten times its size
		{5 << 20, 200},              // 5 MB live may grow by the 10 MB floor
		{20 << 20, 50},              // from 20 MB, by half
		{100 << 20, serveGCPercent}, // a big library: by half
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

// GOGC in the environment wins over the tuning.
func TestTuneGCLeavesGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	tuneGC(Env{Getenv: func(k string) string { return map[string]string{"GOGC": "123"}[k] }})
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("with GOGC set, the percent became %d", got)
	}
}
