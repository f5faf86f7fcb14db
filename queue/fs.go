package queue

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// FS is the file system the Writer works through. The real one is OSFS; tests wrap it to fail
// the Nth call (disk full, permission denied, I/O error) and check that a failure before the
// publishing link leaves nothing visible and one after it never duplicates the operation.
type FS interface {
	// OpenFile opens with os.OpenFile semantics.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Link makes newname a second name of oldname and fails if newname exists: the no-replace
	// publication step.
	Link(oldname, newname string) error
	Rename(oldname, newname string) error
	Remove(name string) error
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// SyncDir fsyncs a directory so that a rename or link in it survives a crash.
	SyncDir(name string) error
}

// File is an open file as FS hands it out.
type File interface {
	io.ReadWriteCloser
	Sync() error
}

// OSFS is the real file system.
type OSFS struct{}

var _ FS = OSFS{}

func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	return os.OpenFile(name, flag, perm)
}
func (OSFS) Link(oldname, newname string) error         { return os.Link(oldname, newname) }
func (OSFS) Rename(oldname, newname string) error       { return os.Rename(oldname, newname) }
func (OSFS) Remove(name string) error                   { return os.Remove(name) }
func (OSFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) SyncDir(name string) error                  { return syncDir(name) }

// syncDir never follows a symlink nor blocks on a FIFO swapped in for the directory: either
// fails the open instead (ELOOP, ENOTDIR).
func syncDir(name string) error {
	d, err := os.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readLimited reads at most limit bytes of f; a longer file gives ok false.
func readLimited(f io.Reader, limit int64) (data []byte, ok bool, err error) {
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, err
	}
	return data, int64(len(data)) <= limit, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
