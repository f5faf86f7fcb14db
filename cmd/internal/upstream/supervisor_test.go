package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

func TestServesUpstream(t *testing.T) {
	spec, markDir := testSpec(t, map[string]string{"TOKEN": "tok-${TEST_TOKEN}-$HOME"})
	spec.Deny = []string{"secret_*"}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	srv := sup.Server("tu")
	st := waitState(t, srv, Ready)

	// Every page of the server's list (two tools a page) is followed; deny applies.
	var names []string
	byName := map[string]Tool{}
	for _, tl := range srv.Tools() {
		names = append(names, tl.Tool.Name)
		byName[tl.Tool.Name] = tl
	}
	long := "tu__" + strings.Repeat("long", 14) + "l_"
	want := []string{"tu__add_tool", "tu__ask", "tu__big", "tu__block", "tu__broken", "tu__crash", "tu__env", "tu__fail", "tu__progress", "tu__schema", "tu__small", "tu__spawn"}
	for _, w := range want {
		if _, ok := byName[w]; !ok {
			t.Errorf("got tools %v, want %s among them", names, w)
		}
	}
	if len(names) != len(want)+1 || st.Tools != len(names) {
		t.Errorf("got %d tools (status says %d), want %d: %v", len(names), st.Tools, len(want)+1, names)
	}
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	var longName string
	for _, n := range names {
		if !valid.MatchString(n) {
			t.Errorf("tool name %q is not 1-64 of [A-Za-z0-9_-]", n)
		}
		if strings.HasPrefix(n, long[:20]) {
			longName = n
		}
	}
	if got := byName[longName].Own; got != strings.Repeat("long", 17)+".name" {
		t.Errorf("long tool %q has own name %q", longName, got)
	}

	// 15 tools at 2 a page: all 8 pages were asked for.
	if got := waitMark(t, markDir, "tools-pages"); got != "8" {
		t.Errorf("the server was asked for %s pages of tools, want 8", got)
	}

	// The upstream's own schema and annotations, as it sent them.
	var schema map[string]any
	if err := json.Unmarshal(byName["tu__schema"].Tool.RawInputSchema, &schema); err != nil || schema["$defs"] == nil {
		t.Errorf("got input schema %s, want the upstream's with $defs", byName["tu__schema"].Tool.RawInputSchema)
	}
	if ro := byName["tu__small"].Tool.Annotations.ReadOnlyHint; ro == nil || !*ro {
		t.Errorf("got readOnlyHint %v, want true", ro)
	}

	ctx := context.Background()
	tests := []struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"tu__small", map[string]any{"word": "hi"}, "small: hi", false},
		{"tu__fail", nil, "fail: as asked", true},
		{"tu__env", nil, "tok-s3cret-$HOME", false},
		{longName, nil, "long", false},
	}
	for _, tt := range tests {
		res, err := sup.CallTool(ctx, tt.tool, tt.args, nil)
		if err != nil {
			t.Errorf("CallTool(%s): %v", tt.tool, err)
			continue
		}
		if got := resultText(t, res); got != tt.want || res.IsError != tt.isError {
			t.Errorf("CallTool(%s) = %q isError=%v, want %q isError=%v", tt.tool, got, res.IsError, tt.want, tt.isError)
		}
	}
	res, err := sup.CallTool(ctx, "tu__big", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(resultText(t, res)); got != bigResult {
		t.Errorf("big result has %d bytes, want %d", got, bigResult)
	}
	// A protocol error is UPSTREAM_ERROR, naming the server and keeping the cause.
	_, err = sup.CallTool(ctx, "tu__broken", nil, nil)
	var ce *CallError
	if !errors.As(err, &ce) || ce.Server != "tu" || ce.Name != "broken" || ToolError(err).Code != promptlib.CodeUpstreamError {
		t.Errorf("handler error: got %v, want a CallError for tu's broken", err)
	}
	_, err = srv.ReadResource(ctx, "test://nope")
	if !errors.As(err, &ce) || !errors.Is(err, mcp.ErrResourceNotFound) {
		t.Errorf("reading a missing resource: got %v, want a CallError wrapping ErrResourceNotFound", err)
	}
	if _, err := sup.CallTool(ctx, "tu__secret_admin", nil, nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("calling a denied tool: got %v, want ErrUnknown", err)
	}

	// Progress reaches the caller's callback.
	var mu sync.Mutex
	var steps []string
	res, err = sup.CallTool(ctx, "tu__progress", nil, func(p, total float64, msg string) {
		mu.Lock()
		steps = append(steps, msg)
		mu.Unlock()
		if p == 3 {
			os.WriteFile(filepath.Join(markDir, "progress-seen"), nil, 0o600)
		}
	})
	if err != nil || resultText(t, res) != "done" {
		t.Fatalf("progress call: %v", err)
	}
	// The tool answers only after the last step reached us (see runTestUpstream).
	mu.Lock()
	if got := strings.Join(steps, ","); got != "step 1,step 2,step 3" {
		t.Errorf("got progress %q, want step 1..3", got)
	}
	mu.Unlock()

	// Prompts and resources, templates included.
	if ps := srv.Prompts(); len(ps) != 1 || ps[0].Prompt.Name != "tu__greet" || ps[0].Own != "greet" {
		t.Errorf("got prompts %+v, want tu__greet", ps)
	}
	pr, err := sup.GetPrompt(ctx, "tu__greet", map[string]string{"name": "Ada"})
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(mcp.TextContent).Text != "Hello, Ada" {
		t.Errorf("GetPrompt: %+v, %v", pr, err)
	}
	if rs := srv.Resources(); len(rs) != 1 || rs[0].Resource.URI != "test://readme" {
		t.Errorf("got resources %+v", rs)
	}
	if ts := srv.ResourceTemplates(); len(ts) != 1 || ts[0].Template.URITemplate.Raw() != "test://item/{id}" {
		t.Errorf("got templates %+v", ts)
	}
	for uri, want := range map[string]string{"test://readme": "# Read me", "test://item/42": "item test://item/42"} {
		rr, err := sup.Server("tu").ReadResource(ctx, uri)
		if err != nil {
			t.Errorf("ReadResource(%s): %v", uri, err)
			continue
		}
		if got := rr.Contents[0].(mcp.TextResourceContents).Text; got != want {
			t.Errorf("ReadResource(%s) = %q, want %q", uri, got, want)
		}
	}
}

func TestStartReturnsBeforeSlowServerIsReady(t *testing.T) {
	spec, _ := testSpec(t, map[string]string{envSlow: "2s"})
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"slow": spec}, Options{})
	// The server sleeps 2 s before it answers initialize: had Start waited, it would be ready.
	if st := sup.Server("slow").State(); st.State != Starting {
		t.Fatalf("right after Start the state is %s, want starting", st.State)
	}
	// A call made now waits for it, within the call's timeout.
	res, err := sup.CallTool(context.Background(), "slow__small", map[string]any{"word": "late"}, nil)
	if err != nil {
		t.Fatalf("call to a starting server: %v", err)
	}
	if got := resultText(t, res); got != "small: late" {
		t.Errorf("got %q", got)
	}
}

func TestStartingServerTimesOut(t *testing.T) {
	spec, _ := testSpec(t, map[string]string{envSlow: "1h"})
	spec.TimeoutMs = 200
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"stuck": spec}, Options{})
	_, err := sup.CallTool(context.Background(), "stuck__small", nil, nil)
	// The call waits for the start; on a loaded machine it may come after the 200 ms have
	// already run out, and then it finds the server failed for that reason.
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "did not finish starting") && !strings.Contains(ue.Reason, "did not finish initializing within 200ms") {
		t.Fatalf("got %v, want an UnavailableError saying it did not finish starting", err)
	}
	st := waitState(t, sup.Server("stuck"), Failed)
	if !strings.Contains(st.LastError, "did not finish initializing within 200ms") {
		t.Errorf("got last error %q", st.LastError)
	}
	// The child's stderr is copied on its own goroutine: its last line may land just after the
	// failure is recorded.
	eventually(t, "the child's last stderr line is kept", func() bool {
		return sup.Server("stuck").State().LastStderr == "test upstream: starting"
	})
}

func TestServerDiesAndComesBack(t *testing.T) {
	spec, _ := testSpec(t, nil)
	// A restart delay long enough that the calls below come while the server is down, even on
	// a loaded machine (500 ms was not always).
	sup, ch := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{MinBackoff: 2 * time.Second, MaxBackoff: 2 * time.Second})
	srv := sup.Server("tu")
	first := waitState(t, srv, Ready)
	ctx := context.Background()
	changesBefore := ch.atLeast(t, 1) // the start's

	// The crash tool exits the process in the middle of the call.
	_, err := sup.CallTool(ctx, "tu__crash", nil, nil)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Server != "tu" || ue.LastStderr != "fatal: crash requested" || !strings.Contains(ue.Reason, "exit status 3") {
		t.Fatalf("crash call: got %v, want an UnavailableError naming tu, exit status 3 and its last stderr line", err)
	}
	te := ToolError(err)
	if te == nil || te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Message, "server tu") ||
		!strings.Contains(te.Message, "fatal: crash requested") || te.Hint() == "" || strings.Contains(te.Hint(), "Only the user") {
		// It started and served: its restart may well mend it.
		t.Fatalf("crash call: tool error %+v, want one that does not leave it to the user", te)
	}
	// What comes next is the crash's own hint: a call waits for the restart. The code's generic
	// hint said to try again in a few seconds beside it.
	if h := te.Hint(); !strings.Contains(h, "a call made meanwhile waits for the restart") || strings.Contains(h, "try again") {
		t.Errorf("crash call: hint %q, want that a call waits for the restart, and no 'try again'", h)
	}
	st := waitState(t, srv, Failed)
	if st.Tools != 0 || len(srv.Tools()) != 0 {
		t.Errorf("a dead server still lists %d tools", len(srv.Tools()))
	}
	if st.LastError == "" || st.Hint == "" || st.RecoveredFrom != "" || st.FailedAt.IsZero() {
		t.Errorf("failed: lastError %q, hint %q, recoveredFrom %q, failedAt %v; want the failure, its hint and when", st.LastError, st.Hint, st.RecoveredFrom, st.FailedAt)
	}
	// OnChange fires after the state is recorded, so the test may see Failed before it.
	ch.atLeast(t, changesBefore+1)

	// The next call comes while the restart is 2 s away, within the call's timeout: it waits
	// for the restart and is answered by the new process (it was answered "unavailable" at once).
	res, err := sup.CallTool(ctx, "tu__small", map[string]any{"word": "after"}, nil)
	if err != nil || resultText(t, res) != "small: after" {
		t.Fatalf("call while the server restarts: %v, want it to wait for the restart and be answered", err)
	}
	again := srv.State()
	if again.State != Ready || again.PID == first.PID || again.Restarts != 1 {
		t.Errorf("after the restart: %s, pid %d (was %d), restarts %d, want ready, a new pid and 1", again.State, again.PID, first.PID, again.Restarts)
	}
	// Ready again, its failure is past: reported as what it recovered from, with the dead
	// process's stderr line, and without lastError or a hint to act on ("mcpctl restarts it").
	if again.LastError != "" || again.Hint != "" || !strings.Contains(again.RecoveredFrom, "exit status 3") ||
		!strings.Contains(again.RecoveredFrom, "fatal: crash requested") || again.FailedAt.Before(first.Since) {
		t.Errorf("after the restart: lastError %q, hint %q, recoveredFrom %q, failedAt %v; want only the past failure, and when",
			again.LastError, again.Hint, again.RecoveredFrom, again.FailedAt)
	}

	// Killed from outside, it is noticed and restarted the same way.
	if err := syscall.Kill(again.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st = waitState(t, srv, Failed)
	if !strings.Contains(st.LastError, "signal: killed") {
		t.Errorf("got last error %q, want it killed", st.LastError)
	}
	if _, err := sup.CallTool(ctx, "tu__small", nil, nil); err != nil {
		t.Errorf("call while a killed server restarts: %v, want it to wait for the restart", err)
	}
}

// A call that comes while the restart is further off than the call's timeout is answered at
// once: waiting could only end in the timeout.
func TestCallDoesNotWaitForARestartPastItsTimeout(t *testing.T) {
	spec, _ := testSpec(t, nil)
	spec.TimeoutMs = 5000
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{MinBackoff: time.Hour, MaxBackoff: time.Hour})
	srv := sup.Server("tu")
	waitState(t, srv, Ready)
	if _, err := sup.CallTool(context.Background(), "tu__crash", nil, nil); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("crash call: %v", err)
	}
	_, err := sup.CallTool(context.Background(), "tu__small", nil, nil)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.State != Failed || !strings.Contains(ue.Reason, "exit status 3") {
		t.Errorf("call an hour before the restart: got %v, want UPSTREAM_UNAVAILABLE with the crash", err)
	}
	// Calling again at once would fail the same way: the model is told when the restart is.
	if h := ToolError(err).Hint(); !strings.Contains(h, "Its next start is in about 60 min") {
		t.Errorf("call an hour before the restart: hint %q, want when its next start is", h)
	}
}

// A call that waits for a restart that fails is told so, with the failed start's reason and
// stderr line, not the crash's.
func TestCallWaitingForAFailedRestartIsToldWhy(t *testing.T) {
	spec, _ := testSpec(t, map[string]string{envDead: filepath.Join(t.TempDir(), "dead")})
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{MinBackoff: 2 * time.Second, MaxBackoff: 2 * time.Second})
	waitState(t, sup.Server("tu"), Ready)
	if _, err := sup.CallTool(context.Background(), "tu__crash", nil, nil); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("crash call: %v", err)
	}
	_, err := sup.CallTool(context.Background(), "tu__small", nil, nil)
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "exit status 1 while starting") || ue.LastStderr != "test upstream: cannot start after the crash" {
		t.Fatalf("call while the restart fails: got %v, want the failed start's reason and stderr line", err)
	}
	// Its restart failed: it ran before, but now fails as it starts, which the user must see to.
	if h := ToolError(err).Hint(); !strings.Contains(h, "It failed as it started, so only the user can fix this") {
		t.Errorf("hint %q, want that only the user can fix it", h)
	}
}

func TestCancelledCallIsCancelledUpstream(t *testing.T) {
	spec, markDir := testSpec(t, nil)
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	waitState(t, sup.Server("tu"), Ready)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sup.CallTool(ctx, "tu__block", nil, nil)
		done <- err
	}()
	waitMark(t, markDir, "block-started")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: got %v, want context.Canceled", err)
	}
	if got := waitMark(t, markDir, "block-cancelled"); got != context.Canceled.Error() {
		t.Errorf("upstream handler ended with %q, want it cancelled", got)
	}
	// Only the call ended, not the server.
	if _, err := sup.CallTool(context.Background(), "tu__small", nil, nil); err != nil {
		t.Errorf("call after the cancellation: %v", err)
	}
}

func TestCallTimeout(t *testing.T) {
	spec, markDir := testSpec(t, nil)
	// The timeout bounds the start too: 300 ms was too short for a start on a loaded machine.
	spec.TimeoutMs = 2000
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	_, err := sup.CallTool(context.Background(), "tu__block", nil, nil)
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) || ToolError(err).Code != promptlib.CodeUpstreamError {
		t.Fatalf("got %v, want a CallError for the deadline (UPSTREAM_ERROR)", err)
	}
	waitMark(t, markDir, "block-cancelled")
}

func TestListChanged(t *testing.T) {
	spec, _ := testSpec(t, nil)
	sup, ch := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	waitState(t, sup.Server("tu"), Ready)
	before := ch.atLeast(t, 1) // the start's
	if _, err := sup.CallTool(context.Background(), "tu__add_tool", nil, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "tu__extra to be listed", func() bool {
		for _, tl := range sup.Server("tu").Tools() {
			if tl.Tool.Name == "tu__extra" {
				return true
			}
		}
		return false
	})
	// OnChange fires after the new lists are recorded, so the test may see them before it.
	ch.atLeast(t, before+1)
	res, err := sup.CallTool(context.Background(), "tu__extra", nil, nil)
	if err != nil || resultText(t, res) != "extra" {
		t.Errorf("calling the new tool: %v", err)
	}
}

func TestGarbageOnStdoutIsSkipped(t *testing.T) {
	spec, _ := testSpec(t, map[string]string{envGarbage: "1"})
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	res, err := sup.CallTool(context.Background(), "tu__small", map[string]any{"word": "fine"}, nil)
	if err != nil || resultText(t, res) != "small: fine" {
		t.Errorf("call to a server that wrote garbage first: %v", err)
	}
}

func TestServerThatNeverStartsIsRestarted(t *testing.T) {
	spec, _ := testSpec(t, map[string]string{envExit: "1"})
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"db": spec}, Options{MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond})
	srv := sup.Server("db")
	var st Status
	eventually(t, "three restarts", func() bool { st = srv.State(); return st.Restarts >= 3 })
	st = waitState(t, srv, Failed)
	if !strings.Contains(st.LastError, "exit status 1 while starting") || st.LastStderr != "test upstream: cannot open the database" {
		t.Errorf("got last error %q, last stderr %q", st.LastError, st.LastStderr)
	}
	_, err := sup.CallTool(context.Background(), "db__small", nil, nil)
	te := ToolError(err)
	if te == nil || te.Code != promptlib.CodeUpstreamUnavailable || !strings.Contains(te.Message, "cannot open the database") {
		// A call that lands while a restart is under way waits for it and fails the same way.
		t.Fatalf("got %v, want UPSTREAM_UNAVAILABLE with the stderr line", err)
	}
	// It fails as it starts, every time: the model is told to leave it to the user, and what
	// the user runs to see why, not to try again in a few seconds (it retried in a loop).
	if h := te.Hint(); !strings.Contains(h, "has failed every start since mcpctl began, so only the user can fix this") ||
		!strings.Contains(h, "'mcpctl describe server db' shows them why") || !strings.Contains(h, "Run servers.db.command by hand") ||
		strings.Contains(h, "try again") {
		t.Errorf("hint %q, want that only the user can fix it, and how they see why", h)
	}
}

func TestDescribeCommandNamesTheProject(t *testing.T) {
	for file, want := range map[string]string{
		"": "mcpctl describe server db",
		"/home/me/.config/mcpctl/projects/web.yaml":    "mcpctl describe server db --project web",
		"/home/me/src/Shop Front/.mcpctl/project.yaml": "mcpctl describe server db --project '/home/me/src/Shop Front'",
	} {
		if got := describeCommand("db", file); got != want {
			t.Errorf("describeCommand(db, %q) = %q, want %q", file, got, want)
		}
	}
}

func TestCommandThatCannotStart(t *testing.T) {
	tests := []struct {
		name, command, reason, hint string
	}{
		{"not in PATH", "mcpctl-no-such-server", "not found in PATH", "absolute path"},
		{"missing path", "/nonexistent/server", "does not exist", "Check servers.bad.command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"bad": {Command: tt.command}}, Options{Environ: []string{"PATH=/nonexistent"}})
			st := waitState(t, sup.Server("bad"), Failed)
			if !strings.Contains(st.LastError, tt.reason) {
				t.Errorf("got last error %q, want %q", st.LastError, tt.reason)
			}
			_, err := sup.CallTool(context.Background(), "bad__x", nil, nil)
			var ue *UnavailableError
			if !errors.As(err, &ue) || !strings.Contains(ue.Hint, tt.hint) {
				t.Errorf("got %v, want an UnavailableError with a hint about %q", err, tt.hint)
			}
		})
	}
}

// A command that cannot be started is the user's to mend, and the model is told that calling
// again will not help; a system out of processes or file descriptors is not, and the model is
// not told to give up on a server that the restart may bring up.
func TestCommandErrorSaysWhoCanMendIt(t *testing.T) {
	tests := []struct {
		name      string
		err       error // as exec.Cmd.Start and os.Pipe return it
		permanent bool
		hint      string
	}{
		{"not in PATH", &exec.Error{Name: "srv", Err: exec.ErrNotFound}, true, "absolute path"},
		{"not executable", &fs.PathError{Op: "fork/exec", Path: "/srv", Err: syscall.EACCES}, true, "chmod +x"},
		{"not a program", &fs.PathError{Op: "fork/exec", Path: "/srv", Err: syscall.ENOEXEC}, true, "Check servers.db"},
		{"no processes left", &fs.PathError{Op: "fork/exec", Path: "/srv", Err: syscall.EAGAIN}, false, "ulimit -u"},
		{"no descriptors left", &fs.PathError{Op: "pipe", Path: "", Err: syscall.EMFILE}, false, "ulimit -n"},
		{"no memory", &fs.PathError{Op: "fork/exec", Path: "/srv", Err: syscall.ENOMEM}, false, "starts it again"},
		{"no such command", &fs.PathError{Op: "fork/exec", Path: "/srv", Err: syscall.ENOENT}, true, "servers.db.command"},
		// exec names the command when the directory is missing.
		{"no such directory", &fs.PathError{Op: "fork/exec", Path: "/srv", Err: syscall.ENOENT}, true, "servers.db.cwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.name == "no such directory" {
				dir = filepath.Join(dir, "tools", "db")
			}
			reason, hint, permanent := commandError("db", "srv", dir, tt.err)
			if permanent != tt.permanent || !strings.Contains(hint, tt.hint) {
				t.Errorf("commandError = %q, %q, permanent %v; want permanent %v and a hint about %q", reason, hint, permanent, tt.permanent, tt.hint)
			}
			te := ToolError(&UnavailableError{Server: "db", State: Failed, Reason: reason, Hint: hint, Permanent: permanent})
			if gaveUp := strings.Contains(te.Advice, "Only the user can fix this"); gaveUp != tt.permanent {
				t.Errorf("the model is told only the user can fix it: %v, want %v (%s / %s)", gaveUp, tt.permanent, te.Message, te.Advice)
			}
		})
	}
}

// A server whose supervisor was never started is not "shutting down": nothing started it.
func TestUnstartedServerSaysSo(t *testing.T) {
	spec, _ := testSpec(t, nil)
	sup := New(map[string]gate.ServerSpec{"tu": spec}, Options{})
	ue := sup.Server("tu").Unavailable()
	if ue.State != Stopped || ue.Reason != "mcpctl has not started it" || strings.Contains(ue.Hint, "shutting down") {
		t.Errorf("a server never started: %s, %q, hint %q; want stopped, not started, and no word of a shutdown", ue.State, ue.Reason, ue.Hint)
	}
}

func TestCloseKillsProcessGroup(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"exits on stdin EOF", nil},
		{"ignores SIGTERM and EOF", map[string]string{envHold: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, _ := testSpec(t, tt.env)
			sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{StopGrace: 300 * time.Millisecond})
			st := waitState(t, sup.Server("tu"), Ready)
			res, err := sup.CallTool(context.Background(), "tu__spawn", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			grandchild, err := strconv.Atoi(resultText(t, res))
			if err != nil {
				t.Fatal(err)
			}
			if err := sup.Close(); err != nil {
				t.Fatal(err)
			}
			if got := sup.Server("tu").State().State; got != Stopped {
				t.Errorf("after Close the state is %s, want stopped", got)
			}
			var ue *UnavailableError
			if _, err := sup.CallTool(context.Background(), "tu__small", nil, nil); !errors.As(err, &ue) || ue.State != Stopped || !strings.Contains(ue.Hint, "shutting down") {
				t.Errorf("call after Close: got %v, want an UnavailableError for a stopped server, saying serve is shutting down", err)
			}
			for _, pid := range []int{st.PID, grandchild} {
				eventually(t, "process "+strconv.Itoa(pid)+" to be gone", func() bool { return gone(pid) })
			}
		})
	}
}

func TestNoOrphanAfterParentSIGKILL(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	markDir := t.TempDir()
	parent := exec.Command(exe)
	parent.Env = append(os.Environ(), envParent+"=1", envMark+"="+markDir)
	parent.Stderr = logWriter{t}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parent.Process.Kill(); parent.Wait() })
	child, err := strconv.Atoi(waitMark(t, markDir, "child.pid"))
	if err != nil || child <= 0 {
		t.Fatalf("child pid: %v", err)
	}
	if gone(child) {
		t.Fatal("the child is gone before its parent was killed")
	}
	// The child ignores SIGTERM and outlives its stdin: only the parent-death signal ends it.
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	eventually(t, "the upstream child of a SIGKILLed parent to be gone", func() bool { return gone(child) })
}

func TestConcurrentCalls(t *testing.T) {
	spec, _ := testSpec(t, nil)
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"tu": spec}, Options{})
	const n = 40
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, want := "tu__small", "small: "+strconv.Itoa(i)
			if i%8 == 0 {
				tool, want = "tu__big", ""
			}
			res, err := sup.CallTool(context.Background(), tool, map[string]any{"word": strconv.Itoa(i)}, nil)
			switch {
			case err != nil:
				errs <- err
			case want != "" && textOf(res) != want:
				errs <- errors.New("got " + textOf(res) + ", want " + want)
			case want == "" && len(textOf(res)) != bigResult:
				errs <- errors.New("big result of the wrong size")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A child of a project's servers learns the chain of projects that started it, the inherited
// part first; a command with no project (none set) passes none on.
func TestChildChain(t *testing.T) {
	sep := string(filepath.ListSeparator)
	env := map[string]string{ParentEnv: "/a/.mcpctl/project.yaml"}
	sup := New(map[string]gate.ServerSpec{"s": {Command: "true"}}, Options{Project: "/b/web.yaml", Getenv: func(k string) string { return env[k] }})
	want := ParentEnv + "=/a/.mcpctl/project.yaml" + sep + "/b/web.yaml"
	if got := sup.Server("s").command().Env; !slices.Contains(got, want) {
		t.Errorf("child env lacks %q", want)
	}
	sup = New(map[string]gate.ServerSpec{"s": {Command: "true"}}, Options{Environ: []string{"HOME=/h"}})
	for _, kv := range sup.Server("s").command().Env {
		if strings.HasPrefix(kv, ParentEnv+"=") {
			t.Errorf("no project, yet the child gets %q", kv)
		}
	}
	chain := "/a/.mcpctl/project.yaml" + sep + "/b/web.yaml"
	if !InChain(chain, "/b/web.yaml") || !InChain(chain, "/a/.mcpctl/project.yaml") || InChain(chain, "/c/x.yaml") || InChain(chain, "") || InChain("", "/b/web.yaml") {
		t.Error("InChain finds exactly the files on the chain")
	}
}

// A server that prints to stdout what belongs on stderr never answers initialize there: its
// start times out, and the failure names the line, which is the cause, not only the wait.
func TestStartPrintingOnStdoutSaysSo(t *testing.T) {
	spec := gate.ServerSpec{Command: "sh", Args: []string{"-c", `echo '  hello, not json'; echo '{"jsonrpc":"2.0","method":"x"}'; exec sleep 1000`}, TimeoutMs: 2000}
	// 2 s, not 200 ms: on a busy machine sh had not written its line when the start timed out.
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"chatty": spec}, Options{})
	st := waitState(t, sup.Server("chatty"), Failed)
	if !strings.Contains(st.LastError, `it wrote "hello, not json" on stdout`) {
		t.Errorf("last error %q, want it to name the line written on stdout", st.LastError)
	}
}

// A server started with npx that npm cannot fetch is reported by npm's cause, not by the
// pointer to its debug log that npm ends with (which is all "its last stderr line" said), nor
// by its advice. The lines are npm 10's for a package the registry does not have, and older
// npm's ("npm ERR!"); a line from the server itself after them is reported as it is.
func TestNpmFailureIsReportedByItsCause(t *testing.T) {
	npm10 := `npm warn Unknown user config "nodedir". This will stop working in the next major version of npm.
npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nopeexample
npm error 404
npm error 404  The requested resource '@modelcontextprotocol/server-nopeexample@*' could not be found or you do not have permission to access it.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-25T04_19_20_263Z-debug-0.log`
	npm6 := `npm ERR! code E404
npm ERR! 404 Not Found - GET https://registry.npmjs.org/server-nope - Not found
npm ERR! 404
npm ERR! A complete log of this run can be found in:
npm ERR!     /root/.npm/_logs/2020-01-01T00_00_00_000Z-debug.log`
	for _, tc := range []struct{ name, stderr, want string }{
		{"npm 10", npm10, "npm error code E404: 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nopeexample"},
		{"npm 6", npm6, "npm ERR! code E404: 404 Not Found - GET https://registry.npmjs.org/server-nope - Not found"},
		{"the server's own line after npm's", npm10 + "\nserver: cannot open the database", "server: cannot open the database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "stderr.txt")
			if err := os.WriteFile(file, []byte(tc.stderr+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			spec := gate.ServerSpec{Command: "sh", Args: []string{"-c", `cat "$1" >&2; exit 1`, "sh", file}}
			sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"fs": spec}, Options{MinBackoff: time.Hour, MaxBackoff: time.Hour})
			if st := waitState(t, sup.Server("fs"), Failed); st.LastStderr != tc.want {
				t.Errorf("last stderr line %q, want %q", st.LastStderr, tc.want)
			}
		})
	}
}
