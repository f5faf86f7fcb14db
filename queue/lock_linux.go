package queue

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// flockHeld tells from /proc/locks, which lists every flock with its file's device and inode,
// whether the lock file at path is held, without taking it as the probe does: ok is false where
// it cannot tell, and Running probes then.
//
// A lock on our inode number but another device is ambiguous: another filesystem's file (tmpfs
// numbers its files from 2) or ours on an overlay, whose stat gives the overlay's device while
// /proc/locks prints the layer's. The probe decides that case.
//
// /proc/locks shows only locks whose owner this PID namespace can see: a processor in another
// container sharing the directory reads as not running.
func flockHeld(path string) (held, ok bool) {
	_, held, ok = flockHolder(path)
	return held, ok
}

// flockHolder is flockHeld, with the pid of the holder when held.
func flockHolder(path string) (pid int, held, ok bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		// No lock file: no processor has ever locked this queue (it makes the file to lock it).
		return 0, false, errors.Is(err, fs.ErrNotExist)
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	return lockListed(f, uint64(st.Dev), st.Ino)
}

// stopped reports whether process pid is stopped: suspended (Ctrl-Z, SIGSTOP). /proc/PID/stat
// gives its state after its name, which may itself hold ")". A tracing stop ('t') is not
// counted: a processor run under strace passes through it at every system call.
func stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'T'
}

// lockListed reads a /proc/locks listing for a flock on the file dev, ino, and its holder's pid.
func lockListed(r io.Reader, dev, ino uint64) (pid int, held, ok bool) {
	// The kernel prints "%02x:%02x:%lu": major and minor in hex, the inode in decimal.
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), ino)
	inoSuffix := ":" + strconv.FormatUint(ino, 10)
	ambiguous := false
	s := bufio.NewScanner(r)
	for s.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 7189 fe:00:10224396 0 EOF"; a waiter's line has "->"
		// after the number, and holds nothing.
		fields := strings.Fields(s.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		switch id := fields[5]; {
		case id == want:
			pid, _ := strconv.Atoi(fields[4]) // as this PID namespace sees it
			return pid, true, true
		case strings.HasSuffix(id, inoSuffix) && strings.Count(id, ":") == 2:
			ambiguous = true
		}
	}
	return 0, false, s.Err() == nil && !ambiguous
}
