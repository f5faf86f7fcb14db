package queue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// runElected runs RunElected on l with a status until the test ends.
func runElected(t *testing.T, l *testLib, tune func(*Processor)) *ProcessorStatus {
	t.Helper()
	status := &ProcessorStatus{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		RunElected(ctx, ElectConfig{Dir: l.Queue, DB: filepath.Join(l.Dir, DBName), Log: testLogger(t),
			Retry: 20 * time.Millisecond, BusyTimeout: 200 * time.Millisecond, Tune: tune, Status: status})
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		if state, _ := status.State(); state != ProcStopped {
			t.Errorf("state after RunElected returned: %s, want %s", state, ProcStopped)
		}
	})
	return status
}

func waitState(t *testing.T, s *ProcessorStatus, want string) error {
	t.Helper()
	var err error
	waitFor(t, "processor state "+want, func() bool {
		var state string
		state, err = s.State()
		return state == want
	})
	return err
}

// noApp fails the test if a standalone library's error talks about the Prompteka app.
func noApp(t *testing.T, pe *promptlib.Error) {
	t.Helper()
	for _, s := range []string{pe.Message, pe.Hint()} {
		if l := strings.ToLower(s); strings.Contains(l, "the app") || strings.Contains(l, "prompteka") {
			t.Errorf("standalone error mentions the app: %q", s)
		}
	}
}

// Fault: a standalone library whose processor cannot run (a symlinked processed/ or lock).
// The status says failed with the reason; a write fails at once with PROCESSOR_STOPPED and that
// reason, not applied, and never blames the app. (A patient writer: waiting out its attempts
// would take a minute and end in RESPONSE_TIMEOUT.)
func TestDeadProcessorFailsWritesFast(t *testing.T) {
	tests := []struct {
		name   string
		plant  func(t *testing.T, q string)
		reason string
	}{
		{"symlinked processed/", func(t *testing.T, q string) {
			os.RemoveAll(filepath.Join(q, processedDir))
			if err := os.Symlink(t.TempDir(), filepath.Join(q, processedDir)); err != nil {
				t.Fatal(err)
			}
		}, "symlink"},
		{"symlinked lock", func(t *testing.T, q string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(q, lockName)); err != nil {
				t.Fatal(err)
			}
		}, "lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLib(t, 1)
			tt.plant(t, l.Queue)
			status := runElected(t, l, nil)
			reason := waitState(t, status, ProcFailed)
			if reason == nil || !strings.Contains(reason.Error(), tt.reason) {
				t.Errorf("failed state reason %v, want it to mention %q", reason, tt.reason)
			}
			w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
			_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("never"))
			pe := asError(t, err)
			if pe.Code != promptlib.CodeProcessorStopped || pe.Outcome != promptlib.NotApplied || !strings.Contains(pe.Message, tt.reason) {
				t.Errorf("got %s/%s %q, want PROCESSOR_STOPPED/not_applied naming %q", pe.Code, pe.Outcome, pe.Message, tt.reason)
			}
			noApp(t, pe)
			if got := queueLeftovers(t, l.Queue); len(got) != 0 {
				t.Errorf("queue holds %v, want nothing", got)
			}
			if n := l.titled(t, "never"); n != 0 {
				t.Errorf("applied %d times, want 0", n)
			}
		})
	}
}

// Fault: the disk fills after the processor took an operation (its answer cannot be written).
// The waiting write ends at once with the reason and outcome unknown; get_operation_status says
// why the operation is not moving, not just "processing"; once space is back the processor
// finishes it without a restart, exactly once.
func TestProcessorFullDiskThenRecovers(t *testing.T) {
	l := newLib(t, 1)
	op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt("disk full"))
	if err != nil {
		t.Fatal(err)
	}
	// A directory where the answer's temp file goes: writing it fails, as on a full disk.
	obstacle := filepath.Join(l.Queue, responseTmpName(op.ID))
	if err := os.Mkdir(obstacle, 0o700); err != nil {
		t.Fatal(err)
	}
	status := runElected(t, l, func(p *Processor) { p.Rescan = 20 * time.Millisecond })
	waitState(t, status, ProcRunning)
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	_, err = w.SubmitOperation(context.Background(), op)
	pe := asError(t, err)
	if pe.Code != promptlib.CodeProcessorStopped || pe.Outcome != promptlib.Unknown || !strings.Contains(pe.Message, "answer") {
		t.Errorf("got %s/%s %q, want PROCESSOR_STOPPED/unknown saying the answer cannot be written", pe.Code, pe.Outcome, pe.Message)
	}
	noApp(t, pe)
	st, err := w.Status(context.Background(), op.ID)
	if err != nil || st.Status != StateProcessing || st.Reason == nil || !strings.Contains(*st.Reason, "not running") {
		t.Errorf("Status = %+v (reason %v), %v; want processing with the processor's reason", st, deref(st.Reason), err)
	}

	if err := os.Remove(obstacle); err != nil {
		t.Fatal(err)
	}
	waitState(t, status, ProcRunning)
	waitFor(t, "the operation answered", func() bool {
		st, err = w.Status(context.Background(), op.ID)
		return err == nil && st.Status == StateApplied
	})
	if n := l.titled(t, "disk full"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

// The processor runs out of file descriptors as it opens an operation file: the operation is
// not rejected as bad input (it was, and went to failed/) but waits in processing/, the processor
// says why, and it is applied once when descriptors are back.
func TestProcessorOutOfDescriptorsThenRecovers(t *testing.T) {
	l := newLib(t, 1)
	var exhausted atomic.Bool
	exhausted.Store(true)
	status := runElected(t, l, func(p *Processor) {
		p.Rescan = 20 * time.Millisecond
		p.openOp = func(name string, flag int, perm os.FileMode) (*os.File, error) {
			if exhausted.Load() {
				return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EMFILE}
			}
			return os.OpenFile(name, flag, perm)
		}
	})
	waitState(t, status, ProcRunning)
	op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt("no descriptors"))
	if err != nil {
		t.Fatal(err)
	}
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	_, err = w.SubmitOperation(context.Background(), op)
	pe := asError(t, err)
	if pe.Code != promptlib.CodeProcessorStopped || pe.Outcome != promptlib.Unknown || !strings.Contains(pe.Message, "too many open files") {
		t.Errorf("got %s/%s %q, want PROCESSOR_STOPPED/unknown saying the processor has no file descriptors", pe.Code, pe.Outcome, pe.Message)
	}
	if got := queueLeftovers(t, filepath.Join(l.Queue, failedDir)); len(got) != 0 {
		t.Errorf("failed/ holds %v: the operation was rejected as bad input", got)
	}

	exhausted.Store(false)
	waitState(t, status, ProcRunning)
	waitFor(t, "the operation answered", func() bool {
		st, err := w.Status(context.Background(), op.ID)
		return err == nil && st.Status == StateApplied
	})
	if n := l.titled(t, "no descriptors"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

// A standalone writer whose processor is alive but does not answer withdraws the operation and
// says mcpctl's processor did not answer: never "the Prompteka app".
func TestStandaloneTimeoutNeverBlamesTheApp(t *testing.T) {
	l := newLib(t, 1)
	w := fastWriter(t, l.Queue).WithProcessor(func() error { return nil })
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("unanswered"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeResponseTimeout || pe.Outcome != promptlib.NotApplied || !strings.Contains(pe.Message, "queue processor") {
		t.Errorf("got %s/%s %q, want RESPONSE_TIMEOUT/not_applied from the queue processor", pe.Code, pe.Outcome, pe.Message)
	}
	noApp(t, pe)
}

// ProcessorStatus: the zero value is starting; Alive is nil unless failed or stopped.
func TestProcessorStatusAlive(t *testing.T) {
	var s ProcessorStatus
	boom := errors.New("boom")
	steps := []struct {
		set   func()
		state string
		alive error
	}{
		{func() {}, ProcStarting, nil},
		{func() { s.set(ProcWaiting, nil) }, ProcWaiting, nil},
		{func() { s.set(ProcRunning, nil) }, ProcRunning, nil},
		{func() { s.failed(boom) }, ProcFailed, boom},
		{func() { s.set(ProcStopped, nil) }, ProcStopped, ErrProcessorStopped},
	}
	for _, st := range steps {
		st.set()
		if state, _ := s.State(); state != st.state || !errors.Is(s.Alive(), st.alive) || (st.alive == nil) != (s.Alive() == nil) {
			t.Errorf("state %s, Alive %v; want %s, %v", state, s.Alive(), st.state, st.alive)
		}
	}
	var nilStatus *ProcessorStatus
	nilStatus.failed(boom) // a processor without a status ignores it
}

// In standalone mode a full queue's hint speaks of mcpctl's processor, not of the app.
func TestStandaloneQueueFullNeverBlamesTheApp(t *testing.T) {
	l := newLib(t, 1)
	for _, n := range []string{"a.json", "b.json"} {
		os.WriteFile(filepath.Join(l.Queue, n), nil, 0o600)
	}
	w := fastWriter(t, l.Queue).WithProcessor(func() error { return nil })
	w.MaxPending = 2
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("x"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeQueueFull {
		t.Fatalf("got %s %q, want QUEUE_FULL", pe.Code, pe.Message)
	}
	noApp(t, pe)
}

// A write failure stands until a write goes through, or until it says nothing of the library
// any more: another process processes it (waiting), none does (stopped), or a new run starts.
func TestProcessorStatusWriteError(t *testing.T) {
	full := errors.New("the disk is full")
	for _, state := range []string{ProcWaiting, ProcStopped} {
		var s ProcessorStatus
		s.set(ProcRunning, nil)
		s.wrote(full)
		s.set(ProcFailed, errors.New("stalled")) // failed and running again keep it
		s.set(ProcRunning, nil)
		if got := s.WriteError(); got != full {
			t.Fatalf("WriteError = %v, want %v", got, full)
		}
		s.set(state, nil)
		if got := s.WriteError(); got != nil {
			t.Errorf("%s: WriteError = %v, want nil", state, got)
		}
	}

	l := newLib(t, 1)
	var s ProcessorStatus
	s.wrote(full) // an earlier run's
	ready := make(chan struct{})
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	p.Status = &s
	p.Hook = func(point, _ string) {
		if point == HookReady {
			close(ready)
		}
	}
	p.Start(context.Background())
	defer p.Close()
	<-ready
	if got := s.WriteError(); got != nil {
		t.Errorf("a new run: WriteError = %v, want nil", got)
	}
}
