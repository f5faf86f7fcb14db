package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mcpctl/mcpctl/promptlib"
)

// MaxPending is how many pending operations the queue holds before writers get QUEUE_FULL.
const MaxPending = 1000

// Queue directory states, as CheckDir reports them. Every state but DirWritable means the
// Writer refuses to write there.
const (
	DirWritable    = "writable"
	DirMissing     = "missing"
	DirNotDir      = "not_directory"
	DirSymlink     = "symlink"
	DirWrongOwner  = "wrong_owner"
	DirInsecure    = "insecure_mode" // group or others may write it
	DirNotWritable = "not_writable"
)

// CheckDir is the one queue-directory check (DESIGN §1): the Writer runs it before every
// operation and health_check reports it, so the two always agree. It refuses a directory that
// is missing, a symlink, not a directory, someone else's, writable by group or others (0770 and
// 0777 alike), or not writable by us: an operation dropped there could be swapped or lost by
// someone else. A directory others may only read is accepted: our files are 0600, and refusing
// the app's own 0755 queue would make every write fail. pending counts the operations waiting
// ({id}.json), when the directory is usable. err is a *promptlib.Error (PERMISSION_DENIED, or
// QUEUE_IO_ERROR when it cannot be listed) saying which check failed and what to do, nil
// exactly when state is DirWritable.
func CheckDir(dir string) (state string, pending int, err error) {
	return checkDirPending(OSFS{}, dir)
}

func checkDirPending(fsys FS, dir string) (string, int, error) {
	state, err := checkDir(fsys, dir)
	if err != nil {
		return state, 0, err
	}
	n, err := countPending(fsys, dir)
	if err != nil {
		return DirNotWritable, 0, fsError("list the import queue", err)
	}
	return DirWritable, n, nil
}

// checkDir is CheckDir without the count.
func checkDir(fsys FS, dir string) (string, error) {
	fi, err := fsys.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e := promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s does not exist", dir)
		// The code's hint is about owner and mode, which a missing directory has neither of.
		e.Advice = fmt.Sprintf("The Prompteka app makes its import queue when it starts; for a library made by mcpctl, make it again with 'mkdir -m 700 %s'.", dir)
		return DirMissing, e
	case err != nil:
		return DirNotWritable, &promptlib.Error{Code: promptlib.CodePermissionDenied, Message: fmt.Sprintf("cannot inspect the import queue %s: %s", dir, rootCause(err)), Err: err}
	case fi.Mode()&fs.ModeSymlink != 0:
		e := promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s is a symlink; mcpctl refuses symlinked queues", dir)
		// A link can be swapped under a write; the directory it names cannot.
		e.Advice = "Give mcpctl the directory itself (serve --queue DIR, or the library's own import-queue), not a link to it."
		if target, err := os.Readlink(dir); err == nil {
			e.Advice = fmt.Sprintf("Give mcpctl the directory itself, not a link to it: serve --queue %s, or replace the link with that directory.", target)
		}
		return DirSymlink, e
	case !fi.IsDir():
		e := promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s is not a directory", dir)
		e.Advice = fmt.Sprintf("Move the file at %s away and make the directory in its place with 'mkdir -m 700 %s'.", dir, dir)
		return DirNotDir, e
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return DirWrongOwner, promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s belongs to uid %d, not to this user (uid %d)", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return DirInsecure, promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s has mode %04o: other users can write to it; run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return DirNotWritable, &promptlib.Error{Code: promptlib.CodePermissionDenied, Message: fmt.Sprintf("the import queue %s is not writable", dir), Err: err}
	}
	return DirWritable, nil
}

// FullError is QUEUE_FULL for a queue holding pending operations when it takes at most max, nil
// while it takes more: the Writer's refusal, and health_check's reason not to say healthy while
// every write would get it.
func FullError(pending, max int) *promptlib.Error {
	if pending < max {
		return nil
	}
	return promptlib.Errorf(promptlib.CodeQueueFull,
		"the import queue holds %d pending operations, the most it takes; writes are refused until the queue's processor works through them", pending)
}

// countPending counts pending operation files ({id}.json) in dir.
func countPending(fsys FS, dir string) (int, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if isPending(e.Name()) {
			n++
		}
	}
	return n, nil
}

// isPending reports whether name is a pending operation file as the app sees it: any *.json
// that is not a dot-file.
func isPending(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".json")
}
