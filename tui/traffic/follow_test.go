package traffic

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// follow runs Follow on dir until the test ends and returns the channel of its events.
func follow(tb testing.TB, dir string, from Position) <-chan Event {
	tb.Helper()
	return followWith(tb, dir, from, fsnotify.NewWatcher)
}

// followWith is follow with the watcher's constructor given.
func followWith(tb testing.TB, dir string, from Position, newWatcher func() (*fsnotify.Watcher, error)) <-chan Event {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan Event, 100)
	done := make(chan error, 1)
	go func() {
		done <- tailDir(ctx, dir, from, func(e Event) {
			select {
			case ch <- e:
			case <-ctx.Done():
			}
		}, newWatcher)
	}()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Follow returned %v, want nil when its context ends", err)
		}
	})
	return ch
}

// next waits for the next event, failing after a deadline.
func next(tb testing.TB, ch <-chan Event) Event {
	tb.Helper()
	select {
	case e := <-ch:
		return e
	case <-time.After(10 * time.Second):
		tb.Fatal("no event within 10s")
		return Event{}
	}
}

// Follow sees lines and files written after it started: through file events, and by rescanning
// where there are none (inotify instances used up by other programs).
func TestFollowSeesLinesAndFilesWrittenLater(t *testing.T) {
	noEvents := func() (*fsnotify.Watcher, error) {
		return nil, fmt.Errorf("couldn't initialize inotify: %w", syscall.EMFILE)
	}
	for name, newWatcher := range map[string]func() (*fsnotify.Watcher, error){"file events": fsnotify.NewWatcher, "rescan only": noEvents} {
		t.Run(name, func(t *testing.T) { followLater(t, newWatcher) })
	}
}

func followLater(t *testing.T, newWatcher func() (*fsnotify.Watcher, error)) {
	dir := t.TempDir()
	w := openWriter(t, dir)
	if err := w.Write(sample(1)); err != nil {
		t.Fatal(err)
	}
	ch := followWith(t, dir, nil, newWatcher)
	if got := next(t, ch); got.ID != "1" {
		t.Fatalf("first event %q, want the one written before following", got.ID)
	}

	if err := w.Write(sample(2)); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ch); got.ID != "2" {
		t.Fatalf("got event %q, want 2 written after following started", got.ID)
	}

	// A half-written line is delivered once, when its newline arrives.
	f, err := os.OpenFile(w.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := line(t, sample(3))
	if _, err := f.WriteString(l[:10]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(l[10:] + line(t, sample(4))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3", "4"} {
		if got := next(t, ch); got.ID != want {
			t.Fatalf("got event %q, want %s", got.ID, want)
		}
	}

	// A second server's new file.
	w2 := openWriter(t, dir)
	e := sample(5)
	e.Session = "s2"
	if err := w2.Write(e); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ch); got.Session != "s2" {
		t.Fatalf("got an event of session %q, want s2 from the new file", got.Session)
	}
	select {
	case e := <-ch:
		t.Errorf("extra event %+v, want each line once", e)
	default:
	}
}

// Following from where ReadDir stopped delivers what was written since, once, whatever its
// time stamp: a session stamps an event before it writes it, so a time bound lost an event
// stamped before the history was read and written after.
func TestFollowFromWhereReadDirStopped(t *testing.T) {
	dir := t.TempDir()
	w := openWriter(t, dir)
	for i := range 3 {
		if err := w.Write(sample(i)); err != nil {
			t.Fatal(err)
		}
	}
	history, pos, err := ReadDir(dir)
	if err != nil || len(history) != 3 || history[2].ID != "2" {
		t.Fatalf("ReadDir: %d events, %v; want the 3 written", len(history), err)
	}
	late := sample(3)
	late.TS = sample(0).TS.Add(-time.Hour) // stamped before all of the history
	if err := w.Write(late); err != nil {
		t.Fatal(err)
	}
	ch := follow(t, dir, pos)
	if got := next(t, ch); got.ID != "3" {
		t.Errorf("first event %q, want 3, the one written after ReadDir", got.ID)
	}
	if err := w.Write(sample(4)); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ch); got.ID != "4" {
		t.Errorf("next event %q, want 4", got.ID)
	}
}

// A missing directory is no traffic yet, not an error.
func TestReadDirOfNoDirectory(t *testing.T) {
	events, pos, err := ReadDir(t.TempDir() + "/none")
	if err != nil || len(events) != 0 || len(pos) != 0 {
		t.Errorf("ReadDir of a missing directory: %v, %v, %v; want nothing and no error", events, pos, err)
	}
}

// Following a directory no server has made yet works, and sees the first server's file.
func TestFollowBeforeAnyServer(t *testing.T) {
	dir := t.TempDir() + "/state/mcpctl/traffic"
	ch := follow(t, dir, nil)
	// Follow makes the directory before it watches it; wait for that, not for a fixed time.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Follow did not make the directory within 10s")
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	w := openWriter(t, dir)
	if err := w.Write(sample(7)); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ch); got.ID != "7" {
		t.Errorf("got event %q, want 7", got.ID)
	}
}
