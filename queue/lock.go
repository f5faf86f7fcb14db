package queue

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Lock is the processor election: an exclusive flock on import-queue/.processor.lock. The kernel
// drops it when the holder exits, however it exits, so a crashed processor never blocks the next.
type Lock struct{ f *os.File }

// TryLock takes the processor lock of the queue in dir without waiting. It returns ErrLocked
// when another process (or another Lock in this one) holds it.
func TryLock(dir string) (*Lock, error) {
	path := join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, &Error{Op: "lock", Path: path, Err: err}
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
