package queue

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
