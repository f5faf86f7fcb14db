package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/mcpctl/mcpctl/promptlib"
)

// publish is step 3: write .{id}.tmp (O_EXCL, 0600, no symlink followed), fsync it, link it to
// {id}.json (a link never replaces: an existing name fails), drop the temp name and fsync the
// directory. Until the link succeeds nothing is visible to the app and a failure removes the
// temp file; after it, the operation is published and failures of the tidy-up steps are only
// logged, because reporting them would invite the caller to drop the operation again.
func (w *Writer) publish(id string, body []byte) error {
	tmp, final := join(w.Dir, tmpName(id)), join(w.Dir, opName(id))
	f, err := w.FS.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fsError("create the operation file", err)
	}
	_, werr := f.Write(body)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = w.FS.Link(tmp, final)
	}
	if werr != nil {
		if rerr := w.FS.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			w.Log.Warn("queue: cannot remove temp file", "file", tmp, "err", rerr)
		}
		return fsError("write the operation file", werr)
	}
	if err := w.FS.Remove(tmp); err != nil {
		w.Log.Warn("queue: cannot remove temp file after publishing; startup cleanup will", "operationId", id, "err", err)
	}
	if err := w.FS.SyncDir(w.Dir); err != nil {
		w.Log.Warn("queue: cannot fsync the queue directory", "operationId", id, "err", err)
	}
	return nil
}

// fsError turns a file-system failure into a user-facing error that names the cause.
func fsError(what string, err error) *promptlib.Error {
	code := promptlib.CodeQueueIO
	cause := "an I/O error (" + rootCause(err) + ")"
	switch {
	case errors.Is(err, fs.ErrPermission):
		code, cause = promptlib.CodePermissionDenied, "permission denied"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		cause = "the disk is full"
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ELOOP):
		code, cause = promptlib.CodePermissionDenied, "a file of that name is already in the queue"
	}
	return &promptlib.Error{Code: code, Message: fmt.Sprintf("cannot %s: %s", what, cause), Err: err}
}

// rootCause is the system's word for a failure, without the path (the message says which file).
func rootCause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
