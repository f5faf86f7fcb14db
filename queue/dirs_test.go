package queue

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// The processor's own directories broken while it runs: it heals what it can, says what it
// cannot, and never files into nor deletes from a place outside the queue.

// startWithStatus runs a processor on l reporting to a status, as serve runs it; hook, when
// set, is called at every hook point but HookReady.
func startWithStatus(t *testing.T, l *testLib, hook func(point, id string)) *ProcessorStatus {
	t.Helper()
	var status ProcessorStatus
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	p.Rescan, p.Status = 20*time.Millisecond, &status
	ready := make(chan struct{})
	p.Hook = func(point, id string) {
		switch {
		case point == HookReady:
			close(ready)
		case hook != nil:
			hook(point, id)
		}
	}
	p.Start(context.Background())
	t.Cleanup(func() { p.Close() })
	<-ready
	return &status
}

// linkAway replaces the queue's directory sub with a symlink to a new, empty directory, and
// returns that directory.
func linkAway(t *testing.T, l *testLib, sub string) string {
	elsewhere := t.TempDir()
	path := filepath.Join(l.Queue, sub)
	if err := os.Remove(path); err != nil {
		t.Error(err)
	}
	if err := os.Symlink(elsewhere, path); err != nil {
		t.Error(err)
	}
	return elsewhere
}

func TestProcessorRemakesARemovedProcessingDir(t *testing.T) {
	l := newLib(t, 1)
	status := startWithStatus(t, l, nil)
	if err := os.Remove(filepath.Join(l.Queue, processingDir)); err != nil {
		t.Fatal(err)
	}
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("claimed")); err != nil {
		t.Fatal(err)
	}
	if n := l.titled(t, "claimed"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

func TestProcessorSaysWhyItCannotClaim(t *testing.T) {
	l := newLib(t, 1)
	status := startWithStatus(t, l, nil)
	processing := filepath.Join(l.Queue, processingDir)
	if err := os.Remove(processing); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(processing, nil, 0o600); err != nil { // in the way of the directory
		t.Fatal(err)
	}
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("unclaimed"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeProcessorStopped || pe.Outcome != promptlib.NotApplied {
		t.Fatalf("got %s (%s), want PROCESSOR_STOPPED, not applied: %v", pe.Code, pe.Outcome, pe)
	}
	if !strings.Contains(pe.Message, "processing") {
		t.Errorf("the error does not name processing/: %s", pe.Message)
	}
	if n := l.titled(t, "unclaimed"); n != 0 {
		t.Errorf("applied %d times, want never", n)
	}
	if got := queueLeftovers(t, l.Queue); len(got) != 0 {
		t.Errorf("the withdrawn operation left %v in the queue", got)
	}

	os.Remove(processing)
	waitFor(t, "the processor to run again", func() bool { state, _ := status.State(); return state == ProcRunning })
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("claimed")); err != nil {
		t.Fatal(err)
	}
}

func TestProcessorNeverFilesThroughASymlink(t *testing.T) {
	l := newLib(t, 1)
	processed := filepath.Join(l.Queue, processedDir)
	// Swapped once the operation is claimed (a symlink there before stops the claim).
	elsewhere := make(chan string, 1)
	status := startWithStatus(t, l, func(point, _ string) {
		if point == HookAfterClaim {
			elsewhere <- linkAway(t, l, processedDir)
		}
	})
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	res, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("applied"))
	if err != nil { // answered before filing: the write itself went through
		t.Fatal(err)
	}
	// Answered before it could be filed, the library is already whole in its one file.
	if fi, err := os.Stat(filepath.Join(l.Dir, DBName+"-wal")); err == nil && fi.Size() != 0 {
		t.Errorf("the -wal file holds %d bytes once the write returned, want it checkpointed", fi.Size())
	}
	// The processor answers before it finds processed/ unusable.
	waitFor(t, "the processor to fail", func() bool { state, _ := status.State(); return state == ProcFailed })
	if _, reason := status.State(); reason == nil || !strings.Contains(reason.Error(), "processed/ (is a symlink") {
		t.Errorf("failed with %v, want the symlinked processed/ named", reason)
	}
	if got := files(t, <-elsewhere); len(got) != 0 {
		t.Errorf("the operation was filed through the symlink: %v", got)
	}

	os.Remove(processed)
	waitFor(t, "the operation to be filed", func() bool {
		_, err := os.Lstat(filepath.Join(processed, opName(res.OperationID)))
		return err == nil
	})
	waitFor(t, "the processor to run again", func() bool { state, _ := status.State(); return state == ProcRunning })
	// The writer collected the answer: filing it late does not answer again.
	if got := queueLeftovers(t, l.Queue); len(got) != 0 {
		t.Errorf("the queue holds %v once the operation is filed, want nothing", got)
	}
	if n := l.titled(t, "applied"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

func TestCleanProcessedRefusesASymlink(t *testing.T) {
	l := newLib(t, 1)
	old := filepath.Join(linkAway(t, l, processedDir), "keep.json")
	os.WriteFile(old, nil, 0o600)
	long := time.Now().Add(-100 * 24 * time.Hour)
	os.Chtimes(old, long, long)
	n, _, err := CleanProcessed(l.Queue, time.Now(), 7*24*time.Hour)
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("got %d removed, err %v; want an error naming the symlink", n, err)
	}
	if _, err := os.Lstat(old); err != nil {
		t.Errorf("the file behind the symlink was deleted: %v", err)
	}
}

func TestProcessorNeverClaimsThroughASymlink(t *testing.T) {
	l := newLib(t, 1)
	status := startWithStatus(t, l, nil)
	elsewhere := linkAway(t, l, processingDir)
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("unclaimed"))
	if pe := asError(t, err); pe.Code != promptlib.CodeProcessorStopped || pe.Outcome != promptlib.NotApplied || !strings.Contains(pe.Message, "symlink") {
		t.Errorf("got %s (%s) %q, want PROCESSOR_STOPPED, not applied, naming the symlink", pe.Code, pe.Outcome, pe.Message)
	}
	if got := files(t, elsewhere); len(got) != 0 {
		t.Errorf("the operation was claimed through the symlink: %v", got)
	}
	if n := l.titled(t, "unclaimed"); n != 0 {
		t.Errorf("applied %d times, want never", n)
	}
}

func TestProcessorNeverRejectsThroughASymlink(t *testing.T) {
	l := newLib(t, 1)
	status := startWithStatus(t, l, nil)
	elsewhere := linkAway(t, l, failedDir)
	if err := os.WriteFile(filepath.Join(l.Queue, "not-a-uuid.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the processor to fail", func() bool { state, _ := status.State(); return state == ProcFailed })
	if _, reason := status.State(); !strings.Contains(reason.Error(), "failed/ is a symlink") {
		t.Errorf("failed with %v, want the symlinked failed/ named", reason)
	}
	if got := files(t, elsewhere); len(got) != 0 {
		t.Errorf("the misnamed file was set aside through the symlink: %v", got)
	}
}
