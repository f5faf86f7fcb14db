package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Hook points where tests inject faults (kill the process, stall, count).
const (
	HookAfterClaim    = "after-claim"    // the op is in processing/, nothing applied
	HookAfterCommit   = "after-commit"   // applied and recorded, no response yet
	HookAfterResponse = "after-response" // response written; a success not yet moved, a failure already in failed/
	HookDone          = "done"           // op moved to processed/ or failed/, and answered
	HookReady         = "ready"          // start-up recovery and first scan finished (id "")
	// The claimed file ends mid-JSON and was modified moments ago: left in processing/ for
	// the next rescan to read again, its writer maybe still at work.
	HookIncomplete = "incomplete"
)

// Processor is the app's side of the queue for libraries mcpctl processes itself (DESIGN §4,
// processor steps 1–6): it claims each pending operation, applies it exactly once in one
// transaction, answers, and files it. Run one per library (see TryLock).
type Processor struct {
	Dir string  // the import queue
	DB  *sql.DB // the library, opened with OpenStore (BEGIN IMMEDIATE, one connection)
	Log *slog.Logger

	Rescan        time.Duration // full rescan period besides fsnotify (2 s)
	CleanupEvery  time.Duration // how often processed/ is pruned (24 h)
	KeepProcessed time.Duration // age after which processed/ entries go (7 days)
	Now           func() time.Time
	// Hook, when set, is called at the named points with the operation id; tests use it to
	// kill or stall the processor at exactly that step.
	Hook func(point, id string)
	// Status, when set, receives the processor's state: running once ready, failed with the
	// reason when it cannot start or cannot answer (a full disk), running again once it can.
	Status *ProcessorStatus

	// stuck is set (by the Run goroutine only) when an operation was left in processing/
	// because it could not be answered or filed, or a failure filed could not be answered: the
	// next rescan retries what is in processing/ and clears it, so a disk that fills and frees
	// again does not leave the processor failed until a restart.
	stuck bool
	// replaced is set (by the Run goroutine only) when the library file was replaced under
	// DB: Run stops with it, leaving the operation in hand in processing/ for the processor
	// that reopens the library.
	replaced error
	// answered holds, for this run, the operations answered but not yet filed, with their
	// answers (the Run goroutine only): a retry of the filing gives the same answer, and does
	// not answer again once the answer was taken.
	answered map[string]answeredOp
	// incomplete holds the claimed files that ended mid-JSON while recently modified, by
	// path, with when that was first seen (the Run goroutine only): each rescan reads them
	// again, until they are whole or incompleteGrace or incompleteLimit has passed.
	incomplete map[string]incompleteOp
	// unflushed is set (by the Run goroutine only) when the last checkpoint left frames in
	// the -wal file: the next rescan tries again.
	unflushed bool
	// dbPath and dbFile, when set, are the library's path and the file DB opened there;
	// each operation is applied only while that file is still the one at the path.
	dbPath string
	dbFile os.FileInfo

	overflows atomic.Int64 // fsnotify overflows, each answered by a rescan
	// watch opens the change feed of the queue directory; nil means fsnotify. Tests replace it
	// to lose events on purpose.
	watch func(dir string) (<-chan fsnotify.Event, <-chan error, func(), error)
	// openOp opens a claimed operation file; nil means os.OpenFile. Tests replace it to run out
	// of file descriptors on purpose.
	openOp func(name string, flag int, perm os.FileMode) (*os.File, error)

	mu     sync.Mutex
	cancel context.CancelFunc
	wg     sync.WaitGroup
	err    error
}

// answeredOp is an operation answered but not yet filed, and its answer.
type answeredOp struct {
	op   promptlib.Operation
	resp promptlib.Response
}

// NewProcessor returns a Processor with the contract's timings.
func NewProcessor(dir string, db *sql.DB, log *slog.Logger) *Processor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Processor{Dir: dir, DB: db, Log: log, Rescan: 2 * time.Second, CleanupEvery: 24 * time.Hour,
		KeepProcessed: 7 * 24 * time.Hour, Now: time.Now, answered: map[string]answeredOp{},
		incomplete: map[string]incompleteOp{}}
}

// Start runs the processor in a goroutine owned by p until ctx ends or Close is called.
func (p *Processor) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	p.mu.Lock()
	p.cancel = cancel
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		err := p.Run(ctx)
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
	}()
}

// Close stops a started processor after the operation in hand and waits for it. It returns the
// error Run ended with, if any.
func (p *Processor) Close() error {
	p.mu.Lock()
	cancel := p.cancel
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Run processes the queue until ctx ends: it finishes what a previous run left in processing/,
// drains the queue, then acts on fsnotify Create events, rescans every Rescan (and whenever
// fsnotify overflows, or cannot start at all) and prunes processed/ every CleanupEvery. An
// operation in hand is always finished before Run returns; it returns nil when ctx ends.
func (p *Processor) Run(ctx context.Context) error {
	if err := p.prepare(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		p.Status.failed(err)
		return err
	}
	// Running from here: an operation it cannot answer marks it failed (stalled), a later
	// success running again.
	p.Status.set(ProcRunning, nil)
	// A write failure of an earlier run (on a library file since replaced, say) is for this
	// run's first write to confirm; one that is certain (a read-only file) is known now.
	var why error
	if p.dbPath != "" {
		if why = unwritable(p.dbPath); why != nil {
			why = fmt.Errorf("queue: no write to the library can succeed: %w", why)
		}
	}
	p.Status.wrote(why)
	watch := p.watch
	if watch == nil {
		watch = watchDir
	}
	events, errs, stop, err := watch(p.Dir)
	if err != nil {
		p.Log.Warn("queue: cannot watch the queue; rescanning only", "err", err)
	} else {
		defer stop()
	}
	p.recover(ctx)
	p.scan(ctx)
	if p.replaced != nil {
		return p.replaced
	}
	p.cleanProcessed()
	p.hook(HookReady, "")

	rescan := time.NewTicker(p.Rescan)
	defer rescan.Stop()
	cleanup := time.NewTicker(p.CleanupEvery)
	defer cleanup.Stop()
	for p.replaced == nil {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil // watcher gone: the rescan ticker carries on alone
				continue
			}
			if ev.Has(fsnotify.Create) {
				p.processName(ctx, filepath.Base(ev.Name))
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				p.overflows.Add(1)
				p.Log.Debug("queue: fsnotify overflow; rescanning")
			} else {
				p.Log.Warn("queue: fsnotify error; rescanning", "err", err)
			}
			p.scan(ctx)
		case <-rescan.C:
			wasStuck := p.stuck
			if wasStuck {
				p.unstick(ctx)
			}
			p.scan(ctx)
			if wasStuck && !p.stuck && p.replaced == nil {
				// Running again even when no operation came to prove it (writers fail fast
				// meanwhile, so none may come); set after the scan, which may stall again.
				p.Status.set(ProcRunning, nil)
			}
			if p.unflushed {
				p.checkpoint(ctx)
			}
		case <-cleanup.C:
			p.cleanProcessed()
		}
	}
	return p.replaced
}

// prepare makes the subdirectories and the applied_ops table a processor needs.
func (p *Processor) prepare(ctx context.Context) error {
	if _, err := checkDir(OSFS{}, p.Dir); err != nil {
		return &Error{Op: "start processor", Path: p.Dir, Err: err}
	}
	if err := p.ensureDirs(); err != nil {
		return &Error{Op: "start processor", Path: p.Dir, Err: err}
	}
	if _, err := p.DB.ExecContext(ctx, promptlib.StandaloneSQL); err != nil {
		return &Error{Op: "start processor", Path: p.Dir, Err: err}
	}
	return nil
}

// ensureDirs makes processing/, processed/ and failed/ where they are missing and checks that
// each is a real directory: at start, and again whenever one is found broken while running.
func (p *Processor) ensureDirs() error {
	for _, d := range []string{processingDir, processedDir, failedDir} {
		path := join(p.Dir, d)
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cannot make %s: %w", path, errors.Unwrap(err))
		}
		if err := realDir(path); err != nil {
			return fmt.Errorf("%s %w", path, err)
		}
	}
	return nil
}

// realDir is nil when path is a directory and not a symlink to one: the processor never files
// operations into, nor deletes from, a place outside the queue.
func realDir(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return err
	case fi.Mode()&os.ModeSymlink != 0:
		return errors.New("is a symlink; remove it and the processor recreates the directory")
	case !fi.IsDir():
		return errors.New("is not a directory; remove it and the processor recreates it")
	}
	return nil
}

// unstick retries, on a rescan, what made the processor stall: the directories are made again
// where missing and what waits in processing/ is finished.
func (p *Processor) unstick(ctx context.Context) {
	if err := p.ensureDirs(); err != nil {
		p.Status.failed(fmt.Errorf("queue: the processor cannot use its directories: %w", err))
		return
	}
	p.stuck = false
	p.recover(ctx)
}

// scan processes every pending operation, oldest first, after reading again the files that
// were incomplete when claimed.
func (p *Processor) scan(ctx context.Context) {
	p.retryIncomplete(ctx)
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		p.Log.Error("queue: cannot list the queue", "err", err)
		return
	}
	type pending struct {
		name string
		at   time.Time
	}
	var list []pending
	for _, e := range entries {
		if !isPending(e.Name()) {
			continue
		}
		var at time.Time
		if fi, err := e.Info(); err == nil {
			at = fi.ModTime()
		}
		list = append(list, pending{e.Name(), at})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].at.Before(list[j].at) })
	for _, pe := range list {
		if ctx.Err() != nil || p.replaced != nil {
			return
		}
		p.processName(ctx, pe.name)
	}
}

// recover finishes, once, whatever a previous run left in processing/: applied_ops makes a
// replay of an already-applied operation answer from the record.
func (p *Processor) recover(ctx context.Context) {
	dir := join(p.Dir, processingDir)
	if err := realDir(dir); err != nil {
		p.stuck = true
		p.Status.failed(fmt.Errorf("queue: the processor cannot use processing/: %v", err))
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		p.Log.Error("queue: cannot list processing/", "err", err)
		return
	}
	for _, e := range entries {
		if ctx.Err() != nil || p.replaced != nil {
			return
		}
		id, ok := pendingID(e.Name())
		if !ok || !e.Type().IsRegular() {
			p.reject(join(dir, e.Name()), e.Name(), "not a regular {uuid}.json file")
			continue
		}
		p.Log.Info("queue: recovering", "operationId", id)
		p.handle(ctx, id, join(dir, e.Name()))
	}
}

func (p *Processor) hook(point, id string) {
	if p.Hook != nil {
		p.Hook(point, id)
	}
}

// cleanProcessed is step 6: processed/ entries older than KeepProcessed go; failed/ stays for
// the user to inspect.
func (p *Processor) cleanProcessed() int {
	n, future, err := CleanProcessed(p.Dir, p.Now(), p.KeepProcessed)
	if err != nil {
		p.Log.Warn("queue: cleanup of processed/ failed", "err", err)
	}
	if n > 0 {
		p.Log.Info("queue: cleaned processed/", "removed", n)
	}
	if future > 0 {
		p.Log.Warn("queue: processed/ holds files dated in the future (was the clock wrong?); they are kept until then", "files", future)
	}
	return n
}

// CleanProcessed deletes entries of dir/processed older than keep, judged by their modification
// time, and counts the future-dated ones it keeps. It refuses a processed/ that is a symlink,
// and deletes only inside the directory it checked, so that a link swapped in meanwhile cannot
// point it elsewhere.
func CleanProcessed(dir string, now time.Time, keep time.Duration) (removed, future int, err error) {
	path := join(dir, processedDir)
	if err := realDir(path); err != nil {
		return 0, 0, &Error{Op: "clean", Path: path, Err: err}
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return 0, 0, &Error{Op: "clean", Path: path, Err: err}
	}
	defer root.Close()
	if err := sameDir(root, path); err != nil {
		return 0, 0, &Error{Op: "clean", Path: path, Err: err}
	}
	f, err := root.Open(".")
	if err != nil {
		return 0, 0, &Error{Op: "clean", Path: path, Err: err}
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return 0, 0, &Error{Op: "clean", Path: path, Err: err}
	}
	for _, e := range entries {
		fi, err := e.Info()
		switch {
		case err != nil:
		case fi.ModTime().After(now):
			future++
		case now.Sub(fi.ModTime()) > keep && root.Remove(e.Name()) == nil:
			removed++
		}
	}
	return removed, future, nil
}

// sameDir checks that root is the directory realDir found at path, not one a symlink put there
// between the two looks.
func sameDir(root *os.Root, path string) error {
	opened, err := root.Stat(".")
	if err != nil {
		return err
	}
	now, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !os.SameFile(opened, now) {
		return errors.New("was replaced while being opened")
	}
	return nil
}

// Overflows is how many times fsnotify lost events and a rescan made up for them.
func (p *Processor) Overflows() int64 { return p.overflows.Load() }

// watchDir is the fsnotify change feed of dir.
func watchDir(dir string) (<-chan fsnotify.Event, <-chan error, func(), error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, nil, nil, err
	}
	return w.Events, w.Errors, func() { w.Close() }, nil
}
