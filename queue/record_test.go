package queue

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// What the processor recorded as it applied an operation answers get_operation_status when the
// queue's files cannot: applied but its response not yet written (a full disk stops it there,
// the operation in processing/), and applied long ago, every file of it gone. Without the
// record the first was "processing" and the second "unknown", for a write in the library.
func TestStatusReadsTheProcessorsRecord(t *testing.T) {
	l := newLib(t, 1)
	committed, release := make(chan string, 1), make(chan struct{})
	startProcessor(t, l, func(point, id string) {
		if point == HookAfterCommit {
			committed <- id
			<-release // the response is not written until the checks below are done
		}
	})
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("recorded"))
	<-committed
	bare := NewWriter(l.Queue, testLogger(t))
	// The record as serve reads it (dbread.AppliedResponse, tested in dbread), read here through
	// another connection than the processor's.
	reader, err := OpenStore(filepath.Join(l.Dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	recorded := NewWriter(l.Queue, testLogger(t)).WithRecord(func(ctx context.Context, id string) (promptlib.Response, bool, error) {
		return promptlib.RecordedAnswer(ctx, reader, id)
	})
	check := func(when string, w *Writer, want OpState, withResponse bool) {
		t.Helper()
		st, err := w.Status(context.Background(), id)
		if err != nil || st.Status != want || (st.Response != nil) != withResponse {
			t.Errorf("%s: %+v, %v; want %s, with the response %v", when, st, err, want, withResponse)
		}
		if withResponse && st.Response != nil && (!st.Response.OK() || st.Response.ID == nil) {
			t.Errorf("%s: response %+v; want the success naming the new prompt", when, *st.Response)
		}
	}
	check("applied, no response yet, files only", bare, StateProcessing, false)
	check("applied, no response yet, with the record", recorded, StateApplied, true)
	close(release)

	waitFor(t, "the operation filed", func() bool {
		_, err := os.Lstat(filepath.Join(l.Queue, processedDir, opName(id)))
		return err == nil
	})
	// Its response expired and processed/ cleaned after a week: no file is left.
	for _, f := range []string{responseName(id), filepath.Join(processedDir, opName(id))} {
		if err := os.Remove(filepath.Join(l.Queue, f)); err != nil {
			t.Fatal(err)
		}
	}
	check("applied long ago, files only", bare, StateUnknown, false)
	check("applied long ago, with the record", recorded, StateApplied, true)
}
