package queue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Lock is the processor election: an exclusive flock on import-queue/.processor.lock. The kernel
// drops it when the holder exits, however it exits, so a crashed processor never blocks the next.
type Lock struct{ f *os.File }

// TryLock takes the processor lock of the queue in dir without waiting. It returns ErrLocked
// when another process (or another Lock in this one) holds it.
func TryLock(dir string) (*Lock, error) {
	path := join(dir, lockName)
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, &Error{Op: "lock", Path: path, Err: err}
	}
	return &Lock{f: f}, nil
}

// awaitLock takes the processor lock of the queue in dir as soon as its holder lets go, or
// returns ctx's error. The wait is the kernel's, so a server waiting to process takes over the
// moment the processing one exits, not at its next try: a write waits for that meanwhile.
//
// A lock file replaced while waiting (the queue deleted and made again) is never let go by the
// holder of the new one: the path is checked every recheck, and ErrLocked returned when it
// names another file, for the caller to try the new one.
func awaitLock(ctx context.Context, dir string, recheck time.Duration) (*Lock, error) {
	path := join(dir, lockName)
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	return awaitFile(ctx, f, path, recheck)
}

// awaitFile is awaitLock on the lock file f opened at path. It closes f unless it returns it
// locked.
func awaitFile(ctx context.Context, f *os.File, path string, recheck time.Duration) (*Lock, error) {
	taken := make(chan error, 1)
	go func() {
		// flock restarts after a signal; only the holder letting go (or exiting) ends it.
		taken <- unix.Flock(int(f.Fd()), unix.LOCK_EX)
	}()
	tick := time.NewTicker(recheck)
	defer tick.Stop()
	var err error
	for {
		select {
		case err = <-taken:
			switch {
			case err != nil:
				f.Close()
				return nil, &Error{Op: "lock", Path: path, Err: err}
			case !namedBy(f, path):
				f.Close()
				return nil, ErrLocked
			}
			return &Lock{f: f}, nil
		case <-tick.C:
			if namedBy(f, path) {
				continue
			}
			err = ErrLocked
		case <-ctx.Done():
			err = ctx.Err()
		}
		// The kernel's wait cannot be called off: the lock, once it comes, is let go at once.
		// (One abandoned wait per file replaced or server stopped, so they do not pile up.)
		go func() {
			<-taken
			f.Close()
		}()
		return nil, err
	}
}

// namedBy reports whether path still names the open file f.
func namedBy(f *os.File, path string) bool {
	open, err := f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Lstat(path)
	return err == nil && os.SameFile(open, named)
}

func openLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, &Error{Op: "lock", Path: path, Err: err}
	}
	return f, nil
}

// Release gives the lock up.
func (l *Lock) Release() error { return l.f.Close() }

// Running reports whether a processor holds the lock of the queue in dir now: what 'mcpctl
// queue status' and the console show. A queue that does not exist yet has none (a processor
// makes the queue before it locks it).
//
// On Linux, /proc/locks tells (flockHeld). Elsewhere flock has no test that does not take the
// lock, so a free lock is taken for an instant: a processor starting in that instant finds it
// held (a server's election tries again; 'queue process' says so and exits).
func Running(dir string) (bool, error) {
	if held, ok := flockHeld(join(dir, lockName)); ok {
		return held, nil
	}
	lock, err := TryLock(dir)
	switch {
	case errors.Is(err, ErrLocked):
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return false, lock.Release()
}

// HolderStopped is why the process holding the lock of the queue in dir cannot process it: it
// is stopped (suspended with Ctrl-Z or SIGSTOP), so it keeps the lock and
// answers nothing: a write told so at once, with the fix, does not wait out its attempts. nil
// when it is not, or where that cannot be told (only Linux can, from /proc); else a
// *StoppedHolderError.
func HolderStopped(dir string) error {
	pid, held, ok := flockHolder(join(dir, lockName))
	if !ok || !held || pid <= 0 || !stopped(pid) {
		return nil
	}
	return &StoppedHolderError{PID: pid}
}

// StoppedHolderError is a queue processor in another process that is stopped: it holds the
// queue until it runs again.
type StoppedHolderError struct{ PID int }

func (e *StoppedHolderError) Error() string {
	return fmt.Sprintf("the mcpctl process that processes it (pid %d) is stopped, suspended by Ctrl-Z or SIGSTOP, and holds the queue until it runs again: "+
		"resume it (fg in its terminal, or kill -CONT %d), or end it, and writes go through again", e.PID, e.PID)
}
