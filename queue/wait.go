package queue

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpctl/mcpctl/promptlib"
)

// dirWatch wakes a waiter when something appears in the queue directory. It is only a nudge:
// the waiter also polls with Lstat, so a watcher that cannot start (inotify limits) or drops
// events costs latency, never correctness.
type dirWatch struct {
	w *fsnotify.Watcher // nil when fsnotify is unavailable
}

func newDirWatch(dir string, log *slog.Logger) *dirWatch {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Debug("queue: fsnotify unavailable, polling only", "err", err)
		return &dirWatch{}
	}
	if err := w.Add(dir); err != nil {
		log.Debug("queue: cannot watch the queue, polling only", "err", err)
		w.Close()
		return &dirWatch{}
	}
	return &dirWatch{w: w}
}

func (d *dirWatch) close() {
	if d.w != nil {
		d.w.Close()
	}
}

// events and errors return nil channels (which block forever) when there is no watcher.
func (d *dirWatch) events() chan fsnotify.Event {
	if d.w == nil {
		return nil
	}
	return d.w.Events
}

func (d *dirWatch) errors() chan error {
	if d.w == nil {
		return nil
	}
	return d.w.Errors
}

// waitResponse is one attempt of step 4: it waits up to timeout for .response-{id}.json and
// returns its content once it parses as a response. A file that is there but does not parse
// (an app still writing it, or a torn file) is read again on every nudge until the deadline; if
// it is still bad then, the outcome is unknown and waitResponse says so. nil, nil means nothing
// arrived in time (or ctx ended).
func (w *Writer) waitResponse(ctx context.Context, id string, timeout time.Duration, watch *dirWatch) (*promptlib.Response, error) {
	name := responseName(id)
	path := join(w.Dir, name)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	poll := time.NewTicker(w.Poll)
	defer poll.Stop()
	events, errs := watch.events(), watch.errors()
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
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Base(ev.Name) != name {
				continue
			}
		case _, ok := <-errs:
			// An overflow or watcher error loses nudges only; the poll carries on.
			if !ok {
				errs = nil
			}
			continue
		}
		if r := check(); r != nil {
			return r, nil
		}
	}
}

// processorDown ends a wait early: mcpctl's processor cannot answer, for reason.
type processorDown struct{ reason error }

func (e *processorDown) Error() string { return "queue: processor down: " + e.reason.Error() }
