package queue

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpctl/mcpctl/promptlib"
)

// dirWatch is one watch of the queue directory, shared by a Writer's waiting writes: each
// subscribes to its response file's name and is nudged when an event names it. It is only a
// nudge: a waiter also polls with Lstat, so a watcher that cannot start (inotify limits) or
// drops events costs latency, never correctness. One is shared because inotify instances are a
// per-user limit (128 by default) that a watcher per write used up, 40 for 40 concurrent
// writes; and it is closed when the last waiter leaves, so an idle server holds none. The zero
// value is ready to use.
type dirWatch struct {
	mu      sync.Mutex
	w       *fsnotify.Watcher // nil while nobody waits, or when fsnotify is unavailable
	done    chan struct{}     // closed when the goroutine dispatching w's events has ended
	waiters map[*waiter]struct{}

	dispatchEnd func() // a test's: called as dispatch ends, before done is closed
}

// waiter is one subscription: the file name it waits for and its coalescing nudge.
type waiter struct {
	name  string
	nudge chan struct{}
}

// subscribe nudges the returned channel whenever an event in dir names the file name, until
// unsubscribe is called. Subscribe before the file can appear: the watch is in place when it
// returns.
func (d *dirWatch) subscribe(dir, name string, log *slog.Logger) (nudge <-chan struct{}, unsubscribe func()) {
	wt := &waiter{name: name, nudge: make(chan struct{}, 1)}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w == nil {
		d.w = startWatch(dir, log)
		if d.w != nil {
			d.done = make(chan struct{})
			go d.dispatch(d.w, d.done)
		}
	}
	if d.waiters == nil {
		d.waiters = map[*waiter]struct{}{}
	}
	d.waiters[wt] = struct{}{}
	return wt.nudge, func() {
		d.mu.Lock()
		delete(d.waiters, wt)
		var idle *fsnotify.Watcher
		var ended chan struct{}
		if len(d.waiters) == 0 {
			idle, d.w = d.w, nil
			ended, d.done = d.done, nil
		}
		d.mu.Unlock()
		if idle != nil {
			// Outside mu: dispatch may be waiting for it to deliver an event. The last waiter
			// owns the goroutine: it returns once the goroutine has, so that none outlives the
			// writes that needed it.
			idle.Close()
			<-ended
		}
	}
}

// startWatch watches dir, or returns nil (polling only) when it cannot.
func startWatch(dir string, log *slog.Logger) *fsnotify.Watcher {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Debug("queue: fsnotify unavailable, polling only", "err", err)
		return nil
	}
	if err := w.Add(dir); err != nil {
		log.Debug("queue: cannot watch the queue, polling only", "err", err)
		w.Close()
		return nil
	}
	return w
}

// dispatch nudges the waiters for the files w's events name, until w is closed; then it closes
// done. Errors (an overflow) lose nudges only: the waiters' polls carry on. They are read all
// the same, or fsnotify would stop delivering events until they were.
func (d *dirWatch) dispatch(w *fsnotify.Watcher, done chan<- struct{}) {
	defer close(done)
	if d.dispatchEnd != nil {
		defer d.dispatchEnd()
	}
	events, errs := w.Events, w.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			name := filepath.Base(ev.Name)
			d.mu.Lock()
			for wt := range d.waiters {
				if wt.name == name {
					select {
					case wt.nudge <- struct{}{}:
					default: // a nudge is pending
					}
				}
			}
			d.mu.Unlock()
		case _, ok := <-errs:
			if !ok {
				errs = nil
			}
		}
	}
}

// waitResponse is one attempt of step 4: it waits up to timeout for .response-{id}.json and
// returns its content once it parses as a response. A file that is there but does not parse
// (an app still writing it, or a torn file) is read again on every nudge until the deadline; if
// it is still bad then, the outcome is unknown and waitResponse says so. nil, nil means nothing
// arrived in time (or ctx ended).
func (w *Writer) waitResponse(ctx context.Context, id string, timeout time.Duration, nudge <-chan struct{}) (*promptlib.Response, error) {
	path := join(w.Dir, responseName(id))
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	poll := time.NewTicker(w.Poll)
	defer poll.Stop()
	var lastBad error
	check := func() *promptlib.Response {
		if _, err := w.FS.Lstat(path); err != nil {
			return nil
		}
		r, err := w.readResponse(path)
		if err != nil {
			lastBad = err
			return nil
		}
		return &r
	}
	if r := check(); r != nil {
		return r, nil
	}
	for {
		if reason := w.processorDown(); reason != nil {
			// No answer can come: stop waiting (one last look, in case it answered first).
			if r := check(); r != nil {
				return r, nil
			}
			return nil, &processorDown{reason}
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-deadline.C:
			if r := check(); r != nil {
				return r, nil
			}
			if lastBad != nil {
				return nil, opError(id, promptlib.Unknown, &promptlib.Error{Code: promptlib.CodeResponseTimeout,
					Message: w.answerer() + "'s response file is unreadable: " + lastBad.Error(), Err: lastBad})
			}
			return nil, nil
		case <-poll.C:
		case <-nudge:
		}
		if r := check(); r != nil {
			return r, nil
		}
	}
}

// processorDown ends a wait early: mcpctl's processor cannot answer, for reason.
type processorDown struct{ reason error }

func (e *processorDown) Error() string { return "queue: processor down: " + e.reason.Error() }
