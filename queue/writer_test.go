package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

func TestWriterRoundTrip(t *testing.T) {
	l := newLib(t, 10)
	startProcessor(t, l, nil)
	w := patientWriter(t, l.Queue)
	res, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, promptlib.CreatePromptData{
		Title: "Round trip", Content: "x", Emoji: promptlib.Ptr("👨‍💻"), Color: promptlib.Ptr("purple"), URL: promptlib.Ptr("https://example.com")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Response.OK() || res.Response.ID == nil || res.OperationID == "" {
		t.Fatalf("got %+v, want a success naming the new prompt", res)
	}
	var icon, color string
	if err := l.DB.QueryRow(`SELECT icon, color FROM prompts WHERE id = ?`, *res.Response.ID).Scan(&icon, &color); err != nil {
		t.Fatal(err)
	}
	if icon != "👨‍💻" || color != "#A855F7" {
		t.Errorf("stored icon %q color %q, want 👨‍💻 #A855F7", icon, color)
	}
	// The processor answers before it files the operation: a write may return before then.
	if where := filed(t, l.Queue, res.OperationID); where != processedDir {
		t.Errorf("the operation was filed in %s, want %s", where, processedDir)
	}
	if got := queueLeftovers(t, l.Queue); len(got) != 0 {
		t.Errorf("queue holds %v after the round trip, want nothing", got)
	}
	if got := files(t, filepath.Join(l.Queue, processedDir)); len(got) != 1 || got[0] != res.OperationID+".json" {
		t.Errorf("processed/ holds %v, want the operation", got)
	}
	st, err := w.Status(context.Background(), res.OperationID)
	if err != nil || st.Status != StateApplied {
		t.Errorf("Status: got %+v, %v; want applied", st, err)
	}
	// An error answer says "not applied" and keeps the app's code.
	_, err = w.Submit(context.Background(), promptlib.OpDeleteFolder, promptlib.DeleteFolderData{ID: "11111111-1111-4111-8111-111111111111"})
	pe := asError(t, err)
	if pe.Code != promptlib.CodeFolderNotFound || pe.Outcome != promptlib.NotApplied {
		t.Errorf("got %s/%s, want FOLDER_NOT_FOUND/not_applied", pe.Code, pe.Outcome)
	}
	st, _ = w.Status(context.Background(), pe.OperationID)
	if st.Status != StateFailed || st.Reason == nil || !strings.Contains(*st.Reason, "FOLDER_NOT_FOUND") {
		t.Errorf("Status of the failed op: got %+v, want failed with its reason", st)
	}
}

// Fault: processor not running.
func TestWriterNoProcessorWithdraws(t *testing.T) {
	l := newLib(t, 1)
	w := fastWriter(t, l.Queue)
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("never"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeResponseTimeout || pe.Outcome != promptlib.NotApplied || !strings.Contains(pe.Message, "seems not to be running") {
		t.Errorf("got %s/%s %q, want RESPONSE_TIMEOUT, not applied, app not running", pe.Code, pe.Outcome, pe.Message)
	}
	// A writer given no processor is the app's (a Prompteka library on macOS): the code's hint,
	// which says to start the app, stands.
	if want := promptlib.CodeResponseTimeout.Hint(); pe.Hint() != want {
		t.Errorf("hint %q, want %q", pe.Hint(), want)
	}
	if got := queueLeftovers(t, l.Queue); len(got) != 0 {
		t.Errorf("queue holds %v, want it left as found", got)
	}
	// A processor started later finds nothing to apply.
	ready := make(chan struct{})
	startProcessor(t, l, func(point, _ string) {
		if point == HookReady {
			close(ready)
		}
	})
	<-ready
	st, _ := w.Status(context.Background(), strings.ToUpper(pe.OperationID)) // a model may give the id back in upper case
	if st.Status != StateUnknown {
		t.Errorf("Status: got %s, want unknown", st.Status)
	}
	if n := l.titled(t, "never"); n != 0 {
		t.Errorf("applied %d times, want 0", n)
	}
}

// Fault: processor slower than the deadline.
func TestWriterSlowProcessorOutcomePending(t *testing.T) {
	l := newLib(t, 1)
	release := make(chan struct{})
	claimed := make(chan string, 1)
	startProcessor(t, l, func(point, id string) {
		if point == HookAfterClaim {
			claimed <- id
			<-release
		}
	})
	w := fastWriter(t, l.Queue)
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("slow"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeResponseTimeout || pe.Outcome != promptlib.Unknown || !strings.Contains(pe.Message, "outcome pending") {
		t.Fatalf("got %s/%s %q, want RESPONSE_TIMEOUT, outcome pending", pe.Code, pe.Outcome, pe.Message)
	}
	if id := <-claimed; id != pe.OperationID {
		t.Fatalf("processor claimed %s, want %s", id, pe.OperationID)
	}
	if st, _ := w.Status(context.Background(), pe.OperationID); st.Status != StateProcessing {
		t.Errorf("Status while stalled: got %s, want processing", st.Status)
	}
	close(release)
	waitFor(t, "the late answer", func() bool { st, _ := w.Status(context.Background(), pe.OperationID); return st.Status == StateApplied })
	st, _ := w.Status(context.Background(), pe.OperationID)
	if st.Response == nil || !st.Response.OK() {
		t.Errorf("Status: got %+v, want applied with its response", st)
	}
	if n := l.titled(t, "slow"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

// Fault: torn or corrupt response.
func TestWriterCorruptResponse(t *testing.T) {
	target := "22222222-2222-4222-8222-222222222222"
	tests := []struct {
		name string
		body string
	}{
		{"empty", ``},
		{"torn", `{"status":"succ`},
		{"not JSON", `<html>`},
		{"schema-invalid", `{"status":"ok","message":"fine"}`},
		{"wrong id", `{"status":"success","id":"33333333-3333-4333-8333-333333333333","message":"deleted","error":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLib(t, 1)
			// The bad answer is there before the operation is even published: deterministic, and
			// the writer must still never take it as success.
			op, _ := promptlib.NewOperation(promptlib.OpDeletePrompt, promptlib.DeletePromptData{ID: target})
			os.WriteFile(filepath.Join(l.Queue, responseName(op.ID)), []byte(tt.body), 0o600)
			w := fastWriter(t, l.Queue)
			_, err := w.SubmitOperation(context.Background(), op)
			if err == nil {
				t.Fatal("a corrupt response was reported as success")
			}
			if pe := asError(t, err); pe.Outcome != promptlib.Unknown {
				t.Errorf("got outcome %s (%q), want unknown", pe.Outcome, pe.Message)
			}
			// Asked afterwards, the writer does not call applied what it refused...
			if st, err := w.Status(context.Background(), op.ID); err != nil || st.Status == StateApplied || st.Status == StateFailed {
				t.Errorf("Status: %+v, %v; want neither applied nor failed", st, err)
			}
			// ...but once a processor answers the operation for real, it says so.
			startProcessor(t, l, nil)
			filed(t, l.Queue, op.ID)
			if st, err := w.Status(context.Background(), op.ID); err != nil || st.Status != StateApplied || st.Response == nil || !st.Response.OK() {
				t.Errorf("Status once the processor answered: %+v, %v; want applied with its response", st, err)
			}
		})
	}
}

// Fault: a stray response for an unknown id is ignored, and removed after 24 h.
func TestWriterStrayResponse(t *testing.T) {
	l := newLib(t, 1)
	stray := filepath.Join(l.Queue, responseName(uuid.NewString()))
	os.WriteFile(stray, []byte(`{"status":"success","id":null,"message":"not yours","error":null}`), 0o600)
	startProcessor(t, l, nil)
	w := patientWriter(t, l.Queue)
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("mine")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("the stray response was touched: %v", err)
	}
	w.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	rep, err := w.Cleanup()
	if err != nil || rep.Responses != 1 {
		t.Fatalf("Cleanup: got %+v, %v; want one response removed", rep, err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stray response still there after 24 h")
	}
}

// Fault: clock skew in cleanup.
func TestWriterCleanupClockSkew(t *testing.T) {
	l := newLib(t, 1)
	now := time.Now()
	files := []struct {
		name    string
		age     time.Duration // negative: dated in the future
		removed bool
	}{
		{responseName("a1111111-1111-4111-8111-111111111111"), 25 * time.Hour, true},
		{responseName("a2222222-2222-4222-8222-222222222222"), time.Hour, false},
		{responseName("a3333333-3333-4333-8333-333333333333"), -48 * time.Hour, false},
		{tmpName("a4444444-4444-4444-8444-444444444444"), time.Hour, true},
		{tmpName("a5555555-5555-4555-8555-555555555555"), time.Second, false},
		{withdrawnName("a6666666-6666-4666-8666-666666666666"), time.Hour, true},
		{opName("a7777777-7777-4777-8777-777777777777"), 30 * 24 * time.Hour, false}, // pending: never
		{tmpName("a8888888-8888-4888-8888-888888888888"), -time.Hour, false},
	}
	for _, f := range files {
		p := filepath.Join(l.Queue, f.name)
		os.WriteFile(p, []byte("{}"), 0o600)
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
	w := NewWriter(l.Queue, testLogger(t))
	w.Now = func() time.Time { return now }
	rep, err := w.Cleanup()
	if err != nil {
		t.Fatal(err)
	}
	want := CleanupReport{Responses: 1, Temps: 1, Withdrawn: 1, Future: 2}
	if rep != want {
		t.Errorf("report: got %+v, want %+v", rep, want)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(l.Queue, f.name))
		if gone := errors.Is(err, os.ErrNotExist); gone != f.removed {
			t.Errorf("%s (age %s): removed %v, want %v", f.name, f.age, gone, f.removed)
		}
	}
}

// Fault: 1,000 pending operations.
func TestWriterQueueFull(t *testing.T) {
	l := newLib(t, 1)
	for i := 0; i < MaxPending; i++ {
		os.WriteFile(filepath.Join(l.Queue, opName(uuid.NewString())), []byte("{}"), 0o600)
	}
	_, err := fastWriter(t, l.Queue).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("full"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeQueueFull || pe.Outcome != promptlib.NotApplied {
		t.Errorf("got %s/%s, want QUEUE_FULL/not_applied", pe.Code, pe.Outcome)
	}
	if got := len(queueLeftovers(t, l.Queue)); got != MaxPending {
		t.Errorf("queue holds %d files, want the %d that were there", got, MaxPending)
	}
}

// Fault: symlinks and unsafe queue directories are refused before anything is written.
func TestWriterRefusesUnsafeQueue(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, q string) string // returns the queue path to use
	}{
		{"missing", func(t *testing.T, q string) string { return filepath.Join(q, "nope") }},
		{"symlink", func(t *testing.T, q string) string {
			link := filepath.Join(t.TempDir(), "link")
			os.Symlink(q, link)
			return link
		}},
		{"a file", func(t *testing.T, q string) string {
			f := filepath.Join(t.TempDir(), "file")
			os.WriteFile(f, nil, 0o600)
			return f
		}},
		{"group writable", func(t *testing.T, q string) string { os.Chmod(q, 0o770); return q }},
		{"world writable", func(t *testing.T, q string) string { os.Chmod(q, 0o757); return q }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLib(t, 1)
			q := tt.setup(t, l.Queue)
			_, err := fastWriter(t, q).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("x"))
			pe := asError(t, err)
			if pe.Code != promptlib.CodePermissionDenied || pe.Outcome != promptlib.NotApplied {
				t.Errorf("got %s/%s %q, want PERMISSION_DENIED/not_applied", pe.Code, pe.Outcome, pe.Message)
			}
			os.Chmod(l.Queue, 0o700)
			if got := queueLeftovers(t, l.Queue); len(got) != 0 {
				t.Errorf("queue holds %v, want nothing", got)
			}
		})
	}
}

// Fault: planted links for .tmp and {id}.json: O_EXCL and the no-replace link refuse them.
func TestWriterPlantedFiles(t *testing.T) {
	for _, plant := range []string{"tmp symlink", "op file exists"} {
		t.Run(plant, func(t *testing.T) {
			l := newLib(t, 1)
			op, _ := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt("planted"))
			victim := filepath.Join(t.TempDir(), "victim")
			os.WriteFile(victim, []byte("precious"), 0o600)
			var planted string
			if plant == "tmp symlink" {
				planted = filepath.Join(l.Queue, tmpName(op.ID))
				os.Symlink(victim, planted)
			} else {
				planted = filepath.Join(l.Queue, opName(op.ID))
				os.WriteFile(planted, []byte("precious"), 0o600)
			}
			_, err := fastWriter(t, l.Queue).SubmitOperation(context.Background(), op)
			pe := asError(t, err)
			if pe.Outcome != promptlib.NotApplied {
				t.Errorf("got outcome %s, want not_applied", pe.Outcome)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Errorf("the symlink target was written: %q", b)
			}
			if got := queueLeftovers(t, l.Queue); len(got) != 1 || got[0] != filepath.Base(planted) {
				t.Errorf("queue holds %v, want only the planted %s", got, filepath.Base(planted))
			}
		})
	}
}

// Fault: concurrent writers — no collision, no loss, each applied once.
// Concurrent writes through one Writer are each applied once. They share one watch of the queue
// (each held an inotify instance of its own, 40 of the 128 a user has), learn of their answers
// through it (there is no polling here), and it is closed once none waits.
func TestWriterConcurrent(t *testing.T) {
	l := newLib(t, 1)
	w := patientWriter(t, l.Queue)
	w.Poll, w.AttemptTimeout = time.Hour, time.Hour
	// A guard: without the watch's nudges every write would wait out its hour.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	before := inotifyInstances(t)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.Submit(ctx, promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("concurrent %d", i)))
			errs <- err
		}()
	}
	// Every write watches before it publishes: with all n published, all n are watching.
	waitFor(t, "every write published", func() bool { return len(queueLeftovers(t, l.Queue)) == n })
	if got := inotifyInstances(t) - before; got > 1 {
		t.Errorf("%d writes waiting hold %d inotify instances, want one between them", n, got)
	}
	startProcessor(t, l, nil)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := l.count(t, `SELECT COUNT(DISTINCT title) FROM prompts WHERE title LIKE 'concurrent %'`); got != n {
		t.Errorf("distinct prompts: got %d, want %d", got, n)
	}
	if got := l.count(t, `SELECT COUNT(*) FROM prompts WHERE title LIKE 'concurrent %'`); got != n {
		t.Errorf("prompts: got %d, want %d (each once)", got, n)
	}
	w.watch.mu.Lock()
	held := w.watch.w != nil || len(w.watch.waiters) > 0
	w.watch.mu.Unlock()
	if held {
		t.Error("the writer still watches the queue with no write waiting")
	}
}

// inotifyInstances counts this process's inotify instances (Linux); it skips elsewhere.
func inotifyInstances(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// Every operation file the writer publishes is valid against the operation schema.
func TestWriterOutputValid(t *testing.T) {
	l := newLib(t, 1)
	w := fastWriter(t, l.Queue)
	seen := make(chan []byte, 1)
	w.FS = &spyFS{FS: OSFS{}, onLink: func(tmp string) {
		b, _ := os.ReadFile(tmp)
		seen <- b
	}}
	w.Submit(context.Background(), promptlib.OpUpdatePrompt, promptlib.UpdatePromptData{
		ID: "22222222-2222-4222-8222-222222222222", Emoji: promptlib.Null[string](), Title: promptlib.Some("t")})
	b := <-seen
	if err := schemas.Validate("operation", b); err != nil {
		t.Errorf("published operation %s is invalid: %v", b, err)
	}
	if !strings.Contains(string(b), `"emoji":null`) || strings.Contains(string(b), `"url"`) {
		t.Errorf("published %s: want emoji null and url absent", b)
	}
}

type spyFS struct {
	FS
	onLink func(oldname string)
}

func (s *spyFS) Link(oldname, newname string) error {
	s.onLink(oldname)
	return s.FS.Link(oldname, newname)
}

// Fault: concurrent writers in several processes at once, besides goroutines in this one.
func TestWriterConcurrentProcesses(t *testing.T) {
	l := newLib(t, 1)
	startProcessor(t, l, nil)
	const children = 3
	cmds := make([]*exec.Cmd, children)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), envChildWrite+"="+l.Queue, fmt.Sprintf("%s=proc%d", envChildTitle, i))
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	w := patientWriter(t, l.Queue)
	for i := 0; i < childWrites; i++ {
		if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("parent %d", i))); err != nil {
			t.Error(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer process %d: %v", i, err)
		}
	}
	want := (children + 1) * childWrites
	if got := l.count(t, `SELECT COUNT(*) FROM prompts WHERE title LIKE 'proc%' OR title LIKE 'parent %'`); got != want {
		t.Errorf("prompts: got %d, want %d", got, want)
	}
	if got := l.count(t, `SELECT COUNT(DISTINCT title) FROM prompts WHERE title LIKE 'proc%' OR title LIKE 'parent %'`); got != want {
		t.Errorf("distinct prompts: got %d, want %d", got, want)
	}
}

// A call cancelled while waiting (the client gave up) withdraws its operation and says so.
func TestWriterCancelledWithdraws(t *testing.T) {
	l := newLib(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := patientWriter(t, l.Queue)
	w.FS = &spyFS{FS: OSFS{}, onLink: func(string) { cancel() }}
	_, err := w.Submit(ctx, promptlib.OpCreatePrompt, createPrompt("cancelled"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeTimeout || pe.Outcome != promptlib.NotApplied || !strings.Contains(pe.Hint(), "Nothing was applied") {
		t.Errorf("got %s/%s %q (hint %q), want TIMEOUT/not_applied, saying so", pe.Code, pe.Outcome, pe.Message, pe.Hint())
	}
	if got := queueLeftovers(t, l.Queue); len(got) != 0 {
		t.Errorf("queue holds %v", got)
	}
}

// A call cancelled after the processor took its operation says the outcome is pending, not
// that anyone waited the attempts' full time (the server stopping, or the client giving up).
func TestWriterCancelledAfterClaim(t *testing.T) {
	l := newLib(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	startProcessor(t, l, func(point, id string) {
		if point == HookAfterClaim {
			cancel()
			<-release
		}
	})
	w := patientWriter(t, l.Queue)
	_, err := w.Submit(ctx, promptlib.OpCreatePrompt, createPrompt("taken"))
	close(release)
	pe := asError(t, err)
	if pe.Code != promptlib.CodeTimeout || pe.Outcome != promptlib.Unknown || !strings.Contains(pe.Message, "call ended before") ||
		strings.Contains(pe.Message, "within") || !strings.Contains(pe.Hint(), "get_operation_status") {
		t.Errorf("got %s/%s %q (hint %q), want TIMEOUT/unknown: the call ended, outcome pending", pe.Code, pe.Outcome, pe.Message, pe.Hint())
	}
	waitFor(t, "the late answer", func() bool { st, _ := w.Status(context.Background(), pe.OperationID); return st.Status == StateApplied })
}

// Fault: a symlinked queue is refused at start: the cleanup deletes nothing through it.
func TestCleanupRefusesSymlinkedQueue(t *testing.T) {
	l := newLib(t, 1)
	old := filepath.Join(l.Queue, responseName("a1111111-1111-4111-8111-111111111111"))
	os.WriteFile(old, nil, 0o600)
	os.Chtimes(old, time.Now().Add(-48*time.Hour), time.Now().Add(-48*time.Hour))
	link := filepath.Join(t.TempDir(), "queue")
	os.Symlink(l.Queue, link)
	_, err := NewWriter(link, testLogger(t)).Cleanup()
	if promptlib.CodeOf(err) != promptlib.CodePermissionDenied {
		t.Errorf("got %v, want PERMISSION_DENIED", err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("a file was deleted through the symlink: %v", err)
	}
}

// Each writer that exists in production gives the hint that fits who answers its queue: the
// app's keeps the code's hints, a standalone library's points to health_check, and a Prompteka
// library's away from macOS to the 'queue process --force' the user runs, whose state
// health_check cannot see. An outcome that is unknown never says to just try again.
func TestAdviceFitsWhoAnswers(t *testing.T) {
	const lib = "/home/u/lib"
	run := "'mcpctl queue process --force --library " + lib + "'"
	writers := []struct {
		name string
		w    *Writer
		// want checks the hint for code and outcome.
		want func(t *testing.T, code promptlib.Code, outcome promptlib.Outcome, hint string)
	}{
		{"the app's", NewWriter("q", nil), func(t *testing.T, code promptlib.Code, _ promptlib.Outcome, hint string) {
			if hint != code.Hint() {
				t.Errorf("hint %q, want the code's %q", hint, code.Hint())
			}
		}},
		{"a standalone library's", NewWriter("q", nil).WithProcessor(func() error { return nil }), func(t *testing.T, code promptlib.Code, _ promptlib.Outcome, hint string) {
			if !strings.Contains(hint, "health_check") || strings.Contains(hint, "Prompteka") || strings.Contains(hint, "--force") {
				t.Errorf("hint %q, want health_check named, neither the app nor a forced processor", hint)
			}
		}},
		{"a forced processor's", NewWriter(lib+"/import-queue", nil).WithForcedProcessor(lib + "/prompts.db"), func(t *testing.T, code promptlib.Code, outcome promptlib.Outcome, hint string) {
			if !strings.Contains(hint, run) || strings.Contains(hint, "health_check") {
				t.Errorf("hint %q, want %s named, not health_check (it cannot see that processor's work)", hint, run)
			}
		}},
	}
	for _, wr := range writers {
		for _, code := range []promptlib.Code{promptlib.CodeResponseTimeout, promptlib.CodeProcessorStopped} {
			for _, outcome := range []promptlib.Outcome{promptlib.NotApplied, promptlib.Unknown} {
				if wr.w.alive == nil && code == promptlib.CodeProcessorStopped {
					continue // the app's writer has no processor to find stopped
				}
				t.Run(fmt.Sprintf("%s %s %s", wr.name, code, outcome), func(t *testing.T) {
					err := opError("a1111111-1111-4111-8111-111111111111", outcome, promptlib.Errorf(code, "no answer"))
					wr.w.advise(err)
					hint := err.Hint()
					wr.want(t, code, outcome, hint)
					if outcome == promptlib.Unknown && wr.w.alive != nil && !strings.Contains(hint, "get_operation_status") {
						t.Errorf("hint %q for an outcome unknown, want get_operation_status before a retry", hint)
					}
				})
			}
		}
	}
}

// A Prompteka library's writer away from macOS, whose 'queue process --force' runs but does not
// answer, says to look at that processor, not at health_check (which sees only that it runs).
func TestForcedWriterTimeoutAdvice(t *testing.T) {
	l := newLib(t, 1)
	lock, err := TryLock(l.Queue) // the forced processor, running as far as the writer can tell
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	w := fastWriter(t, l.Queue).WithForcedProcessor(filepath.Join(l.Dir, DBName))
	run := "'mcpctl queue process --force --library " + l.Dir + "'"

	_, err = w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("never claimed"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeResponseTimeout || pe.Outcome != promptlib.NotApplied ||
		!strings.Contains(pe.Hint(), run) || !strings.Contains(pe.Hint(), "terminal") || strings.Contains(pe.Hint(), "health_check") {
		t.Errorf("nothing claimed it: got %s/%s, hint %q; want RESPONSE_TIMEOUT, not applied, pointing to the terminal of %s", pe.Code, pe.Outcome, pe.Hint(), run)
	}

	// The processor claims the operation (moves it away) just before the writer withdraws it.
	claimed := filepath.Join(t.TempDir(), "claimed.json")
	w.FS = &claimingFS{FS: OSFS{}, claim: func(op string) {
		if err := os.Rename(op, claimed); err != nil {
			t.Error(err)
		}
	}}
	_, err = w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("claimed"))
	pe = asError(t, err)
	if pe.Code != promptlib.CodeResponseTimeout || pe.Outcome != promptlib.Unknown ||
		!strings.Contains(pe.Hint(), run) || !strings.Contains(pe.Hint(), "get_operation_status") || strings.Contains(pe.Hint(), "health_check") {
		t.Errorf("claimed, unanswered: got %s/%s, hint %q; want RESPONSE_TIMEOUT, outcome unknown, get_operation_status and %s", pe.Code, pe.Outcome, pe.Hint(), run)
	}
}

// claimingFS calls claim with an operation's path before the writer withdraws it: a processor
// that took the operation at the last moment.
type claimingFS struct {
	FS
	claim func(op string)
}

func (c *claimingFS) Rename(oldname, newname string) error {
	if strings.HasSuffix(newname, ".withdrawn") {
		c.claim(oldname)
	}
	return c.FS.Rename(oldname, newname)
}

// TestWriterSizeIsContent: the size limit holds the content, not the client's escaping. Python's
// json.dumps writes each emoji as "\ud83d\ude00", 12 bytes: 100,000 of them, which the schema
// allows, came to 1.2 MB and were refused as PAYLOAD_TOO_LARGE. The file holds them as UTF-8,
// and still validates.
func TestWriterSizeIsContent(t *testing.T) {
	l := newLib(t, 1)
	startProcessor(t, l, nil)
	w := patientWriter(t, l.Queue)
	seen := make(chan []byte, 1)
	w.FS = &spyFS{FS: OSFS{}, onLink: func(tmp string) {
		b, _ := os.ReadFile(tmp)
		seen <- b
	}}
	raw := json.RawMessage(`{"title":"Big \u003cemoji\u003e","content":"` + strings.Repeat(`\ud83d\ude00`, 100_000) + `"}`)
	res, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, raw)
	if err != nil {
		t.Fatalf("100,000 emoji sent escaped: %v", err)
	}
	b := <-seen
	if len(b) > promptlib.MaxOperationSize || !strings.Contains(string(b), `"title":"Big <emoji>"`) {
		t.Errorf("published %d bytes (%.80s…), want at most %d, strings in UTF-8", len(b), b, promptlib.MaxOperationSize)
	}
	if err := schemas.Validate("operation", b); err != nil {
		t.Errorf("published operation is invalid: %v", err)
	}
	var body string
	if err := l.DB.QueryRow(`SELECT body FROM prompts WHERE id = ?`, *res.Response.ID).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if body != strings.Repeat("😀", 100_000) {
		t.Errorf("stored %d bytes of content, want the 100,000 emoji", len(body))
	}
}

// TestOperationSizeBound: whatever the characters, an input within the schema's lengths makes an
// operation file within the limit. Go's encoder writes at most 6 bytes a character (\u2028, a
// control character), and 4 for a character beyond the BMP.
func TestOperationSizeBound(t *testing.T) {
	for _, c := range []string{"\u2028", "\x01", "😀", "<", `"`} {
		long := func(n int) *string { s := strings.Repeat(c, n); return &s }
		op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, promptlib.CreatePromptData{
			Title: *long(255), Content: *long(100_000), FolderID: promptlib.Ptr(uuid.NewString()),
			Emoji: long(32), Color: promptlib.Ptr("#FFFFFF"), URL: long(2048)})
		if err != nil {
			t.Fatal(err)
		}
		b, err := encodeOperation(op)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > promptlib.MaxOperationSize {
			t.Errorf("fields of %q at their longest: operation of %d bytes, over the %d limit", c, len(b), promptlib.MaxOperationSize)
		}
	}
}

// A forced processor is looked for at most once a period while it runs, not on every 50 ms
// poll of a write; a processor found down is looked for again at once.
func TestAliveForAsksOncePerPeriodWhileAlive(t *testing.T) {
	calls := 0
	var down error
	alive := aliveFor(time.Hour, func() error { calls++; return down })
	for range 5 {
		if err := alive(); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("alive asked %d times in one period, want 1", calls)
	}
	down = errNoForcedProcessor
	alive = aliveFor(time.Hour, func() error { calls++; return down })
	calls = 0
	for range 3 {
		if err := alive(); err != errNoForcedProcessor {
			t.Fatalf("got %v, want the processor down", err)
		}
	}
	if calls != 3 {
		t.Errorf("a down processor asked %d times, want every time (3)", calls)
	}
}
