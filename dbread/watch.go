package dbread

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// debounce is the least time between two checks nudged by file events: a burst of app
	// writes costs one check.
	debounce = 250 * time.Millisecond
	// recheckEvery catches changes whose events were missed (overflow, network file systems).
	recheckEvery = time.Second
)

// subscriber is one Changes channel.
type subscriber struct{ ch chan struct{} }

// Changes returns a channel that receives a value (coalesced) after each detected change of the
// library, debounced ~250 ms, and a function that unsubscribes. Caches key off Version. The
// channel has a buffer of one: a slow reader sees one pending signal, not a backlog. After
// Close it receives nothing more (it is not closed).
func (db *DB) Changes() (<-chan struct{}, func()) {
	s := &subscriber{ch: make(chan struct{}, 1)}
	db.subsMu.Lock()
	defer db.subsMu.Unlock()
	if db.subs == nil { // closed: a channel that never fires
		return s.ch, func() {}
	}
	db.subs[s] = struct{}{}
	return s.ch, func() {
		db.subsMu.Lock()
		defer db.subsMu.Unlock()
		delete(db.subs, s)
	}
}

// Version increases with every detected change of the library.
func (db *DB) Version() uint64 { return db.version.Load() }

// Poll looks for a change not reported yet (the watcher reports a write after a debounce) and
// returns Version after it; a change it finds signals Changes at once. A reader that must see
// every write made before it asked (the server's view) polls, then waits until it has read up
// to that version.
func (db *DB) Poll(ctx context.Context) (uint64, error) {
	err := db.poll(ctx)
	return db.Version(), err
}

// changed records one change: the version moves, subscribers are signalled and the sidecar is
// asked to catch up.
func (db *DB) changed() {
	db.version.Add(1)
	db.subsMu.Lock()
	for s := range db.subs { // nil after Close: nothing to signal
		select {
		case s.ch <- struct{}{}:
		default: // a signal is already pending; coalesce
		}
	}
	db.subsMu.Unlock()
	db.side.kick()
}

// poll checks whether the library changed since the last poll: first the file's identity (a
// file renamed over the database means reopening every connection), then PRAGMA data_version
// on the pinned connection, which moves whenever another connection commits. It costs a stat
// and one pragma, so Search and ListPrompts call it to see the app's last write at once.
func (db *DB) poll(ctx context.Context) error {
	db.pollMu.Lock()
	defer db.pollMu.Unlock()
	db.mu.RLock()
	closed, lib := db.closed, db.lib
	db.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	if ident, err := statIdent(db.path); err == nil && ident != lib.ident && ident != db.badIdent {
		if err := db.reopen(ctx); err != nil {
			db.badIdent = ident
			// Reads fail (with this error) until a readable file takes its place: a new identity
			// is tried again.
			db.log.Error("library file was replaced by one that cannot be opened", "err", translate(err))
			return err
		}
		db.badIdent = fileIdent{}
		db.log.Info("library file was replaced; reopened")
		db.changed()
		return nil
	}
	var v int64
	if err := lib.pin.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return err
	}
	if v == lib.dataVersion {
		return nil
	}
	lib.dataVersion = v // pollMu guards it
	db.recheckSchema(ctx, lib)
	db.changed()
	return nil
}

// reopen replaces every connection with ones on the file now at the path. Called with pollMu
// held. A query running on the old pool finishes first (it holds mu.RLock).
func (db *DB) reopen(ctx context.Context) error {
	lib, err := db.openLibrary(ctx)
	if err != nil {
		return err
	}
	db.recheckSchema(ctx, lib)
	db.mu.Lock()
	old := db.lib
	db.lib = lib
	db.mu.Unlock()
	if err := old.close(); err != nil {
		db.log.Warn("closing the replaced library", "err", translate(err))
	}
	return nil
}

// recheckSchema logs when the schema becomes incompatible (or compatible again). Reads do not
// depend on it: every query names its columns, so a missing one fails that query with
// ErrSchema and never yields misaligned rows.
func (db *DB) recheckSchema(ctx context.Context, lib *library) {
	err := checkSchema(ctx, lib.pin)
	switch {
	case err != nil && !errors.Is(err, ErrSchema):
		return // a lock or I/O error says nothing about the schema
	case err != nil && db.schemaGood:
		db.log.Error("library schema changed and is no longer compatible", "err", err)
	case err == nil && !db.schemaGood:
		db.log.Info("library schema is compatible again")
	}
	db.schemaGood = err == nil
}

// newWatcher watches the database's directory, or returns nil (and logs) if it cannot: the
// periodic check still sees changes. Open calls it before returning, so no change made after
// Open is missed.
func (db *DB) newWatcher() *fsnotify.Watcher {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		db.log.Warn("no file events; checking for changes periodically", "err", err)
		return nil
	}
	if err := w.Add(filepath.Dir(db.path)); err != nil {
		w.Close()
		db.log.Warn("no file events; checking for changes periodically", "err", err)
		return nil
	}
	return w
}

// watch runs until ctx is cancelled: file events in the database's directory (the database and
// its -wal, filtered by name) nudge a poll at most every debounce, and a periodic poll catches
// what events miss. The directory is watched, not the file, so that a file renamed over the
// database is seen.
func (db *DB) watch(ctx context.Context, w *fsnotify.Watcher) {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	base := filepath.Base(db.path)
	names := map[string]bool{base: true, base + "-wal": true, base + "-journal": true}

	ticker := time.NewTicker(recheckEvery)
	defer ticker.Stop()
	timer := time.NewTimer(0)
	<-timer.C
	pending := false
	last := time.Now()
	check := func() {
		pending = false
		last = time.Now()
		if err := db.poll(ctx); err != nil && ctx.Err() == nil {
			db.log.Debug("change check failed", "err", translate(err))
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return // closed only by our own defer
			}
			if !names[filepath.Base(ev.Name)] || pending {
				continue
			}
			pending = true
			timer.Reset(max(0, debounce-time.Since(last)))
		case err, ok := <-errs:
			if !ok {
				return
			}
			db.log.Debug("file events", "err", err)
			if !pending { // events may have been dropped (overflow): look now
				pending = true
				timer.Reset(0)
			}
		case <-timer.C:
			check()
		case <-ticker.C:
			if !pending && time.Since(last) >= recheckEvery/2 {
				check()
			}
		}
	}
}
