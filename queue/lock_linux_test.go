package queue

import (
	"os"
	"strconv"
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
		pid, held, ok := lockListed(strings.NewReader(c.locks), uint64(dev), 4242)
		if held != c.held || ok != c.ok {
			t.Errorf("%s: held %v, ok %v; want %v, %v", c.name, held, ok, c.held, c.ok)
		}
		if held && pid != 7189 && pid != 7190 {
			t.Errorf("%s: holder %d, want the pid listed", c.name, pid)
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

// flockWaiting reports whether this process waits in the kernel for the flock on the file at
// path: /proc/locks lists a waiter as "->" after the number of the lock it waits behind. The
// file is matched by its inode alone (an overlay prints another device than stat gives) and by
// our pid. ok is false when /proc/locks cannot be read.
func flockWaiting(path string) (waiting, ok bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return false, false
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return false, false
	}
	pid, ino := strconv.Itoa(os.Getpid()), ":"+strconv.FormatUint(st.Ino, 10)
	for _, line := range strings.Split(string(b), "\n") {
		// "1: -> FLOCK  ADVISORY  WRITE 7189 fe:00:10224396 0 EOF"
		f := strings.Fields(line)
		if len(f) >= 7 && f[1] == "->" && f[2] == "FLOCK" && f[5] == pid && strings.HasSuffix(f[6], ino) {
			return true, true
		}
	}
	return false, true
}
