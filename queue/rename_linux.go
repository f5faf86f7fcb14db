package queue

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames oldpath to newpath atomically and fails with fs.ErrExist when newpath
// exists. Atomic matters: a claim races the writer's withdraw for the same file, and exactly one
// of them must win.
func renameNoReplace(oldpath, newpath string) error {
	err := unix.Renameat2(unix.AT_FDCWD, oldpath, unix.AT_FDCWD, newpath, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) { // a file system without the flag
		return renameIfAbsent(oldpath, newpath)
	}
	if err != nil {
		return &Error{Op: "rename", Path: oldpath, Err: err}
	}
	return nil
}
