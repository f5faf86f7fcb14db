package queue

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/mattn/go-sqlite3"

	"github.com/mcpctl/mcpctl/promptlib"
)

// libraryWriteError is the answer to an operation the library could not take, translated from
// the driver's error at the package edge: what went wrong (the disk is full, the file is
// read-only, ...) and what to do about it, in the message, because the response file carries
// no hint (DESIGN §4: {status, id, message, error}). Nothing was applied: the transaction was
// rolled back. path names the library file.
func libraryWriteError(err error, path string) *promptlib.Error {
	if isBusy(err) {
		// Passing: the code's hint says to try again shortly.
		return &promptlib.Error{Code: promptlib.CodeDatabaseLocked, Err: err,
			Message: "the library is locked by another process; nothing was applied"}
	}
	cause, todo := "", "Try again in a moment; if it fails again, run health_check."
	var se sqlite3.Error
	if !errors.As(err, &se) {
		// Not the driver's: say what it is rather than nothing.
		cause = err.Error()
	} else {
		cause = se.Error()
		// A write the file system refused for space comes as SQLITE_FULL, or as an I/O error
		// with the errno.
		full := se.Code == sqlite3.ErrFull || se.SystemErrno == syscall.ENOSPC || se.SystemErrno == syscall.EDQUOT
		switch {
		case full:
			cause = "the disk is full"
			todo = fmt.Sprintf("Free space on the disk that holds %s, then try again.", path)
		case se.Code == sqlite3.ErrReadonly && se.ExtendedCode == sqlite3.ErrReadonlyDbMoved:
			cause = "the library file was moved or deleted while mcpctl had it open"
			todo = "Put the library back at " + path + "; mcpctl's processor reopens it."
		case se.Code == sqlite3.ErrReadonly:
			cause = "the library file is read-only to mcpctl (" + se.Error() + ")"
			todo = fmt.Sprintf("Make %s, and the -wal and -shm files beside it, writable by the user mcpctl runs as "+
				"(for example chmod u+w %s, and check who owns them), then try again.", path, path)
		case se.Code == sqlite3.ErrCantOpen:
			cause = "SQLite cannot open the library file or the -wal, -shm or -journal file beside it (" + se.Error() + ")"
			todo = fmt.Sprintf("Check that %s and its directory exist and that the user mcpctl runs as can write both, then try again.", path)
		case se.Code == sqlite3.ErrPerm || se.Code == sqlite3.ErrAuth:
			cause = "permission denied (" + se.Error() + ")"
			todo = fmt.Sprintf("Check that the user mcpctl runs as owns %s and can write it and its directory, then try again.", path)
		case se.Code == sqlite3.ErrIoErr:
			cause = "a disk I/O error (" + se.Error() + ")" // Error ends with the errno, when there is one
			todo = fmt.Sprintf("Check the disk that holds %s (the system log says more), then try again.", path)
		case se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB:
			cause = "the library file is damaged (" + se.Error() + ")"
			todo = "Restore " + path + " from a backup; writes fail until then."
		}
	}
	return &promptlib.Error{Code: promptlib.CodeDatabaseError, Err: err,
		Message: fmt.Sprintf("the library %s could not be written: %s; nothing was applied. %s", path, cause, todo)}
}
