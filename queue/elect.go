package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// ElectConfig says how RunElected runs a library's processor.
type ElectConfig struct {
	Dir string // the import queue
	DB  string // the library database
	Log *slog.Logger
	// Retry is how often a processor that failed is tried again, and how often a process
	// waiting for the lock checks that the lock file is still the one it waits on.
	Retry time.Duration
	// BusyTimeout is the processor's SQLite busy timeout (DefaultBusyTimeout when zero): how
	// long it waits for another writer's lock before answering DATABASE_LOCKED.
	BusyTimeout time.Duration
	// Tune adjusts each Processor before it runs (nil for the defaults).
	Tune func(*Processor)
	// Status, when set, receives the processor's state for health_check and for writers
	// (Writer.WithProcessor(status.Alive)): waiting while another process holds the lock,
	// running, failed with the reason, stopped once RunElected returns.
	Status *ProcessorStatus
}

// RunElected runs the library's processor whenever this process holds the library's processor
// lock, until ctx ends, reporting its state to cfg.Status. Several servers on one library call
// it; exactly one processes at a time, and when that one exits, however it exits, another takes
// over at once. A processor that cannot run (the lock is a symlink, processed/ is a symlink, the
// database cannot be opened) is retried every cfg.Retry, its status failed with the reason
// meanwhile.
func RunElected(ctx context.Context, cfg ElectConfig) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	defer cfg.Status.set(ProcStopped, nil)
	for {
		lock, err := TryLock(cfg.Dir)
		if errors.Is(err, ErrLocked) {
			// Asked on every poll of a waiting write: /proc read at most once a second while the
			// holder runs (aliveFor keeps no answer that it is stopped).
			cfg.Status.waiting(aliveFor(time.Second, func() error { return HolderStopped(cfg.Dir) }))
			log.Debug("queue: another process is processing this library")
			if lock, err = awaitLock(ctx, cfg.Dir, cfg.Retry); ctx.Err() != nil {
				if lock != nil {
					lock.Release()
				}
				return
			}
		}
		switch {
		case err == nil:
			runLocked(ctx, lock, cfg, log)
			if ctx.Err() != nil {
				return
			}
		case errors.Is(err, ErrLocked):
			continue // the lock file was replaced while waiting: the new one is tried at once
		default:
			cfg.Status.failed(fmt.Errorf("queue: the processor cannot take its lock: %w", err))
			log.Warn("queue: cannot take the processor lock", "err", err)
		}
		if !pause(ctx, cfg.Retry) {
			return
		}
	}
}

func runLocked(ctx context.Context, lock *Lock, cfg ElectConfig, log *slog.Logger) {
	defer lock.Release()
	for {
		err := runStore(ctx, cfg, log)
		if !errors.Is(err, errLibraryReplaced) || ctx.Err() != nil {
			return
		}
		// Still holding the lock: reopen at once, so that the operation left in processing/ is
		// applied to the file now at the path while its writer still waits.
		log.Warn("queue: the library file was replaced; reopening it", "db", cfg.DB)
	}
}

// runStore opens the library and runs a processor on it until ctx ends or the processor stops:
// errLibraryReplaced when another file took the library's place.
func runStore(ctx context.Context, cfg ElectConfig, log *slog.Logger) error {
	// The identity is taken before the open: a file swapped in between is then caught at the
	// first operation, never the other way round.
	opened, err := os.Stat(cfg.DB)
	if err != nil {
		// Never opened when missing: SQLite would create an empty file in the library's place.
		err = fmt.Errorf("queue: the processor cannot open the library: %w", err)
		cfg.Status.failed(err)
		log.Error("queue: cannot open the library for processing", "err", err)
		return err
	}
	store, err := OpenStoreTimeout(cfg.DB, cfg.BusyTimeout)
	if err != nil {
		log.Error("queue: cannot open the library for processing", "err", err)
		// SQLite's reason ("attempt to write a readonly database") names neither the file nor
		// the fix.
		if why := unwritable(cfg.DB); why != nil {
			err = why
		}
		cfg.Status.failed(fmt.Errorf("queue: the processor cannot open the library: %w", err))
		return err
	}
	defer store.Close()
	p := NewProcessor(cfg.Dir, store, log)
	p.Status = cfg.Status
	p.dbPath, p.dbFile = cfg.DB, opened
	if cfg.Tune != nil {
		cfg.Tune(p)
	}
	log.Info("queue: processing this library's queue", "queue", cfg.Dir)
	err = p.Run(ctx)
	if errors.Is(err, errLibraryReplaced) {
		if ferr := flushReplaced(ctx, store, cfg); ferr != nil {
			return ferr
		}
		return err
	}
	if err != nil {
		log.Error("queue: processor stopped", "err", err)
	}
	return err
}

// flushReplaced empties the -wal file into the replaced library before its connection closes:
// SQLite does not checkpoint a file that was moved when its connection closes, and the file
// now at the path would take the old pages from the -wal file it shares by name. It waits
// while a reader of the old file is in the way (the processor failed meanwhile, with the
// reason), as reopening before would corrupt the new file.
func flushReplaced(ctx context.Context, store *sql.DB, cfg ElectConfig) error {
	for {
		var busy, frames, copied int
		err := store.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &copied)
		if err == nil && busy == 0 {
			return nil
		}
		cfg.Status.failed(errors.New("queue: the library file was replaced while another connection still reads the old one; the processor reopens the new file once it lets go"))
		if !pause(ctx, cfg.Retry) {
			return ctx.Err()
		}
	}
}
