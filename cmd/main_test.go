package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/schemas"
)

// The end-to-end tests run the real mcpctl over stdio: the test binary re-executes itself as
// `mcpctl` when MCPCTL_BE_MAIN is set, so the server under test is built with -race too.
func TestMain(m *testing.M) {
	if os.Getenv("MCPCTL_BE_UPSTREAM") != "" {
		os.Exit(beUpstream(os.Getenv("MCPCTL_BE_UPSTREAM")))
	}
	if os.Getenv("MCPCTL_BE_MAIN") == "1" {
		if path := os.Getenv("MCPCTL_TEST_CPUPROFILE"); path != "" { // to profile the server a benchmark drives
			if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
		if path := os.Getenv("MCPCTL_TEST_HEAPPROFILE"); path != "" { // what the server holds, on SIGUSR1
			profileHeapOnSignal(path)
		}
		ctx, stop := SignalContext()
		code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
		stop()
		pprof.StopCPUProfile() // os.Exit runs no deferred call
		os.Exit(code)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// testHome is a fresh $HOME with XDG directories inside, so nothing of the machine leaks in.
func testHome(tb testing.TB) []string {
	tb.Helper()
	home := tb.TempDir()
	return []string{
		"MCPCTL_BE_MAIN=1",
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"LOG_LEVEL=debug",
		"PATH=" + os.Getenv("PATH"),
	}
}

// session is a connected MCP client on a child `mcpctl serve`.
type session struct {
	*client.Client
	init   *mcp.InitializeResult
	stderr *syncBuffer
	cmd    *exec.Cmd // the child process

	mu            sync.Mutex
	notifications []mcp.JSONRPCNotification
	notified      chan struct{} // signalled (coalesced) on every notification
}

// serve starts `mcpctl serve args...` with env and connects a client. The child ends with the test.
func serve(tb testing.TB, env []string, args ...string) *session {
	tb.Helper()
	return serveIn(tb, "", env, args...)
}

// serveIn is serve with the child's working directory set to dir ("" = ours).
func serveIn(tb testing.TB, dir string, env []string, args ...string) *session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := &session{stderr: &syncBuffer{}, notified: make(chan struct{}, 1)}
	c, init, err := dialServerNotify(ctx, os.Args[0], env, s.stderr, s.onNotification, func(c *exec.Cmd) { s.cmd, c.Dir = c, dir }, args...)
	if err != nil {
		tb.Fatalf("start mcpctl serve %v: %v\nstderr:\n%s", args, err, s.stderr)
	}
	s.Client, s.init = c, init
	tb.Cleanup(func() {
		c.Close()
		if tb.Failed() {
			tb.Logf("server stderr:\n%s", s.stderr)
		}
	})
	return s
}

func (s *session) onNotification(n mcp.JSONRPCNotification) {
	s.mu.Lock()
	s.notifications = append(s.notifications, n)
	s.mu.Unlock()
	select {
	case s.notified <- struct{}{}:
	default:
	}
}

// waitNotification waits until a notification with method has arrived (counting from the
// start of the session), or fails the test after the deadline.
func (s *session) waitNotification(tb testing.TB, method string, deadline time.Duration) {
	tb.Helper()
	s.waitNotifications(tb, method, 1, deadline)
}

// waitNotifications waits until n notifications with method have arrived, or fails the test
// after the deadline.
func (s *session) waitNotifications(tb testing.TB, method string, n int, deadline time.Duration) {
	tb.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		if s.count(method) >= n {
			return
		}
		select {
		case <-s.notified:
		case <-timer.C:
			tb.Fatalf("no %s notification within %s", method, deadline)
		}
	}
}

// call calls a tool, checks the result against the tool's contract (a structured result valid
// against its output schema with the same JSON as text, or an isError result valid against the
// error schema) and decodes it into out.
func (s *session) call(tb testing.TB, name string, args map[string]any, out any) *mcp.CallToolResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := callTool(ctx, s.Client, name, args, nil)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	checkResult(tb, name, res)
	if out != nil {
		raw := resultJSON(tb, res)
		if !res.IsError {
			raw, _ = json.Marshal(res.StructuredContent)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			tb.Fatalf("%s: decode %s: %v", name, raw, err)
		}
	}
	return res
}

// callError calls a tool that must fail with code, and returns the error body.
func (s *session) callError(tb testing.TB, name string, args map[string]any, code string) toolError {
	tb.Helper()
	var te toolError
	res := s.call(tb, name, args, &te)
	if !res.IsError {
		tb.Fatalf("%s(%v): got success %s, want error %s", name, args, resultJSON(tb, res), code)
	}
	if te.Error != code {
		tb.Fatalf("%s(%v): got error %s (%s), want %s", name, args, te.Error, te.Message, code)
	}
	return te
}

func resultJSON(tb testing.TB, res *mcp.CallToolResult) []byte {
	tb.Helper()
	if len(res.Content) == 0 {
		tb.Fatal("result has no content")
	}
	tc, ok := mcp.AsTextContent(res.Content[len(res.Content)-1])
	if !ok {
		tb.Fatalf("last content is %T, want text", res.Content[len(res.Content)-1])
	}
	return []byte(tc.Text)
}

// checkResult holds every tool result in the suite to its contract.
func checkResult(tb testing.TB, name string, res *mcp.CallToolResult) {
	tb.Helper()
	text := resultJSON(tb, res)
	if res.IsError {
		if err := schemas.Validate("error", text); err != nil {
			tb.Fatalf("%s: error result breaks the error schema: %v\n%s", name, err, text)
		}
		return
	}
	if res.StructuredContent == nil {
		tb.Fatalf("%s: success without structuredContent", name)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	if err := schemas.Validate(name+".output", structured); err != nil {
		tb.Fatalf("%s: result breaks its output schema: %v\n%s", name, err, structured)
	}
	if b, ok := res.StructuredContent.(map[string]any)["briefing"].(string); ok {
		// An intercepted call: the briefing is the first text block, and structuredContent's
		// too, for clients that read only that; the rest is the result as it would be without.
		if first, _ := mcp.AsTextContent(res.Content[0]); len(res.Content) < 2 || first.Text != b {
			tb.Fatalf("%s: structuredContent's briefing is not the text before the result", name)
		}
		rest := maps.Clone(res.StructuredContent.(map[string]any))
		delete(rest, "briefing")
		structured, _ = json.Marshal(rest)
	}
	if rt, ok := res.StructuredContent.(map[string]any)["text"].(string); ok && (name == "begin_session" || name == "read_prompts") {
		text, _ = json.Marshal(rt) // briefings show their prose as the text
		structured, _ = json.Marshal(rt)
	}
	if rt, ok := res.StructuredContent.(map[string]any)["content"].(string); ok && name == "read_section" {
		// A section's text is the section itself; a page of a longer one is followed by a note
		// saying which page it is, as the model reads no page fields.
		sc := res.StructuredContent.(map[string]any)
		if pages, _ := sc["pages"].(float64); pages > 1 && sc["sections"] == nil && strings.HasPrefix(string(text), rt) {
			if note := string(text[len(rt):]); !strings.Contains(note, "\n---\nPage ") {
				tb.Fatalf("read_section: a page of a section is followed by %q, want a note naming the page", note)
			}
			text = text[:len(rt)]
		}
		text, _ = json.Marshal(string(text))
		structured, _ = json.Marshal(rt)
	}
	if !jsonEqual(structured, text) {
		tb.Fatalf("%s: text content differs from structuredContent:\n%s\n%s", name, text, structured)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// syncBuffer is a bytes.Buffer safe for the child's stderr copier and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// logLines returns the server's JSON log lines that have msg.
func (b *syncBuffer) logLines(tb testing.TB, msg string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, line := range strings.Split(b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// eventually polls cond until it holds, failing the test after the deadline: a wait for a
// condition another process brings about, never a timed assertion.
func eventually(tb testing.TB, deadline time.Duration, what string, cond func() bool) {
	tb.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			tb.Fatalf("timed out after %s waiting until %s", deadline, what)
		}
	}
}

// profileHeapOnSignal writes the live heap to path each time the process gets SIGUSR1, so a
// benchmark or a script can see what a running server holds.
func profileHeapOnSignal(path string) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	go func() {
		for range sigs {
			if f, err := os.Create(path); err == nil {
				runtime.GC()
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}()
}
