package queue

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/uuid"

	"github.com/mcpctl/mcpctl/promptlib"
)

// An operation that waited longer than KeepProcessed before it was applied (in the queue, or in
// processing/ through a long downtime) is kept in processed/ for KeepProcessed from when it was
// applied: the rename kept its old date, and the cleanup right after deleted it, so that
// get_operation_status called an applied write unknown once its response was gone.
func TestProcessedKeptFromWhenFiled(t *testing.T) {
	for _, from := range []string{"the queue", processingDir} {
		t.Run(from, func(t *testing.T) {
			l := newLib(t, 1)
			id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("waited"))
			path := filepath.Join(l.Queue, opName(id))
			if from == processingDir {
				dst := filepath.Join(l.Queue, processingDir, opName(id))
				if err := os.Rename(path, dst); err != nil {
					t.Fatal(err)
				}
				path = dst
			}
			weekAgo := time.Now().Add(-8 * 24 * time.Hour)
			if err := os.Chtimes(path, weekAgo, weekAgo); err != nil {
				t.Fatal(err)
			}
			ready := make(chan struct{})
			startProcessor(t, l, func(point, _ string) {
				if point == HookReady {
					close(ready)
				}
			})
			<-ready // recovered, scanned, and processed/ cleaned once
			if _, err := os.Lstat(filepath.Join(l.Queue, processedDir, opName(id))); err != nil {
				t.Fatalf("processed/ lost the operation applied moments ago: %v", err)
			}
			// Its response gone (collected, or expired after 24 h), processed/ is the only trace.
			if err := os.Remove(filepath.Join(l.Queue, responseName(id))); err != nil {
				t.Fatal(err)
			}
			if st, err := NewWriter(l.Queue, testLogger(t)).Status(context.Background(), id); err != nil || st.Status != StateApplied {
				t.Errorf("Status = %+v, %v; want applied", st, err)
			}
			// Six days after it was applied, it is still there; eight days after, it goes.
			for _, tc := range []struct {
				after time.Duration
				kept  bool
			}{{6 * 24 * time.Hour, true}, {8 * 24 * time.Hour, false}} {
				if _, _, err := CleanProcessed(l.Queue, time.Now().Add(tc.after), 7*24*time.Hour); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Lstat(filepath.Join(l.Queue, processedDir, opName(id))); (err == nil) != tc.kept {
					t.Errorf("%s after it was applied: kept %v, want %v", tc.after, err == nil, tc.kept)
				}
			}
		})
	}
}

// get_operation_status finds an operation whose file was named in upper case (dropped by hand,
// as the app spells ids), given the id in either case, with its response and after it is gone.
func TestStatusFindsUpperCaseFileNames(t *testing.T) {
	l := newLib(t, 1)
	drop := func(kind promptlib.OpKind, data any) string {
		op, err := promptlib.NewOperation(kind, data)
		if err != nil {
			t.Fatal(err)
		}
		op.ID = strings.ToUpper(op.ID)
		if err := os.WriteFile(filepath.Join(l.Queue, opName(op.ID)), mustJSON(t, op), 0o600); err != nil {
			t.Fatal(err)
		}
		return op.ID
	}
	applied := drop(promptlib.OpCreateFolder, promptlib.CreateFolderData{Name: "By hand"})
	failed := drop(promptlib.OpDeleteFolder, promptlib.DeleteFolderData{ID: uuid.NewString()})
	startProcessor(t, l, nil)
	for id, where := range map[string]string{applied: processedDir, failed: failedDir} {
		if got := filed(t, l.Queue, id); got != where {
			t.Fatalf("%s filed in %s, want %s", id, got, where)
		}
		readResponseFile(t, l.Queue, id) // a failure is answered after it is filed
	}
	w := NewWriter(l.Queue, testLogger(t))
	check := func(when string, withResponse bool) {
		t.Helper()
		for id, want := range map[string]OpState{applied: StateApplied, failed: StateFailed} {
			for _, asked := range []string{strings.ToLower(id), id} {
				st, err := w.Status(context.Background(), asked)
				if err != nil || st.Status != want || (st.Response != nil) != withResponse {
					t.Errorf("%s: Status(%s) = %s (response %v), %v; want %s", when, asked, st.Status, st.Response != nil, err, want)
				}
				if want == StateFailed && (st.Reason == nil || !strings.Contains(*st.Reason, "FOLDER_NOT_FOUND")) {
					t.Errorf("%s: Status(%s) reason %q, want FOLDER_NOT_FOUND", when, asked, deref(st.Reason))
				}
			}
		}
	}
	check("answered", true)
	for _, id := range []string{applied, failed} {
		if err := os.Remove(filepath.Join(l.Queue, responseName(id))); err != nil {
			t.Fatal(err)
		}
	}
	check("response gone", false)
}

// An operation file written in pieces (created, a first part written, the rest a moment later)
// and read in between is not failed as invalid JSON: it waits in processing/, where its writer
// still reaches it, and is read again at the next rescan. One left unfinished is failed in the
// end, saying it may have been read while still being written and how to write it. The clock
// and the rescans are the test's: fsnotify events are handed in, a rescan is asked for by an
// overflow.
func TestProcessorWaitsForAFileWrittenInPieces(t *testing.T) {
	for _, finished := range []bool{true, false} {
		name := map[bool]string{true: "finished", false: "never finished"}[finished]
		t.Run(name, func(t *testing.T) {
			l := newLib(t, 1)
			events, errs := make(chan fsnotify.Event), make(chan error)
			ready, steps := make(chan struct{}), make(chan string, 10)
			var skew atomic.Int64 // added to the clock
			p := NewProcessor(l.Queue, l.DB, testLogger(t))
			p.Rescan = time.Hour // the test asks for every rescan
			p.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
			p.watch = func(string) (<-chan fsnotify.Event, <-chan error, func(), error) { return events, errs, func() {}, nil }
			p.Hook = func(point, id string) {
				switch point {
				case HookReady:
					close(ready)
				case HookIncomplete, HookDone:
					steps <- point
				}
			}
			p.Start(context.Background())
			t.Cleanup(func() { p.Close() })
			<-ready

			op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt("in pieces"))
			if err != nil {
				t.Fatal(err)
			}
			body := mustJSON(t, op)
			path := filepath.Join(l.Queue, opName(op.ID))
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write(body[:30]); err != nil {
				t.Fatal(err)
			}
			events <- fsnotify.Event{Name: path, Op: fsnotify.Create}
			// Claimed and read: either left to finish, or filed at once.
			if got := <-steps; got != HookIncomplete {
				t.Fatalf("the file cut short was not left to finish (%s); failed/ holds %v", got, files(t, filepath.Join(l.Queue, failedDir)))
			}
			if finished {
				if _, err := f.Write(body[30:]); err != nil {
					t.Fatal(err)
				}
			} else {
				// Long enough ago that no writer is still at it.
				skew.Store(int64(incompleteGrace + time.Second))
			}
			errs <- fsnotify.ErrEventOverflow // a rescan
			where := filed(t, l.Queue, op.ID)
			if finished {
				if where != processedDir || l.titled(t, "in pieces") != 1 {
					t.Errorf("filed in %s, applied %d times; want processed, applied once", where, l.titled(t, "in pieces"))
				}
				return
			}
			reason := FailureReason(filepath.Join(l.Queue, failedDir), op.ID)
			if where != failedDir || !strings.Contains(reason, "still being written") || !strings.Contains(reason, "rename") {
				t.Errorf("filed in %s with %q; want failed, saying it may have been read while still being written and to rename a temp file", where, reason)
			}
			if n := l.titled(t, "in pieces"); n != 0 {
				t.Errorf("applied %d times, want 0", n)
			}
		})
	}
}

// A file cut short is read again only at rescans, and not for ever: one whose writer keeps it
// fresh is failed once incompleteLimit has passed since it was first found incomplete.
func TestProcessorGivesUpOnAFileKeptIncomplete(t *testing.T) {
	l := newLib(t, 1)
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	now := time.Now()
	p.Now = func() time.Time { return now }
	id := uuid.NewString()
	path := filepath.Join(l.Queue, processingDir, opName(id))
	if err := os.WriteFile(path, []byte(`{"id":"`+id+`","operation":`), 0o600); err != nil {
		t.Fatal(err)
	}
	touch := func() {
		if err := os.Chtimes(path, now, now); err != nil {
			t.Fatal(err)
		}
	}
	touch()
	p.handle(context.Background(), id, path)
	if _, ok := p.incomplete[path]; !ok {
		t.Fatal("a file cut short and written moments ago was not left to finish")
	}
	now = now.Add(incompleteLimit - time.Second)
	touch()
	p.scan(context.Background())
	if _, ok := p.incomplete[path]; !ok {
		t.Fatal("given up before incompleteLimit")
	}
	now = now.Add(2 * time.Second)
	touch()
	p.scan(context.Background())
	if _, ok := p.incomplete[path]; ok {
		t.Error("still waiting after incompleteLimit")
	}
	if _, err := os.Lstat(filepath.Join(l.Queue, failedDir, opName(id))); err != nil {
		t.Errorf("not failed after incompleteLimit: %v", err)
	}
}
