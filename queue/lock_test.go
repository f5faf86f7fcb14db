package queue

import (
	"path/filepath"
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
	lock, err := TryLock(dir) // the probe let the lock go again
	if err != nil {
		t.Fatalf("after the probe: %v", err)
	}
	if running, err := Running(dir); !running || err != nil {
		t.Errorf("a held lock: %v, %v; want running", running, err)
	}
	lock.Release()
}
