package queue

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// RunElected runs a processor on the library (queue dir, database db) whenever this process
// holds the library's processor lock, until ctx ends. Several servers on one library call it;
// exactly one processes at a time, and when that one exits another takes over within retry.
// Processors are tuned by tune (nil for the defaults).
func RunElected(ctx context.Context, dir, db string, log *slog.Logger, retry time.Duration, tune func(*Processor)) {
	for {
		lock, err := TryLock(dir)
		switch {
		case err == nil:
			runLocked(ctx, lock, dir, db, log, tune)
			if ctx.Err() != nil {
				return
			}
		case errors.Is(err, ErrLocked):
			log.Debug("queue: another process is processing this library")
		default:
			log.Warn("queue: cannot take the processor lock", "err", err)
		}
		if !pause(ctx, retry) {
			return
		}
	}
}

func runLocked(ctx context.Context, lock *Lock, dir, db string, log *slog.Logger, tune func(*Processor)) {
	defer lock.Release()
	store, err := OpenStore(db)
	if err != nil {
		log.Error("queue: cannot open the library for processing", "err", err)
		return
	}
	defer store.Close()
	p := NewProcessor(dir, store, log)
	if tune != nil {
		tune(p)
	}
	log.Info("queue: processing this library's queue", "queue", dir)
	if err := p.Run(ctx); err != nil {
		log.Error("queue: processor stopped", "err", err)
	}
}
