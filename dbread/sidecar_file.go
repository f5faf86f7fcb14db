package dbread

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// sidecarAppID is the sidecar's PRAGMA application_id ("mcps"): the marker that says a file is
// ours. A file at the sidecar's path without it is never altered, only deleted and recreated.
const sidecarAppID = 0x6d637073

// sqliteMagic opens every SQLite database file; the application_id is the big-endian int32 at
// offset 68 of the header.
var sqliteMagic = []byte("SQLite format 3\x00")

// privateDir makes sure dir exists as a directory of ours that no one else can write (creating
// it 0700). A directory others can write is refused: whoever can write it can plant a link
// where the sidecar will be opened. follow says whether dir may itself be a symlink (the
// user's $XDG_CACHE_HOME may be one; the directories we create below it may not).
func privateDir(dir string, follow bool) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cache directory: %w", err)
	}
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(dir)
	if err != nil {
		return fmt.Errorf("cache directory: %w", err)
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("cache directory %s is a symlink; remove it and mcpctl recreates it", dir)
	case !fi.IsDir():
		return fmt.Errorf("cache directory %s is not a directory; remove it and mcpctl recreates it", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("cache directory %s is owned by uid %d, not by you; remove it and mcpctl recreates it", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("cache directory %s has mode %#o: others can write it; run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// prepareSidecarDirs makes the cache directory and its search/ subdirectory private ones.
func prepareSidecarDirs(cacheDir, path string) error {
	if err := os.MkdirAll(filepath.Dir(cacheDir), 0o700); err != nil {
		return fmt.Errorf("cache directory: %w", err)
	}
	if err := privateDir(cacheDir, true); err != nil {
		return err
	}
	return privateDir(filepath.Dir(path), false)
}

// clearForeign removes whatever at path is not a plain file of ours: a symlink (removed, the
// target untouched), a hard link (another name for someone's file), a FIFO, a device, a
// directory, a file of another owner. It never opens anything but a regular file and never
// blocks (O_NONBLOCK|O_NOFOLLOW).
func clearForeign(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if why := foreignReason(fi); why != "" {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("%s is %s and cannot be removed: %w", path, why, err)
		}
	}
	return nil
}

// foreignReason says why a file at a sidecar path is not one of ours, or "".
func foreignReason(fi os.FileInfo) string {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return "a symlink"
	case !fi.Mode().IsRegular():
		return "not a regular file"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if int(st.Uid) != os.Geteuid() {
			return "owned by another user"
		}
		if st.Nlink > 1 {
			return "a hard link to another file"
		}
	}
	return ""
}

// ownSidecar makes sure the file at path (and its -wal and -shm) can be handed to SQLite: links
// and foreign files are removed, a database without mcpctl's application_id is deleted (never
// altered), and a missing file is created carrying the marker. It reports whether it created
// the file.
func ownSidecar(path string) (created bool, err error) {
	for _, suffix := range []string{"-wal", "-shm", ""} {
		if err := clearForeign(path + suffix); err != nil {
			return false, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return true, createSidecar(path)
	}
	if err != nil {
		return false, err
	}
	mine, why := hasMarker(f)
	fi, serr := f.Stat()
	f.Close()
	if mine && serr == nil && fi.Size() == 0 {
		return true, markSidecar(path)
	}
	if mine {
		return false, nil
	}
	// Not ours: delete it (and any journal beside it, which belongs to it) and start afresh.
	for _, suffix := range []string{"-wal", "-shm", "-journal", ""} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("%s %s and cannot be removed: %w", path, why, err)
		}
	}
	return true, createSidecar(path)
}

// hasMarker reports whether the open file is a SQLite database carrying sidecarAppID, and if
// not, why.
func hasMarker(f *os.File) (bool, string) {
	fi, err := f.Stat()
	if err != nil {
		return false, "cannot be examined"
	}
	if why := foreignReason(fi); why != "" {
		return false, "is " + why
	}
	if fi.Size() == 0 {
		// Being created by another server on this library, or left empty by a crash: there
		// is nothing in it to lose, so it is ours to initialise.
		return true, ""
	}
	head := make([]byte, 72)
	if _, err := io.ReadFull(f, head); err != nil {
		return false, "is not a database"
	}
	if !bytes.Equal(head[:16], sqliteMagic) {
		return false, "is not a database"
	}
	if id := uint32(head[68])<<24 | uint32(head[69])<<16 | uint32(head[70])<<8 | uint32(head[71]); id != sidecarAppID {
		return false, "does not carry mcpctl's marker"
	}
	return true, ""
}

// createSidecar creates an empty database at path whose header carries sidecarAppID. It is
// written in rollback-journal mode so the marker is in the main file itself, not only in a
// WAL: a crash can never leave a file of ours that looks foreign.
func createSidecar(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return markSidecar(path)
}

// markSidecar writes sidecarAppID into the header of the (empty) database at path.
func markSidecar(path string) error {
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: "_busy_timeout=5000"}).String()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA application_id = %d", sidecarAppID)); err != nil {
		return err
	}
	return db.Close()
}
