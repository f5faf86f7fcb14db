package cmd

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The server's collector: it collects when the heap has grown by half of what is live (GOGC
// 50), but never before it has grown by minHeapGrowth.
//
// Why both: the server is long-lived and mostly idle, and what it keeps is a few large
// pointer-free tables the collector scans in no time. Collecting at half the live heap instead
// of all of it keeps a 100k-prompt server under 60 MiB. On a small library, though, half the
// live heap is 3 or 4 MB while a page of 100 prompts allocates about 250 KB: the collector ran
// every dozen calls and took a quarter of each call's time (list_prompts limit 100 at 1k, as a
// client sees it: 2.3-2.6 ms at GOGC 50, 1.55-1.8 ms with this floor). At 100k prompts (22 MB
// live) half the live heap is more than the floor, so nothing changes there.
const (
	serveGCPercent = 50
	minHeapGrowth  = 10 << 20
)

// tuneGC sets the collector as above, and sets it again after each collection, as the live heap
// changes. GOGC in the environment wins: nothing is tuned.
func tuneGC(env Env) {
	if env.Getenv("GOGC") != "" {
		return
	}
	setGCPercent(liveHeap())
	armGCTuner()
}

var lastGCPercent atomic.Int64

// setGCPercent sets the percent for a live heap when it changed.
func setGCPercent(live uint64) {
	if p := gcPercentFor(live); int64(p) != lastGCPercent.Swap(int64(p)) {
		debug.SetGCPercent(p)
	}
}

// gcPercentFor is the GOGC that lets a heap of live bytes grow by half, or by minHeapGrowth if
// that is more.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return serveGCPercent * 10
	}
	return int(max(serveGCPercent, min(minHeapGrowth*100/live, 1000)))
}

// armGCTuner runs a cleanup when the next collection finds a fresh object unreachable: after
// each cycle, with that cycle's live heap.
func armGCTuner() {
	sentinel := &struct{ _ *int }{} // with a pointer: not batched by the tiny allocator
	runtime.AddCleanup(sentinel, func(struct{}) {
		setGCPercent(liveHeap())
		armGCTuner()
	}, struct{}{})
}

// liveHeap is the heap the last collection marked live, in bytes (0 before the first).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
