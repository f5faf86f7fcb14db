package traffic

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// MaxAge is how long a traffic file is kept after its last write.
	MaxAge = 7 * 24 * time.Hour
	// MaxTotal bounds the bytes of all traffic files together; the oldest go first.
	MaxTotal = 20 << 20
	// maxFile is where a session moves on to a new file, so that pruning can drop the old part
	// of a long session instead of all of it.
	maxFile = MaxTotal / 4
	// Ext is the extension of a traffic file.
	Ext = ".jsonl"
	// nameTime is the start-time part of a file name; names sort by start time.
	nameTime = "20060102T150405.000Z"
)

// Dir is the traffic directory under a state home ($XDG_STATE_HOME).
func Dir(stateHome string) string { return filepath.Join(stateHome, "mcpctl", "traffic") }

// Writer appends one session's events to its file. It is safe for concurrent use; a Write is
// one marshal and one append to a local file, so it never holds the server up for long.
type Writer struct {
	dir string
	pid int

	mu     sync.Mutex
	f      *os.File
	path   string
	size   int64
	torn   bool // a write stopped part way (a full disk): the file ends inside a line
	closed bool
}

// Open starts a session's traffic file {start-time}-{pid}.jsonl in dir (made 0700 if missing),
// created 0600 without following a symlink, and removes files older than MaxAge and the oldest
// beyond MaxTotal. A directory that is a symlink is refused.
func Open(dir string, now time.Time) (*Writer, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, pid: os.Getpid()}
	if err := w.openFile(now); err != nil {
		return nil, err
	}
	prune(dir, now, w.path)
	return w, nil
}

// ensureDir makes dir 0700, refuses a symlink and takes group and other access away from a
// directory made too open by hand (payloads may hold prompt content).
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &Error{Op: "create directory", Path: dir, Err: err}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return &Error{Op: "create directory", Path: dir, Err: err}
	}
	if !fi.IsDir() {
		return &Error{Op: "create directory", Path: dir, Err: errors.New("not a directory (a symlink?); remove it and start again")}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return &Error{Op: "restrict directory", Path: dir, Err: err}
		}
	}
	return nil
}

// openFile opens a fresh file named for start; a name already taken (two rotations within a
// millisecond) moves the start on by a millisecond.
func (w *Writer) openFile(start time.Time) error {
	for range 1000 {
		path := filepath.Join(w.dir, start.UTC().Format(nameTime)+"-"+strconv.Itoa(w.pid)+Ext)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			start = start.Add(time.Millisecond)
			continue
		}
		if err != nil {
			return &Error{Op: "create", Path: path, Err: err}
		}
		w.f, w.path, w.size, w.torn = f, path, 0, false
		return nil
	}
	return &Error{Op: "create", Path: w.dir, Err: errors.New("no free file name; remove stale files from the directory")}
}

// Write appends e as one JSON line. A file grown past a quarter of MaxTotal is closed and a new
// one started, and old files are pruned.
func (w *Writer) Write(e Event) error {
	line, err := json.Marshal(e)
	if err != nil {
		return &Error{Op: "encode event", Path: w.path, Err: err}
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return &Error{Op: "write", Path: w.path, Err: os.ErrClosed}
	}
	if w.size > 0 && w.size+int64(len(line)) > maxFile {
		if err := w.rotate(); err != nil {
			return err
		}
	}
	if w.torn {
		// End the torn line, which readers skip, so that this event stays a line of its own.
		line = append([]byte{'\n'}, line...)
	}
	n, err := w.f.Write(line)
	w.size += int64(n)
	if err != nil {
		if n > 0 {
			w.torn = true
		}
		return &Error{Op: "write", Path: w.path, Err: err}
	}
	w.torn = false
	return nil
}

// rotate moves on to a new file. Called with mu held.
func (w *Writer) rotate() error {
	if err := w.f.Close(); err != nil {
		return &Error{Op: "close", Path: w.path, Err: err}
	}
	now := time.Now()
	if err := w.openFile(now); err != nil {
		w.closed = true // nothing to write to; later writes say so
		return err
	}
	prune(w.dir, now, w.path)
	return nil
}

// Path is the file being written now.
func (w *Writer) Path() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.path
}

// Close closes the file; later writes fail. Closing twice is a no-op.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.f.Close(); err != nil {
		return &Error{Op: "close", Path: w.path, Err: err}
	}
	return nil
}

// prune removes traffic files last written before now-MaxAge, then the oldest beyond MaxTotal
// bytes in all, never keep (the file being written). Only regular *.jsonl files are touched.
// Pruning is housekeeping: a file that cannot be removed is left for the next time.
func prune(dir string, now time.Time, keep string) {
	files := listFiles(dir)
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) }) // newest first
	var total int64
	for _, f := range files {
		if f.path == keep {
			total += f.size
		}
	}
	for _, f := range files {
		if f.path == keep {
			continue
		}
		total += f.size
		if now.Sub(f.mod) > MaxAge || total > MaxTotal {
			os.Remove(f.path)
		}
	}
}

type fileInfo struct {
	path string
	size int64
	mod  time.Time
}

// listFiles lists the regular traffic files in dir, sorted by name (start time). Symlinks and
// other non-regular entries are skipped.
func listFiles(dir string) []fileInfo {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []fileInfo
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), Ext) || strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, fileInfo{path: filepath.Join(dir, e.Name()), size: fi.Size(), mod: fi.ModTime()})
	}
	return out
}
