package upstream

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
)

// waitLimit bounds every wait in these tests; reaching it fails the test.
const waitLimit = 15 * time.Second

// testSpec is a server spec that runs this test binary as the test upstream, leaving its marks
// in a fresh directory.
func testSpec(tb testing.TB, env map[string]string) (gate.ServerSpec, string) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	markDir := tb.TempDir()
	e := map[string]string{envUpstream: "1", envMark: markDir}
	for k, v := range env {
		e[k] = v
	}
	return gate.ServerSpec{Command: exe, Env: e, TimeoutMs: 20000}, markDir
}

// logWriter sends the supervisor's log to the test's log.
type logWriter struct{ tb testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// changes counts OnChange calls and lets a test wait for the next one.
type changes struct {
	n  atomic.Int64
	ch chan struct{}
}

// atLeast waits until OnChange has fired n times and returns the count: a baseline taken after
// a state change must wait for the OnChange that follows it.
func (c *changes) atLeast(tb testing.TB, n int64) int64 {
	tb.Helper()
	eventually(tb, "OnChange to fire "+strconv.FormatInt(n, 10)+" times", func() bool { return c.n.Load() >= n })
	return c.n.Load()
}

// startSupervisor starts a supervisor over specs with short backoffs and closes it at the end of
// the test.
func startSupervisor(tb testing.TB, specs map[string]gate.ServerSpec, opts Options) (*Supervisor, *changes) {
	tb.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logWriter{tb}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff, opts.MaxBackoff = 50*time.Millisecond, 200*time.Millisecond
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = 500 * time.Millisecond
	}
	opts.Getenv = func(k string) string { return map[string]string{"TEST_TOKEN": "s3cret"}[k] }
	sup := New(specs, opts)
	ch := &changes{ch: make(chan struct{}, 1)}
	sup.OnChange(func() {
		ch.n.Add(1)
		select {
		case ch.ch <- struct{}{}:
		default:
		}
	})
	sup.Start(context.Background())
	tb.Cleanup(func() { sup.Close() })
	return sup, ch
}

// eventually waits for cond, checking it every few milliseconds, and fails the test after
// waitLimit.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(waitLimit)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", waitLimit, what)
		}
		<-tick.C
	}
}

func waitState(tb testing.TB, srv *Server, want State) Status {
	tb.Helper()
	var st Status
	eventually(tb, "server "+srv.Name()+" to be "+string(want), func() bool {
		st = srv.State()
		return st.State == want
	})
	return st
}

// waitMark waits for the test server to leave the file name in its mark directory.
func waitMark(tb testing.TB, dir, name string) string {
	tb.Helper()
	var data []byte
	eventually(tb, "mark "+name, func() bool {
		var err error
		data, err = os.ReadFile(filepath.Join(dir, name))
		return err == nil
	})
	return string(data)
}

// gone reports whether pid no longer runs: no such process, or a zombie nobody has reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

// textOf is the result's first text, or "" (safe off the test's goroutine).
func textOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(mcp.TextContent)
	return tc.Text
}

func resultText(tb testing.TB, res *mcp.CallToolResult) string {
	tb.Helper()
	if res == nil || len(res.Content) == 0 {
		tb.Fatalf("got result %+v, want text content", res)
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		tb.Fatalf("got content %T, want text", res.Content[0])
	}
	return tc.Text
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
