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

// checkDir refuses a queue directory that is missing, not a directory, a symlink, someone
// else's, writable by other users, or not writable by us: an operation dropped there could be
// swapped or lost by someone else. A directory others may only read is accepted: our files are
// 0600, and refusing the app's own 0755 queue would make every write fail. The errors are
// PERMISSION_DENIED and say which check failed.
func checkDir(fsys FS, dir string) error {
	fi, err := fsys.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s does not exist", dir)
	case err != nil:
		return &promptlib.Error{Code: promptlib.CodePermissionDenied, Message: fmt.Sprintf("cannot inspect the import queue %s: %s", dir, rootCause(err)), Err: err}
	case fi.Mode()&fs.ModeSymlink != 0:
		return promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s is a symlink; mcpctl refuses symlinked queues", dir)
	case !fi.IsDir():
		return promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s is not a directory", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s has mode %04o: other users can write to it; run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return promptlib.Errorf(promptlib.CodePermissionDenied, "the import queue %s belongs to uid %d, not to this user (uid %d)", dir, st.Uid, os.Getuid())
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return &promptlib.Error{Code: promptlib.CodePermissionDenied, Message: fmt.Sprintf("the import queue %s is not writable", dir), Err: err}
	}
	return nil
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
