package queue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Fault: the library's disk fills. SQLite's max_page_count stands in for the disk: the library
// cannot grow, and SQLite answers as for a full disk (SQLITE_FULL, "database or disk is full").
// The write fails naming the cause and the fix, not "try again in a moment"; the failure reason
// filed says the same; the processor's status holds the failure (health_check reads it) until a
// write gets through once space is back.
func TestProcessorLibraryDiskFull(t *testing.T) {
	l := newLib(t, 1)
	fillLibrary(t, l)
	status := startWithStatus(t, l, nil)
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	big := createPrompt("does not fit")
	big.Content = strings.Repeat("Sixty kilobytes of prompt. ", 60<<10/27)
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, big)
	pe := asError(t, err)
	if pe.Code != promptlib.CodeDatabaseError || pe.Outcome != promptlib.NotApplied {
		t.Errorf("got %s/%s, want DATABASE_ERROR/not_applied", pe.Code, pe.Outcome)
	}
	if !strings.Contains(pe.Message, "the disk is full") || !strings.Contains(pe.Message, "Free space") || !strings.Contains(pe.Message, DBName) {
		t.Errorf("message %q does not say the disk is full, which file, and to free space", pe.Message)
	}
	if hint := pe.Hint(); strings.Contains(hint, "in a moment") {
		t.Errorf("hint %q says to try again in a moment: it would fail the same way", hint)
	}
	if n := l.titled(t, "does not fit"); n != 0 {
		t.Errorf("applied %d times, want 0", n)
	}
	// Not recorded as answered: the transaction was rolled back whole.
	if n := l.count(t, `SELECT COUNT(*) FROM applied_ops WHERE op_id = ?`, pe.OperationID); n != 0 {
		t.Errorf("applied_ops holds %d rows for the operation that was not applied, want none", n)
	}
	// Filed before its answer (failNow), so filed already; filed waits all the same.
	if where := filed(t, l.Queue, pe.OperationID); where != failedDir {
		t.Errorf("filed in %s, want failed/", where)
	}
	if reason := FailureReason(filepath.Join(l.Queue, failedDir), pe.OperationID); !strings.Contains(reason, "the disk is full") {
		t.Errorf("failed/%s.error = %q, want the cause", pe.OperationID, reason)
	}
	if werr := status.WriteError(); werr == nil || !strings.Contains(werr.Error(), "the disk is full") {
		t.Errorf("status WriteError = %v, want the last write's cause", werr)
	}
	// Still trying: the next write may find space.
	if state, _ := status.State(); state != ProcRunning || status.Alive() != nil {
		t.Errorf("state %s, Alive %v; want running: the next write is still tried", state, status.Alive())
	}

	if _, err := l.DB.Exec(`PRAGMA max_page_count = 1073741823`); err != nil { // space is back
		t.Fatal(err)
	}
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, big); err != nil {
		t.Fatalf("once space is back: %v", err)
	}
	if werr := status.WriteError(); werr != nil {
		t.Errorf("status WriteError = %v after a write went through, want nil", werr)
	}
	if n := l.titled(t, "does not fit"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

// Fault: the library file is read-only to the user mcpctl runs as (chmod 444, run as a non-root
// user: root writes it anyway). The write fails saying so and how to fix it.
func TestProcessorReadOnlyLibrary(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "^TestProcessorReadOnlyLibrary$")
		return
	}
	dir := filepath.Join(t.TempDir(), "lib")
	if err := CreateLibrary(context.Background(), dir, promptlib.Sample(1, 1)); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, DBName)
	if err := os.Chmod(dbPath, 0o444); err != nil {
		t.Fatal(err)
	}
	// Opened after the chmod: SQLite opens the file read-only, as serve does.
	db, err := OpenStore(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l := &testLib{Dir: dir, Queue: filepath.Join(dir, QueueName), DB: db}
	status := startWithStatus(t, l, nil)
	_, err = patientWriter(t, l.Queue).WithProcessor(status.Alive).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("read-only"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeDatabaseError || pe.Outcome != promptlib.NotApplied {
		t.Errorf("got %s/%s, want DATABASE_ERROR/not_applied", pe.Code, pe.Outcome)
	}
	if !strings.Contains(pe.Message, "read-only") || !strings.Contains(pe.Message, "chmod u+w "+dbPath) {
		t.Errorf("message %q does not say the library is read-only and how to fix it", pe.Message)
	}
	if werr := status.WriteError(); werr == nil || !strings.Contains(werr.Error(), "read-only") {
		t.Errorf("status WriteError = %v, want the last write's cause", werr)
	}
}

// A library that is read-only when the processor starts is known before any write: health_check
// says so after a restart. A directory where SQLite cannot make the -wal file keeps the
// processor from opening the library at all, and the reason names the directory and the fix,
// not only SQLite's "attempt to write a readonly database".
func TestProcessorKnowsAReadOnlyLibraryBeforeAWrite(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "^TestProcessorKnowsAReadOnlyLibraryBeforeAWrite$")
		return
	}
	for _, c := range []struct {
		name, chmod string // what is made read-only: the file, or the directory without a -wal file
		mode        os.FileMode
		state, want string
	}{
		{"file", DBName, 0o444, ProcRunning, "no write to the library can succeed: the library file "},
		{"directory", ".", 0o555, ProcFailed, "cannot open the library: the library's directory "},
	} {
		dir := filepath.Join(t.TempDir(), "lib")
		if err := CreateLibrary(context.Background(), dir, promptlib.Sample(1, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, DBName+"-wal")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: a -wal file is left: %v", c.name, err)
		}
		target := filepath.Join(dir, c.chmod)
		if err := os.Chmod(target, c.mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		l := &testLib{Dir: dir, Queue: filepath.Join(dir, QueueName)}
		status := runElected(t, l, nil)
		waitFor(t, c.name+": the processor "+c.state, func() bool { s, _ := status.State(); return s == c.state })
		_, why := status.State()
		if why == nil {
			why = status.WriteError()
		}
		if why == nil || !strings.Contains(why.Error(), c.want+target) || !strings.Contains(why.Error(), "chmod u+w "+target) {
			t.Errorf("%s made read-only: %v; want it named, with how to fix it", c.name, why)
		}
	}
}

// Each SQLite failure is told by its cause; a lock passes on its own and keeps its code.
func TestLibraryWriteErrorCauses(t *testing.T) {
	const path = "/lib/prompts.db"
	tests := []struct {
		name string
		err  error
		code promptlib.Code
		want []string
	}{
		{"full", sqlite3.Error{Code: sqlite3.ErrFull}, promptlib.CodeDatabaseError, []string{"the disk is full", "Free space on the disk that holds " + path}},
		{"ENOSPC as an I/O error", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrWrite, SystemErrno: syscall.ENOSPC},
			promptlib.CodeDatabaseError, []string{"the disk is full"}},
		{"read-only", sqlite3.Error{Code: sqlite3.ErrReadonly}, promptlib.CodeDatabaseError, []string{"read-only", "chmod u+w " + path}},
		{"cannot open", sqlite3.Error{Code: sqlite3.ErrCantOpen, SystemErrno: syscall.EACCES}, promptlib.CodeDatabaseError,
			[]string{"cannot open", "permission denied", "its directory"}},
		{"I/O error", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrFsync, SystemErrno: syscall.EIO},
			promptlib.CodeDatabaseError, []string{"disk I/O error", "input/output error", "Check the disk"}},
		{"damaged", sqlite3.Error{Code: sqlite3.ErrCorrupt}, promptlib.CodeDatabaseError, []string{"damaged", "backup"}},
		{"busy", fmt.Errorf("queue: begin: %w", sqlite3.Error{Code: sqlite3.ErrBusy}), promptlib.CodeDatabaseLocked, []string{"locked by another process"}},
		{"something else", errors.New("queue: record x: boom"), promptlib.CodeDatabaseError, []string{"boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pe := libraryWriteError(fmt.Errorf("queue: apply x: %w", tt.err), path)
			if pe.Code != tt.code || !strings.Contains(pe.Message, "nothing was applied") {
				t.Errorf("got %s %q, want %s saying nothing was applied", pe.Code, pe.Message, tt.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(pe.Message, w) {
					t.Errorf("message %q does not say %q", pe.Message, w)
				}
			}
		})
	}
}

// A failure is filed before it is answered: a processor that dies once it has answered "not
// applied" leaves nothing in processing/ for the processor that takes over to decide again. It
// was left there, and the next processor applied what the writer had been told was not: the
// failure of a full or locked library is not recorded in applied_ops.
func TestFailureIsFiledBeforeItIsAnswered(t *testing.T) {
	l := newLib(t, 1)
	fillLibrary(t, l)
	answered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	startProcessor(t, l, func(point, _ string) {
		if point == HookAfterResponse {
			once.Do(func() {
				close(answered)
				<-release // the processor is dead from here on
			})
		}
	})
	t.Cleanup(func() { close(release) }) // before the processor's Close, which waits for it
	big := createPrompt("answered not applied")
	big.Content = strings.Repeat("x", 60<<10)
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, big)
	<-answered
	if r := readResponseFile(t, l.Queue, id); r.OK() {
		t.Fatalf("answer %+v, want the full disk's failure", r)
	}

	if _, err := l.DB.Exec(`PRAGMA max_page_count = 1073741823`); err != nil { // space is back
		t.Fatal(err)
	}
	recovered := make(chan struct{})
	startProcessor(t, l, func(point, _ string) {
		if point == HookReady {
			close(recovered)
		}
	})
	<-recovered
	if n := l.titled(t, "answered not applied"); n != 0 {
		t.Errorf("applied %d times after it was answered not applied, want 0", n)
	}
	if got := filed(t, l.Queue, id); got != failedDir {
		t.Errorf("filed in %s, want failed/ as it was answered", got)
	}
}

// A failure that cannot be filed (failed/ a symlink) is not answered: it waits in processing/,
// the processor failed, and a rescan decides it again once it can be filed. Its writer was told
// nothing, so the library, with space again, applies it then.
func TestFailureUnfiledIsNotAnswered(t *testing.T) {
	l := newLib(t, 1)
	fillLibrary(t, l)
	var once sync.Once
	status := startWithStatus(t, l, func(point, _ string) {
		if point == HookAfterClaim { // once claimed: a broken queue stops the claim itself
			once.Do(func() { linkAway(t, l, failedDir) })
		}
	})
	big := createPrompt("not answered")
	big.Content = strings.Repeat("x", 60<<10)
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, big)
	// The filing failed; the operation waits in processing/. (A failed write is no state of
	// its own: only the filing, then each rescan's remaking of the directories, fails it.)
	waitState(t, status, ProcFailed)
	if exists(filepath.Join(l.Queue, responseName(id))) {
		t.Fatal("answered a failure it could not file")
	}

	if _, err := l.DB.Exec(`PRAGMA max_page_count = 1073741823`); err != nil { // space is back
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(l.Queue, failedDir)); err != nil { // the processor makes it again
		t.Fatal(err)
	}
	if r := readResponseFile(t, l.Queue, id); !r.OK() {
		t.Errorf("answer %+v, want it applied once it could be", r)
	}
	if n := l.titled(t, "not answered"); n != 1 {
		t.Errorf("applied %d times, want 1", n)
	}
}

// fillLibrary caps the library at the pages it has, so the next write that needs a page fails
// as on a full disk (SQLITE_FULL). The store has one connection, the processor's: the limit
// holds for every write it makes.
func fillLibrary(tb testing.TB, l *testLib) {
	tb.Helper()
	var pages int
	if err := l.DB.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		tb.Fatal(err)
	}
	if _, err := l.DB.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		tb.Fatal(err)
	}
}
