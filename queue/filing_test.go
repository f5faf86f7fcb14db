package queue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
			if st, err := NewWriter(l.Queue, testLogger(t)).Status(id); err != nil || st.Status != StateApplied {
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
	}
	w := NewWriter(l.Queue, testLogger(t))
	check := func(when string, withResponse bool) {
		t.Helper()
		for id, want := range map[string]OpState{applied: StateApplied, failed: StateFailed} {
			for _, asked := range []string{strings.ToLower(id), id} {
				st, err := w.Status(asked)
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
