package queue

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// BenchmarkRoundTrip measures create_prompt through the Writer and an in-process Processor on a
// standalone library of 10,000 prompts, every fsync kept: the latency a tool call sees, minus
// MCP framing. Reports p50 and p99 in milliseconds.
func BenchmarkRoundTrip10k(b *testing.B) {
	l := newLib(b, 10000)
	startProcessor(b, l, nil)
	w := NewWriter(l.Queue, nil)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("bench %d", i))); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[(len(lat)*99)/100]), "p99-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkProcessorThroughput measures the processor alone draining b.N queued create_prompt
// operations one after another (claim, schema check, BEGIN IMMEDIATE, apply, record, COMMIT,
// fsynced response, file away) on a 10,000-prompt library. Reports operations per second.
func BenchmarkProcessorThroughput(b *testing.B) {
	l := newLib(b, 10000)
	for i := 0; i < b.N; i++ {
		dropOp(b, l.Queue, promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("throughput %d", i)))
	}
	var done atomic.Int64
	all := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	startProcessor(b, l, func(point, _ string) {
		if point == HookDone && done.Add(1) == int64(b.N) {
			close(all)
		}
	})
	<-all
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
}

// drainBacklog drops n create_prompt operations into the queue of a running processor as fast
// as 4 writers can publish them (overflowing fsnotify's event queue at this size, so the rescan
// must pick up what events lost), waits until every one is filed, and checks each was applied
// exactly once. It returns the time from the first drop to the last filing.
func drainBacklog(tb testing.TB, n int) (time.Duration, int64) {
	l := newLib(tb, 1000)
	var done atomic.Int64
	all := make(chan struct{})
	ready := make(chan struct{})
	p := startProcessor(tb, l, func(point, _ string) {
		switch point {
		case HookReady:
			close(ready)
		case HookDone:
			if done.Add(1) == int64(n) {
				close(all)
			}
		}
	})
	<-ready
	start := time.Now()
	var wg sync.WaitGroup
	const writers = 4
	errs := make(chan error, writers)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() { // tb.Fatal is for the test goroutine: publishers report errors instead
			defer wg.Done()
			w := NewWriter(l.Queue, testLogger(tb))
			for i := g; i < n; i += writers {
				op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("backlog %d", i)))
				if err == nil {
					err = w.publish(op.ID, mustJSON(tb, op))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	select {
	case <-all:
	case <-time.After(10 * time.Minute):
		tb.Fatalf("only %d of %d operations filed", done.Load(), n)
	}
	elapsed := time.Since(start)
	if got := l.count(tb, `SELECT COUNT(*) FROM prompts WHERE title LIKE 'backlog %'`); got != n {
		tb.Errorf("prompts: got %d, want %d", got, n)
	}
	if got := l.count(tb, `SELECT COUNT(DISTINCT title) FROM prompts WHERE title LIKE 'backlog %'`); got != n {
		tb.Errorf("distinct prompts: got %d, want %d", got, n)
	}
	if got := l.count(tb, `SELECT COUNT(*) FROM applied_ops`); got != n {
		tb.Errorf("applied_ops: got %d, want %d", got, n)
	}
	if got := len(files(tb, join(l.Queue, processedDir))); got != n {
		tb.Errorf("processed/: got %d, want %d", got, n)
	}
	return elapsed, p.Overflows()
}

// Fault: a large backlog through the processor — every operation applied once.
func TestBacklogDrain(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	drainBacklog(t, n)
}

// BenchmarkBacklog20k drains 20,000 operations per iteration; see drainBacklog.
func BenchmarkBacklog20k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		elapsed, overflows := drainBacklog(b, 20000)
		b.ReportMetric(20000/elapsed.Seconds(), "ops/s")
		b.ReportMetric(float64(overflows), "fsnotify-overflows")
	}
}
