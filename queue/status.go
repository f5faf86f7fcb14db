package queue

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// OpState is what became of an operation, as get_operation_status reports it.
type OpState string

// Operation states.
const (
	StatePending    OpState = "pending"    // waiting in the queue
	StateProcessing OpState = "processing" // claimed by the processor
	StateApplied    OpState = "applied"
	StateFailed     OpState = "failed"
	StateUnknown    OpState = "unknown" // no trace of it: never queued, withdrawn, or cleaned up
)

// OpStatus is get_operation_status's answer.
type OpStatus struct {
	OperationID string              `json:"operationId"`
	Status      OpState             `json:"status"`
	Response    *promptlib.Response `json:"response"`
	Reason      *string             `json:"reason"`
}

// OpID is the operation id, for the tool call's log line.
func (s OpStatus) OpID() string { return s.OperationID }

// Status reports what became of operation id from the files in the queue, and from what the
// processor recorded (WithRecord). It reads, never deletes: asking twice gives the same answer.
// An answer wins (collected by this writer, else still on disk, else recorded); otherwise the
// places are checked in the order an operation moves through them, so one that moves while
// Status looks is seen in its later place rather than missed.
func (w *Writer) Status(ctx context.Context, id string) (OpStatus, error) {
	st := OpStatus{OperationID: id, Status: StateUnknown}
	if !promptlib.ValidID(id) {
		e := promptlib.Errorf(promptlib.CodeInvalidUUID, "operationId %q is not a UUID", id)
		e.Advice = promptlib.OperationIDAdvice
		return st, e
	}
	// The writer names files with lower-case ids, the app and hand-written operations often
	// with upper-case ones, and the processor keeps the spelling of the file it was given: a
	// model may give the id back in either case, so every place is looked up in each spelling.
	spellings := []string{strings.ToLower(id)}
	for _, sp := range []string{strings.ToUpper(id), id} { // id: mixed case, as given
		if !slices.Contains(spellings, sp) {
			spellings = append(spellings, sp)
		}
	}
	// find returns the spelling under which name(id) exists in the queue's sub, if any.
	find := func(sub string, name func(string) string) (string, bool) {
		for _, sp := range spellings {
			if _, err := w.FS.Lstat(join(w.Dir, sub, name(sp))); err == nil {
				return sp, true
			}
		}
		return "", false
	}
	// A response this writer collected first (the operation's file maybe not yet moved), then
	// one on disk, unless it is the one this writer refused as another operation's answer.
	a, recalled := w.recalled(spellings[0])
	r, answered := a.r, recalled && a.mismatch == nil
	if !answered {
		if sp, ok := find("", responseName); ok {
			disk, err := w.readResponse(join(w.Dir, responseName(sp)))
			answered = err == nil && !(recalled && reflect.DeepEqual(disk, a.r))
			r = disk
		}
	}
	if !answered && w.record != nil {
		// The durable record: applied, but its response not written (a full disk stopped it,
		// the operation still in processing/), or written and collected long ago.
		rec, ok, err := w.record(ctx, id)
		if err != nil {
			w.Log.Warn("queue: cannot read the processor's record of an operation", "id", id, "err", err)
		}
		r, answered = rec, ok
	}
	if answered {
		st.Response = &r
		st.Status = StateApplied
		if !r.OK() {
			reason := r.Message // as the processor files it in failed/: "CODE: message"
			if r.Error != nil {
				reason = *r.Error + ": " + r.Message
			}
			st.Status, st.Reason = StateFailed, &reason
		}
		return st, nil
	}
	if _, ok := find("", opName); ok {
		st.Status = StatePending
	} else if _, ok := find(processingDir, opName); ok {
		st.Status = StateProcessing
	} else if _, ok := find(processedDir, opName); ok {
		st.Status, st.Reason = StateApplied, promptlib.Ptr("applied; its response was already collected")
	} else if sp, ok := find(failedDir, opName); ok {
		st.Status, st.Reason = StateFailed, promptlib.Ptr(FailureReason(join(w.Dir, failedDir), sp))
	}
	if st.Status == StateUnknown && a.mismatch != nil {
		st.Reason = promptlib.Ptr(a.mismatch.Error() + "; check the library before retrying")
	}
	if reason := w.processorDown(); reason != nil && (st.Status == StateProcessing || st.Status == StatePending) {
		// Not "processing" as if all were well: say why it is not moving.
		st.Reason = promptlib.Ptr(fmt.Sprintf("mcpctl's queue processor is not running (%v); the operation is kept and finishes once it runs again", reason))
	}
	return st, nil
}

// FailureReason reads failed/{id}.error: at most 64 KB, never through a symlink nor from a
// FIFO (queue status and get_operation_status would hang on one). It returns the reason alone,
// without the time writeReason puts on the last line; an empty file (the reason could not be
// written, on a full disk) gives noReason, never a blank.
func FailureReason(failed, id string) string {
	f, err := os.OpenFile(join(failed, id+".error"), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return noReason
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return noReason
	}
	b, _, err := readLimited(f, 64<<10)
	if err != nil {
		return noReason
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if _, err := time.Parse(time.RFC3339, lines[len(lines)-1]); err == nil {
		lines = lines[:len(lines)-1]
	}
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	if text == "" {
		return noReason
	}
	return text
}

// noReason stands for a failure whose reason file is missing or empty.
const noReason = "failed; no reason was recorded"

// Summary is the state of a queue for `mcpctl queue status`.
type Summary struct {
	Pending, Processing, Processed, Failed int
	OldestPending                          time.Time // zero when nothing is pending
	Failures                               []Failure // the most recent first
}

// Failure is one operation in failed/.
type Failure struct {
	ID     string
	At     time.Time
	Reason string
}

// Inspect summarises the queue in dir, with up to lastFailures of the newest failures (none
// when lastFailures is 0 or less).
func Inspect(dir string, lastFailures int) (Summary, error) {
	var s Summary
	lastFailures = max(lastFailures, 0) // a negative count would cut the slice below out of range
	entries, err := os.ReadDir(dir)
	if err != nil {
		return s, &Error{Op: "inspect", Path: dir, Err: err}
	}
	for _, e := range entries {
		if !isPending(e.Name()) {
			continue
		}
		s.Pending++
		if fi, err := e.Info(); err == nil && (s.OldestPending.IsZero() || fi.ModTime().Before(s.OldestPending)) {
			s.OldestPending = fi.ModTime()
		}
	}
	count := func(sub string) []os.DirEntry {
		es, _ := os.ReadDir(join(dir, sub))
		var ops []os.DirEntry
		for _, e := range es {
			if strings.HasSuffix(e.Name(), ".json") {
				ops = append(ops, e)
			}
		}
		return ops
	}
	s.Processing = len(count(processingDir))
	s.Processed = len(count(processedDir))
	failed := count(failedDir)
	s.Failed = len(failed)
	for _, e := range failed {
		id := strings.TrimSuffix(e.Name(), ".json")
		f := Failure{ID: id, Reason: FailureReason(join(dir, failedDir), id)}
		if fi, err := e.Info(); err == nil {
			f.At = fi.ModTime()
		}
		s.Failures = append(s.Failures, f)
	}
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].At.After(s.Failures[j].At) })
	if len(s.Failures) > lastFailures {
		s.Failures = s.Failures[:lastFailures]
	}
	return s, nil
}
