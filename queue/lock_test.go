package queue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestRunning(t *testing.T) {
	dir := t.TempDir()
	if running, err := Running(filepath.Join(dir, "missing")); running || err != nil {
		t.Errorf("a queue that does not exist: %v, %v; want not running", running, err)
	}
	if running, err := Running(dir); running || err != nil {
		t.Fatalf("a free lock: %v, %v; want not running", running, err)
	}
	if _, err := os.Stat(filepath.Join(dir, lockName)); runtime.GOOS == "linux" && err == nil {
		// Made by taking the lock: on Linux, /proc/locks answers without taking it, so that a
		// processor starting in that instant never finds it held.
		t.Error("asking made the lock file, so it took the lock")
	}
	lock, err := TryLock(dir) // the probe let the lock go again
	if err != nil {
		t.Fatalf("after the probe: %v", err)
	}
	if running, err := Running(dir); !running || err != nil {
		t.Errorf("a held lock: %v, %v; want running", running, err)
	}
	lock.Release()
	if running, err := Running(dir); running || err != nil {
		t.Errorf("a lock let go: %v, %v; want not running", running, err)
	}
}

func TestAwaitLock(t *testing.T) {
	dir := t.TempDir()
	holder, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		lock *Lock
		err  error
	}
	await := func(ctx context.Context) <-chan result {
		c := make(chan result, 1)
		go func() {
			lock, err := awaitLock(ctx, dir, 5*time.Millisecond)
			c <- result{lock, err}
		}()
		return c
	}

	t.Run("taken when the holder lets go", func(t *testing.T) {
		got := await(context.Background())
		// Let go only once the waiter is seen queued behind the holder in the kernel: the lock
		// it then gets proves that it waited, not that it came after the holder had gone.
		path := filepath.Join(dir, lockName)
		if _, ok := flockWaiting(path); ok {
			waitFor(t, "the waiter queued behind the holder", func() bool {
				waiting, _ := flockWaiting(path)
				return waiting
			})
		} else {
			t.Log("no /proc/locks here: that the waiter waited is not shown")
		}
		holder.Release()
		r := <-got
		if r.err != nil {
			t.Fatalf("awaitLock: %v", r.err)
		}
		if _, err := TryLock(dir); !errors.Is(err, ErrLocked) {
			t.Errorf("TryLock while the waiter holds the lock: %v, want ErrLocked", err)
		}
		holder = r.lock
	})

	t.Run("given up when ctx ends, and let go once it comes", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		got := await(ctx)
		cancel()
		if r := <-got; !errors.Is(r.err, context.Canceled) || r.lock != nil {
			t.Fatalf("awaitLock after cancel: %v, %v; want no lock, context.Canceled", r.lock, r.err)
		}
		holder.Release()
		// The abandoned wait takes the lock and lets it go again.
		var err error
		waitFor(t, "the lock free again", func() bool {
			holder, err = TryLock(dir)
			return err == nil
		})
	})

	t.Run("a replaced lock file is left for the new one", func(t *testing.T) {
		path := filepath.Join(dir, lockName)
		f, err := openLock(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if lock, err := awaitFile(context.Background(), f, path, 5*time.Millisecond); !errors.Is(err, ErrLocked) {
			t.Fatalf("awaitLock on a removed lock file: %v, %v; want ErrLocked", lock, err)
		}
		lock, err := TryLock(dir) // a new file, held by nobody
		if err != nil {
			t.Fatalf("TryLock on the new lock file: %v", err)
		}
		lock.Release()
		holder.Release()
	})
}
