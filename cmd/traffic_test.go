package cmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// writeTraffic writes events as one server session would, under the state home.
func writeTraffic(tb testing.TB, state string, events ...traffic.Event) *traffic.Writer {
	tb.Helper()
	w, err := traffic.Open(traffic.Dir(state), time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	for _, e := range events {
		if err := w.Write(e); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

func TestTrafficTail(t *testing.T) {
	state := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": state}
	ts := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	writeTraffic(t, state,
		traffic.Event{TS: ts, Session: "aaaa1111", Kind: traffic.KindRequest, Method: "tools/call", ID: "1", Name: "search_prompts", BytesIn: 80},
		traffic.Event{TS: ts.Add(time.Millisecond), Session: "aaaa1111", Kind: traffic.KindResponse, Method: "tools/call", ID: "1",
			Name: "begin_session", DurationMs: 12.5, BytesIn: 80, BytesOut: 3000, Status: traffic.StatusOK,
			Gate: &traffic.Gate{State: "open", Matched: 4, Sent: 3, Critical: 1, Bytes: 2900}},
	)
	writeTraffic(t, state,
		traffic.Event{TS: ts.Add(2 * time.Millisecond), Session: "bbbb2222", Kind: traffic.KindResponse, Method: "resources/read",
			Name: "prompt://x", Status: traffic.StatusError, ErrorCode: "NOT_FOUND",
			Pipeline: &traffic.Pipeline{Model: "subindex", BytesBefore: 9000, BytesAfter: 1200, CacheHit: true}},
	)
	for _, tc := range []struct {
		name   string
		args   []string
		want   []string
		absent []string
	}{
		{"all", nil, []string{"TIME", "SESSION", "STATUS", "search_prompts", "gate=open matched=4 sent=3 (1 critical) 2900B", "resources/read", "NOT_FOUND", "pipeline=subindex 9000B→1200B cache hit"}, nil},
		{"by session prefix", []string{"--session", "bbbb"}, []string{"resources/read"}, []string{"search_prompts"}},
		{"by method", []string{"--method", "tools/call"}, []string{"begin_session", "12.5"}, []string{"resources/read"}},
		{"the last one", []string{"-n", "1"}, []string{"resources/read"}, []string{"search_prompts", "begin_session"}},
		{"the last one of a method", []string{"-n", "1", "--method", "tools/call"}, []string{"begin_session"}, []string{"search_prompts", "resources/read"}},
		// NAME shows the tool: --method takes it as the console's method: filter does.
		{"by the name beside the method", []string{"--method", "search_prompts"}, []string{"search_prompts"}, []string{"begin_session", "resources/read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, vars, append([]string{"traffic", "tail"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q, want it filtered out:\n%s", a, out)
				}
			}
		})
	}
	// A tail: the last 20 unless -n says otherwise, -n 0 all of them.
	many := t.TempDir()
	var evs []traffic.Event
	for i := range 25 {
		evs = append(evs, traffic.Event{TS: ts.Add(time.Duration(i) * time.Second), Session: "cccc3333", Kind: traffic.KindRequest,
			Method: "tools/call", ID: fmt.Sprint(i), Name: fmt.Sprintf("tool%02d", i)})
	}
	writeTraffic(t, many, evs...)
	for _, tc := range []struct {
		args        []string
		first, last string
		rows        int
	}{{nil, "tool05", "tool24", 20}, {[]string{"-n", "0"}, "tool00", "tool24", 25}, {[]string{"-n", "3"}, "tool22", "tool24", 3}} {
		_, out, _ := run(t, map[string]string{"XDG_STATE_HOME": many}, append([]string{"traffic", "tail"}, tc.args...)...)
		rows := strings.Split(strings.TrimSpace(out), "\n")[1:]
		if len(rows) != tc.rows || !strings.Contains(rows[0], tc.first) || !strings.Contains(rows[len(rows)-1], tc.last) {
			t.Errorf("traffic tail %v: %d rows, want %d, %s to %s:\n%s", tc.args, len(rows), tc.rows, tc.first, tc.last, out)
		}
	}

	// Oldest first across files.
	_, out, _ := run(t, vars, "traffic", "tail")
	if i, j := strings.Index(out, "search_prompts"), strings.Index(out, "resources/read"); i < 0 || j < i {
		t.Errorf("events out of order:\n%s", out)
	}
}

func TestTrafficTailEmptySaysWhy(t *testing.T) {
	code, out, stderr := run(t, map[string]string{"XDG_STATE_HOME": t.TempDir()}, "traffic", "tail")
	if code != 0 || out != "" || !strings.Contains(stderr, "mcpctl serve") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, nothing, and a sentence naming 'mcpctl serve'", code, out, stderr)
	}
	if code, _, stderr := run(t, nil, "traffic", "frob"); code != 2 || !strings.Contains(stderr, "hint:") {
		t.Errorf("traffic frob: exit %d, stderr %q; want 2 with a hint", code, stderr)
	}
}

// notifyWriter is a stdout that signals each write, so the test waits for output, not time.
type notifyWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	select {
	case w.ch <- struct{}{}:
	default:
	}
	return n, err
}

func (w *notifyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits until w's output contains s.
func (w *notifyWriter) waitFor(tb testing.TB, s string) {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(w.String(), s) {
		select {
		case <-w.ch:
		case <-deadline:
			tb.Fatalf("output never showed %q:\n%s", s, w.String())
		}
	}
}

// --follow prints the history, then new events as they are written; with -n, from the last
// events of the history only.
func TestTrafficTailFollow(t *testing.T) {
	for _, c := range []struct {
		args   []string
		absent string // an older event not to print
	}{
		{[]string{"--follow"}, ""},
		{[]string{"-n", "1", "--follow"}, "resources/list"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			state := t.TempDir()
			vars := map[string]string{"XDG_STATE_HOME": state}
			now := time.Now()
			w := writeTraffic(t, state,
				traffic.Event{TS: now.Add(-2 * time.Second), Session: "s1", Kind: traffic.KindRequest, Method: "resources/list"},
				traffic.Event{TS: now.Add(-time.Second), Session: "s1", Kind: traffic.KindRequest, Method: "prompts/list"})
			ctx, cancel := context.WithCancel(context.Background())
			out := &notifyWriter{ch: make(chan struct{}, 1)}
			done := make(chan int, 1)
			go func() {
				done <- Main(ctx, append([]string{"traffic", "tail"}, c.args...), strings.NewReader(""), out, &bytes.Buffer{}, func(k string) string { return vars[k] })
			}()
			out.waitFor(t, "prompts/list")
			// Stamped before the tail started, written after it read the history: a session
			// stamps an event before it writes it. It is new, and printed.
			if err := w.Write(traffic.Event{TS: now.Add(-time.Second / 2), Session: "s1", Kind: traffic.KindRequest, Method: "tools/call", Name: "late_stamp"}); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(traffic.Event{TS: time.Now(), Session: "s1", Kind: traffic.KindResponse, Method: "tools/call", Name: "get_prompt", Status: traffic.StatusOK}); err != nil {
				t.Fatal(err)
			}
			out.waitFor(t, "get_prompt")
			if n := strings.Count(out.String(), "late_stamp"); n != 1 {
				t.Errorf("the event stamped before the tail started and written after is printed %d times, want once:\n%s", n, out.String())
			}
			if n := strings.Count(out.String(), "prompts/list"); n != 1 {
				t.Errorf("prompts/list printed %d times, want once:\n%s", n, out.String())
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("traffic tail %v exited %d after interrupt, want 0", c.args, code)
			}
			if n := strings.Count(out.String(), "TIME "); n != 1 {
				t.Errorf("header printed %d times, want once", n)
			}
			if c.absent != "" && strings.Contains(out.String(), c.absent) {
				t.Errorf("printed the older %s:\n%s", c.absent, out.String())
			} else if c.absent == "" && !strings.Contains(out.String(), "resources/list") {
				t.Errorf("the history's first event is missing:\n%s", out.String())
			}
		})
	}
}
