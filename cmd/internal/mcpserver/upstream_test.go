package mcpserver

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// A call's progress reaches the client at most every progressInterval, its first and its last
// notification always, and the latest one held back when the interval is over; nothing after
// the call ends.
func TestProgressPace(t *testing.T) {
	var sent []float64
	var flush func() // the pending flush, as the timer would run it
	pp := newProgressPace(func(n progressNote) { sent = append(sent, n.progress) })
	pp.after = func(_ time.Duration, f func()) func() bool {
		if flush != nil {
			t.Fatal("a second flush scheduled while one is pending")
		}
		flush = f
		return func() bool { flush = nil; return true }
	}
	fire := func() {
		if f := flush; f != nil {
			flush = nil
			f()
		}
	}
	t0 := time.Unix(1000, 0)
	now := t0
	pp.now = func() time.Time { return now }
	// A step with progress 0 is the pending flush running (the timer firing) at that time.
	steps := []struct {
		at       time.Duration
		progress float64
		total    float64
		want     []float64 // sent so far
	}{
		{0, 1, 100, []float64{1}},                                // the first
		{time.Millisecond, 2, 100, []float64{1}},                 // too soon: held back
		{50 * time.Millisecond, 3, 100, []float64{1}},            // too soon: held back in 2's place
		{100 * time.Millisecond, 0, 0, []float64{1, 3}},          // the interval is over: the latest held
		{101 * time.Millisecond, 4, 100, []float64{1, 3}},        // too soon after it
		{102 * time.Millisecond, 100, 100, []float64{1, 3, 100}}, // the last, however soon; 4 is overtaken
		{150 * time.Millisecond, 0, 0, []float64{1, 3, 100}},
		{160 * time.Millisecond, 101, 0, []float64{1, 3, 100}}, // no total: held back
		{170 * time.Millisecond, 0, 0, []float64{1, 3, 100}},   // too soon after 100: the flush waits on
		{202 * time.Millisecond, 0, 0, []float64{1, 3, 100, 101}},
		{400 * time.Millisecond, 102, 0, []float64{1, 3, 100, 101, 102}},
		{401 * time.Millisecond, 103, 0, []float64{1, 3, 100, 101, 102}},
	}
	for _, s := range steps {
		now = t0.Add(s.at)
		if s.progress == 0 {
			fire()
		} else {
			pp.report(progressNote{progress: s.progress, total: s.total})
		}
		if !slices.Equal(sent, s.want) {
			t.Fatalf("at %v (progress %v of %v): sent %v, want %v", s.at, s.progress, s.total, sent, s.want)
		}
	}
	// 103 is held back; the call ends: nothing more goes out, whatever the timer does.
	if flush == nil {
		t.Fatal("103 held back with no flush pending")
	}
	f := flush
	pp.stop()
	if flush != nil {
		t.Error("stop left the flush pending")
	}
	f() // a timer that had fired already
	now = t0.Add(time.Hour)
	pp.report(progressNote{progress: 104})
	if !slices.Equal(sent, []float64{1, 3, 100, 101, 102}) {
		t.Errorf("after stop: sent %v", sent)
	}
}

// One server has at most maxServerCalls calls under way, all servers together maxUpstreamCalls;
// a call refused names the bound, and one counted out makes room again.
func TestAdmit(t *testing.T) {
	u := &upstreams{calls: map[string]int{}}
	for i := range maxServerCalls {
		if err := u.admit("db"); err != nil {
			t.Fatalf("call %d to db: %v", i+1, err)
		}
	}
	if err := u.admit("db"); err == nil || err.Code != promptlib.CodeUpstreamError || !strings.Contains(err.Message, "server db already has 16 calls") {
		t.Fatalf("call 17 to db: %v", err)
	}
	// Three more servers of 16 reach the bound of all: 64.
	for _, srv := range []string{"web", "git", "fs"} {
		for range maxServerCalls {
			if err := u.admit(srv); err != nil {
				t.Fatalf("a call to %s: %v", srv, err)
			}
		}
	}
	err := u.admit("search")
	if err == nil || !strings.Contains(err.Message, "servers already have 64 calls under way (db 16, fs 16, git 16, web 16)") {
		t.Fatalf("a call past the bound of all: %v", err)
	}
	u.release("git")
	if err := u.admit("search"); err != nil {
		t.Errorf("after a call answered: %v", err)
	}
}
