package queue

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Files the queue reads or writes beside an operation are never opened through a symlink nor
// waited on as a FIFO: a planted FIFO at a response or a reason would hang the writer, queue
// status and get_operation_status, and a planted symlink would have the processor overwrite
// its target.
func TestPlantedNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}

	w := &Writer{Dir: dir, FS: OSFS{}}
	if _, err := w.readResponse(fifo(".response-a.json")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("readResponse of a FIFO: %v, want 'not a regular file'", err)
	}

	fifo("b.error")
	if got := FailureReason(dir, "b"); got != noReason {
		t.Errorf("failureReason from a FIFO = %q", got)
	}

	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "c.error")); err != nil {
		t.Fatal(err)
	}
	writeReason(filepath.Join(dir, "c.json"), "rejected")
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("writeReason wrote through a symlink: the target now holds %q", b)
	}
	fifo("d.error")
	writeReason(filepath.Join(dir, "d.json"), "rejected") // returns, does not block

	if err := os.WriteFile(filepath.Join(dir, "e.error"), []byte("the reason\n2026-01-01T00:00:00Z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := FailureReason(dir, "e"); !strings.HasPrefix(got, "the reason") {
		t.Errorf("failureReason of a regular file = %q", got)
	}
}

// The reason of a failure reads as the processor gave it: without the time writeReason puts
// under it (get_operation_status once returned "…\n2026-…"), and never blank when the reason
// file is empty, as a full disk leaves it ("failed; no reason was recorded").
func TestFailureReason(t *testing.T) {
	dir := t.TempDir()
	const reason = "INVALID_INPUT: the operation file is invalid: not valid JSON"
	writeReason(filepath.Join(dir, "a.json"), reason)
	if got := FailureReason(dir, "a"); got != reason {
		t.Errorf("failureReason of what writeReason wrote = %q, want %q", got, reason)
	}
	multi := "first line\nsecond line"
	writeReason(filepath.Join(dir, "b.json"), multi)
	if got := FailureReason(dir, "b"); got != multi {
		t.Errorf("failureReason of a reason of two lines = %q, want %q", got, multi)
	}
	for name, content := range map[string]string{"empty": "", "blank": " \n\n", "time only": "2026-01-01T00:00:00Z\n"} {
		if err := os.WriteFile(filepath.Join(dir, "c.error"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := FailureReason(dir, "c"); got != noReason {
			t.Errorf("%s reason file: failureReason = %q, want %q", name, got, noReason)
		}
	}
	if got := noReason; got != "failed; no reason was recorded" {
		t.Errorf("noReason = %q", got)
	}
}
