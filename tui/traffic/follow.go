package traffic

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// rescanEvery catches files and lines whose file events were missed (overflow, network file
// systems). Events are the fast path; this is the safety net.
const rescanEvery = time.Second

// Follow calls fn with every event past from (all of them when from is nil) in every traffic
// file in dir, file by file in start-time order, then with each new line and each new file as
// they appear, until ctx ends; then it returns nil. From where ReadDir stopped, an event written
// since is delivered whatever its time stamp: a session stamps an event before it writes it. fn runs on Follow's goroutine, one
// event at a time. A line is delivered once, when its newline has been written. dir is made
// (0700) if it does not exist yet, so following works before the first server starts. Where
// file events cannot be had, Follow still follows, by rescanning every second.
func Follow(ctx context.Context, dir string, from Position, fn func(Event)) error {
	return tailDir(ctx, dir, from, fn, fsnotify.NewWatcher)
}

// tailDir is Follow with the watcher's constructor given, so that a test can take file events
// away.
func tailDir(ctx context.Context, dir string, from Position, fn func(Event), newWatcher func() (*fsnotify.Watcher, error)) error {
	if err := ensureDir(dir); err != nil {
		return err
	}
	// File events are only the fast path. Without them (inotify instances are a per-user limit
	// that editors and other watchers use up) the rescan sees every line, up to rescanEvery later.
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w, err := newWatcher(); err == nil {
		defer w.Close()
		// Watch before the first scan, so a line written in between is seen by one or the other.
		if w.Add(dir) == nil {
			events, errs = w.Events, w.Errors
		}
	}
	t := &tail{dir: dir, fn: fn, offsets: maps.Clone(from)}
	if t.offsets == nil {
		t.offsets = map[string]int64{}
	}
	t.scan()
	tick := time.NewTicker(rescanEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if !isTrafficName(ev.Name) {
				continue
			}
			switch {
			case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
				delete(t.offsets, ev.Name)
			case ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write):
				t.read(ev.Name)
			}
		case err, ok := <-errs:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.scan()
			}
		case <-tick.C:
			t.scan()
		}
	}
}

func isTrafficName(path string) bool {
	name := filepath.Base(path)
	return strings.HasSuffix(name, Ext) && !strings.HasPrefix(name, ".")
}

// tail is Follow's state: how far each file has been read.
type tail struct {
	dir     string
	fn      func(Event)
	offsets map[string]int64
}

// scan reads every file's new lines and forgets files that are gone.
func (t *tail) scan() {
	files := listFiles(t.dir)
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
		if f.size != t.offsets[f.path] {
			t.read(f.path)
		}
	}
	for p := range t.offsets {
		if !seen[p] {
			delete(t.offsets, p)
		}
	}
}

// read delivers the complete lines of path past its offset. A file shorter than its offset was
// replaced or truncated and is read again from the start. Errors leave the offset where it is:
// the next event or rescan tries again.
func (t *tail) read(path string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	off := t.offsets[path]
	if fi.Size() < off {
		off = 0
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return
	}
	n, _ := readLines(f, false, t.fn)
	t.offsets[path] = off + n
}
