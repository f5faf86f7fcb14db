package queue

import (
	"io/fs"
	"os"
)

func renameIfAbsent(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); err == nil {
		return &Error{Op: "rename", Path: newpath, Err: fs.ErrExist}
	}
	if err := os.Rename(oldpath, newpath); err != nil {
		return &Error{Op: "rename", Path: oldpath, Err: err}
	}
	return nil
}
