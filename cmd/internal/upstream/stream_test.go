package upstream

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// misbehavingSpec is the test server with the tools that break the connection, and a timeout
// short enough for a test and long enough for a start on a loaded machine.
func misbehavingSpec(tb testing.TB) gate.ServerSpec {
	tb.Helper()
	spec, _ := testSpec(tb, map[string]string{envMisbehave: "1"})
	spec.TimeoutMs = 2000
	return spec
}

// callAsync calls a tool on its own goroutine and waits for it at most waitLimit: a call that
// never returns fails the test rather than hanging it.
func callAsync(tb testing.TB, sup *Supervisor, name string, args any) (*mcp.CallToolResult, error) {
	tb.Helper()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := sup.CallTool(context.Background(), name, args, nil)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-time.After(waitLimit):
		tb.Fatalf("call %s did not return within %v", name, waitLimit)
		return nil, nil
	}
}

// restarted waits for the server to be ready again after a failure, and checks that the failure
// is recorded, as the one it recovered from, and calls work again.
func restarted(tb testing.TB, sup *Supervisor, server, lastError string) {
	tb.Helper()
	srv := sup.Server(server)
	var st Status
	eventually(tb, "server "+server+" to be restarted", func() bool {
		st = srv.State()
		return st.State == Ready && st.Restarts >= 1
	})
	if !strings.Contains(st.RecoveredFrom, lastError) || st.LastError != "" {
		tb.Errorf("after the restart: recovered from %q, last error %q; want it recovered from what says %q", st.RecoveredFrom, st.LastError, lastError)
	}
	if res, err := callAsync(tb, sup, server+"__small", map[string]any{"word": "again"}); err != nil || textOf(res) != "small: again" {
		tb.Errorf("call after the restart: got %v %v", res, err)
	}
}

// A server that stops reading its stdin held a call with large arguments in mcp-go's write for
// good, every later message to the server behind it, and mcpctl's shutdown behind those. The
// write is bounded by the server's timeout: the call fails saying why and what to do, and the
// server is stopped and restarted.
func TestServerThatStopsReadingIsRestarted(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	if _, err := callAsync(t, sup, "tu__stop_reading", nil); err != nil {
		t.Fatal(err)
	}
	// Far more than a pipe holds, so the write cannot finish.
	_, err := callAsync(t, sup, "tu__small", map[string]any{"word": strings.Repeat("x", 4<<20)})
	var ue *UnavailableError
	te := ToolError(err)
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "stopped reading its input") ||
		te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Hint(), "try smaller arguments") {
		t.Fatalf("got %v (%+v), want UPSTREAM_UNAVAILABLE saying it stopped reading its input and what to do", err, te)
	}
	restarted(t, sup, "tu", "stopped reading its input")
}

// A server busy on a call reads no input meanwhile (a single-threaded one), but says it is alive:
// a large message mcpctl cannot write to it then waits for it, where it was taken for a server
// that stopped reading, and killed with the call it was working on.
func TestBusyServerIsWaitedFor(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	working := make(chan struct{})
	var once sync.Once
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	busy := make(chan answer, 1)
	go func() {
		res, err := sup.CallTool(context.Background(), "tu__busy", nil, func(float64, float64, string) { once.Do(func() { close(working) }) })
		busy <- answer{res, err}
	}()
	<-working
	// The large call may time out, as the server answers it no sooner than the busy one; it
	// must not take the server down with it.
	res, err := callAsync(t, sup, "tu__small", map[string]any{"word": strings.Repeat("x", 4<<20)})
	if te := (*TimeoutError)(nil); err != nil && !errors.As(err, &te) || err == nil && !strings.HasPrefix(textOf(res), "small: xxx") {
		t.Errorf("the large call beside the busy one: %v; want its answer or its timeout", err)
	}
	if a := <-busy; a.err != nil || textOf(a.res) != "done" {
		t.Errorf("the busy call: %v %v", a.res, a.err)
	}
	if st := sup.Server("tu").State(); st.Restarts != 0 {
		t.Errorf("the busy server was restarted: %+v", st)
	}
}

// One line of a server's stdout grew without bound (300 MB without a newline took 936 MB): a
// message longer than the cap fails the call at once, naming the size and what to do, and the
// server is restarted. The cap is lowered for the test; the big tool answers 200 KB.
func TestOversizedMessageIsRefused(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{maxLine: 100 << 10})
	waitState(t, sup.Server("tu"), Ready)
	_, err := callAsync(t, sup, "tu__big", nil)
	var ue *UnavailableError
	te := ToolError(err)
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "a message larger than 100 KiB") ||
		te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Hint(), "ask for less at a time") {
		t.Fatalf("got %v (%+v), want UPSTREAM_UNAVAILABLE naming the 100 KiB cap and what to do", err, te)
	}
	restarted(t, sup, "tu", "larger than 100 KiB")
}

// A reply nested deeper than encoding/json parses was dropped by mcp-go without a word, and its
// call waited out the whole timeout: it now fails at once, saying why. Brackets inside strings
// are text, not nesting, and do not count.
func TestDeeplyNestedMessageIsRefused(t *testing.T) {
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	word := `\"` + strings.Repeat("[{", maxDepth)
	if res, err := callAsync(t, sup, "tu__small", map[string]any{"word": word}); err != nil || textOf(res) != "small: "+word {
		t.Fatalf("brackets in a string: got %v %v, want the text back", res, err)
	}

	_, err := callAsync(t, sup, "tu__deep", nil)
	var ue *UnavailableError
	te := ToolError(err)
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "nested more than 10000 levels deep") ||
		te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Hint(), "use another tool") {
		t.Fatalf("got %v (%+v), want UPSTREAM_UNAVAILABLE saying the reply is nested too deep", err, te)
	}
	restarted(t, sup, "tu", "nested more than 10000 levels deep")
}

// logCounter counts the bytes of log it is given and keeps the records that report dropped
// stderr lines.
type logCounter struct {
	mu      sync.Mutex
	bytes   int
	dropped []string
}

func (c *logCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytes += len(p)
	if s := string(p); strings.Contains(s, "lines dropped") {
		c.dropped = append(c.dropped, s)
	}
	return len(p), nil
}

// A server's stderr went to the log without a bound (100 MB of stderr made a 107 MB log): past
// a burst, lines are dropped and counted, and the last one is still kept for errors.
func TestStderrFloodIsBounded(t *testing.T) {
	logged := &logCounter{}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": misbehavingSpec(t)},
		Options{Logger: slog.New(slog.NewTextHandler(logged, nil))})
	srv := sup.Server("tu")
	waitState(t, srv, Ready)
	if res, err := callAsync(t, sup, "tu__stderr_flood", map[string]any{"mib": 8}); err != nil || textOf(res) != "flooded" {
		t.Fatalf("got %v %v", res, err)
	}
	// Its stderr is read on its own goroutine, which logs a line before it keeps it as the last.
	eventually(t, "the flood's last line to be kept", func() bool { return srv.State().LastStderr == "flood: end" })
	logged.mu.Lock()
	defer logged.mu.Unlock()
	if logged.bytes > 1<<20 {
		t.Errorf("8 MiB of stderr made %d bytes of log, want at most 1 MiB", logged.bytes)
	}
	if len(logged.dropped) == 0 || !strings.Contains(logged.dropped[0], "server=tu") || !strings.Contains(logged.dropped[0], "dropped=") {
		t.Errorf("got reports of dropped lines %q, want one naming the server and the count", logged.dropped)
	}
}

// Dropped lines are reported at once the first time, then at most every stderrReportEvery;
// a count left when the server goes quiet is reported when its interval ends (it used to
// wait for the server's next line, which might never come), and the rest when stderr ends.
func TestStderrDropsAreReported(t *testing.T) {
	logged := &logCounter{}
	var fire func()
	armed := 0
	d := drops{log: slog.New(slog.NewTextHandler(logged, nil)), after: func(wait time.Duration, f func()) func() bool {
		armed++
		fire = f
		return func() bool { fire = nil; return true }
	}}
	reports := func() []string {
		logged.mu.Lock()
		defer logged.mu.Unlock()
		var counts []string
		for _, r := range logged.dropped {
			counts = append(counts, r[strings.Index(r, "dropped="):len(r)-1])
		}
		return counts
	}
	t0 := time.Now()
	d.add(t0)
	d.add(t0.Add(time.Second))
	d.add(t0.Add(2 * time.Second))
	if got := reports(); !slices.Equal(got, []string{"dropped=1"}) || armed != 1 {
		t.Fatalf("after three drops in 2 s: reports %q, %d timers; want the first at once and one timer for the rest", got, armed)
	}
	fire() // the interval ends with the server quiet
	if got := reports(); !slices.Equal(got, []string{"dropped=1", "dropped=2"}) {
		t.Fatalf("when the interval ended: reports %q, want the two held back", got)
	}
	d.add(t0.Add(11 * time.Second)) // 1 s after the last report was due
	if got := reports(); len(got) != 2 || armed != 2 || fire == nil {
		t.Fatalf("a drop 1 s after a report: reports %q, %d timers; want it held for a second timer", got, armed)
	}
	d.close()
	if got := reports(); !slices.Equal(got, []string{"dropped=1", "dropped=2", "dropped=1"}) || fire != nil {
		t.Errorf("when stderr ended: reports %q, timer stopped %v; want the last one reported and its timer stopped", got, fire == nil)
	}
}

// The stderr budget lets a burst through, then refills at its rate, never past the burst.
func TestLogBudget(t *testing.T) {
	t0 := time.Now()
	b := logBudget{tokens: stderrBurst, last: t0}
	steps := []struct {
		what  string
		after time.Duration
		cost  int
		want  bool
	}{
		{"the whole burst", 0, stderrBurst, true},
		{"a byte more at once", 0, 1, false},
		{"a second's refill", time.Second, stderrRate, true},
		{"a byte more in the same second", time.Second, 1, false},
		{"the burst, an hour later", time.Hour, stderrBurst, true},
		{"a byte more: the hour did not fill past the burst", time.Hour, 1, false},
	}
	for _, s := range steps {
		if got := b.take(s.cost, t0.Add(s.after)); got != s.want {
			t.Errorf("%s: got %v, want %v", s.what, got, s.want)
		}
	}
}
