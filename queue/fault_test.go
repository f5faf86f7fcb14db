package queue

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// faultFS fails the failAt-th call (counting from 1) with err, and counts every call.
type faultFS struct {
	FS
	mu     sync.Mutex
	calls  int
	failAt int
	err    error
	failed string // the call that failed
}

var _ FS = (*faultFS)(nil)

func (f *faultFS) fail(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls == f.failAt {
		f.failed = op
		return &fs.PathError{Op: op, Path: "injected", Err: f.err}
	}
	return nil
}

func (f *faultFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	if err := f.fail("open " + filepath.Base(name)); err != nil {
		return nil, err
	}
	file, err := f.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: filepath.Base(name)}, nil
}

func (f *faultFS) Link(o, n string) error {
	if err := f.fail("link"); err != nil {
		return err
	}
	return f.FS.Link(o, n)
}

func (f *faultFS) Rename(o, n string) error {
	if err := f.fail("rename"); err != nil {
		return err
	}
	return f.FS.Rename(o, n)
}

func (f *faultFS) Remove(n string) error {
	if err := f.fail("remove " + filepath.Base(n)); err != nil {
		return err
	}
	return f.FS.Remove(n)
}

func (f *faultFS) Lstat(n string) (fs.FileInfo, error) {
	if err := f.fail("lstat"); err != nil {
		return nil, err
	}
	return f.FS.Lstat(n)
}

func (f *faultFS) ReadDir(n string) ([]fs.DirEntry, error) {
	if err := f.fail("readdir"); err != nil {
		return nil, err
	}
	return f.FS.ReadDir(n)
}

func (f *faultFS) SyncDir(n string) error {
	if err := f.fail("syncdir"); err != nil {
		return err
	}
	return f.FS.SyncDir(n)
}

type faultFile struct {
	File
	fs   *faultFS
	name string
}

func (f *faultFile) Write(b []byte) (int, error) {
	if err := f.fs.fail("write " + f.name); err != nil {
		return 0, err
	}
	return f.File.Write(b)
}

func (f *faultFile) Sync() error {
	if err := f.fs.fail("fsync " + f.name); err != nil {
		return err
	}
	return f.File.Sync()
}

// Fault: disk full / permission denied / I/O error at every step of a write. Whatever call
// fails: a success is applied exactly once; a "not applied" left nothing in the queue and
// nothing in the library; nothing is ever applied twice.
func TestWriterFileSystemFaults(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EACCES, syscall.EIO} {
		for n := 1; ; n++ {
			// A subtest each, so that each processor (and its file watcher) stops before the next
			// starts.
			calls := 0
			if !t.Run(fmt.Sprintf("%s at %d", errno, n), func(t *testing.T) { calls = writeWithFault(t, errno, n) }) {
				break
			}
			if calls < n { // the fault was never reached: every step has been covered
				if n < 5 {
					t.Fatalf("only %d file-system calls in a write; the fake is not wired in", calls)
				}
				break
			}
		}
	}
}

// writeWithFault submits one prompt through a file system that fails its nth call with errno,
// checks that the write is applied at most once and that its error tells the truth, and
// returns how many calls the write made.
func writeWithFault(t *testing.T, errno syscall.Errno, n int) int {
	l := newLib(t, 1)
	ready := make(chan struct{})
	startProcessor(t, l, func(point, _ string) {
		if point == HookReady {
			close(ready)
		}
	})
	<-ready
	ffs := &faultFS{FS: OSFS{}, failAt: n, err: errno}
	w := patientWriter(t, l.Queue)
	w.FS = ffs
	title := fmt.Sprintf("fault %s at %d", errno, n)
	_, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt(title))
	ffs.mu.Lock()
	failed, calls := ffs.failed, ffs.calls
	ffs.mu.Unlock()
	applied := l.titled(t, title)
	t.Logf("failed %q → err %v, applied %d", failed, err, applied)
	if applied > 1 {
		t.Fatalf("applied %d times", applied)
	}
	if err == nil {
		if applied != 1 {
			t.Errorf("failed %q: success but applied %d times", failed, applied)
		}
		return calls
	}
	pe := asError(t, err)
	if pe.Outcome == promptlib.NotApplied {
		if applied != 0 {
			t.Errorf("failed %q: said not applied but applied", failed)
		}
		if got := queueLeftovers(t, l.Queue); len(got) != 0 {
			t.Errorf("failed %q: queue holds %v after a not-applied failure", failed, got)
		}
		if errno == syscall.ENOSPC && strings.HasPrefix(failed, "write") && !strings.Contains(pe.Message, "disk is full") {
			t.Errorf("message %q does not name the cause", pe.Message)
		}
	}
	return calls
}

// Fault: an unwritable queue directory (run as a non-root user).
func TestWriterUnwritableQueue(t *testing.T) {
	if os.Geteuid() == 0 {
		// Root ignores directory permissions: run this test again as nobody.
		runAsNobody(t, "^TestWriterUnwritableQueue$")
		return
	}
	l := newLib(t, 1)
	os.Chmod(l.Queue, 0o500)
	t.Cleanup(func() { os.Chmod(l.Queue, 0o700) })
	_, err := fastWriter(t, l.Queue).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("x"))
	if pe := asError(t, err); pe.Code != promptlib.CodePermissionDenied || pe.Outcome != promptlib.NotApplied {
		t.Errorf("got %s/%s, want PERMISSION_DENIED/not_applied", pe.Code, pe.Outcome)
	}
}

// runAsNobody re-runs the test binary's tests matching pattern as uid/gid 65534 and fails
// unless they ran and passed there.
func runAsNobody(t *testing.T, pattern string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "queue.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run="+pattern, "-test.v")
	cmd.Env = []string{"TMPDIR=" + os.TempDir(), "PATH=" + os.Getenv("PATH")}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
