package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// unwritable is why no write to the library at path can succeed, as the processor finds it
// when it starts: the file, its -wal file, or (while SQLite has yet to make the -wal file) its
// directory is read-only to the user mcpctl runs as, or sits on a read-only file system. It is
// nil when all are writable, or when that cannot be told. A write would fail the same way, but
// only once tried: without this, health_check said healthy after a restart until the user's
// next write failed, and a processor that could not open the library said only SQLite's
// "attempt to write a readonly database".
func unwritable(path string) error {
	check := []string{path}
	wal := path + "-wal"
	switch _, err := os.Stat(wal); {
	case err == nil:
		check = append(check, wal)
	case errors.Is(err, fs.ErrNotExist):
		check = append(check, filepath.Dir(path))
	}
	for _, f := range check {
		err := unix.Access(f, unix.W_OK)
		if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.EROFS) {
			continue
		}
		what := "the library file " + f
		switch f {
		case wal:
			what = "the library's -wal file " + f
		case filepath.Dir(path):
			what = "the library's directory " + f + " (SQLite makes the -wal file there)"
		}
		if errors.Is(err, unix.EROFS) {
			return fmt.Errorf("%s is on a read-only file system; mount it read-write, or serve a library elsewhere", what)
		}
		return fmt.Errorf("%s is read-only to the user mcpctl runs as; make it writable (for example chmod u+w %s, and check who owns it)", what, f)
	}
	return nil
}
