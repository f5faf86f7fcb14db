package queue

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestLockListed(t *testing.T) {
	dev := unix.Mkdev(0xfe, 0x01) // printed "fe:01"
	for _, c := range []struct {
		name, locks string
		held, ok    bool
	}{
		{"held", "1: FLOCK  ADVISORY  WRITE 7189 fe:01:4242 0 EOF\n", true, true},
		{"free", "1: FLOCK  ADVISORY  WRITE 7189 fe:01:99 0 EOF\n", false, true},
		{"none at all", "", false, true},
		// tmpfs numbers every mount's files from 2: same inode, another device.
		{"same inode elsewhere", "1: FLOCK  ADVISORY  WRITE 7189 00:28:4242 0 EOF\n", false, false},
		{"same inode elsewhere, then ours", "1: FLOCK  ADVISORY  WRITE 7189 00:28:4242 0 EOF\n2: FLOCK  ADVISORY  WRITE 7190 fe:01:4242 0 EOF\n", true, true},
		{"a longer inode ending in ours", "1: FLOCK  ADVISORY  WRITE 7189 fe:01:14242 0 EOF\n", false, true},
		{"a waiter holds nothing", "1: -> FLOCK  ADVISORY  WRITE 7189 fe:01:4242 0 EOF\n", false, true},
		{"POSIX locks are not ours", "1: POSIX  ADVISORY  WRITE 7189 fe:01:4242 0 EOF\n", false, true},
	} {
		held, ok := lockListed(strings.NewReader(c.locks), uint64(dev), 4242)
		if held != c.held || ok != c.ok {
			t.Errorf("%s: held %v, ok %v; want %v, %v", c.name, held, ok, c.held, c.ok)
		}
	}
}

// While the lock is held, /proc/locks never says it is free: it says held, or cannot tell.
func TestFlockHeldSeesOurLock(t *testing.T) {
	dir := t.TempDir()
	lock, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	switch held, ok := flockHeld(join(dir, lockName)); {
	case !ok:
		t.Log("/proc/locks cannot tell here (the lock is listed under another device): Running probes")
	case !held:
		t.Error("/proc/locks read as free while this process holds the lock")
	}
}
