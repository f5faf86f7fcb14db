package queue

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// flockHeld tells from /proc/locks, which lists every flock with its file's inode, whether the
// lock file at path is held, without taking it as the probe does: ok is false where it cannot
// tell, and Running probes then.
//
// It compares inodes alone: the device is printed as the filesystem's own, which an overlay's
// stat does not give, and another filesystem's flocked file of the same inode number is a
// chance too remote to cost the overlays.
func flockHeld(path string) (held, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		// No lock file: no processor has ever locked this queue (it makes the file to lock it).
		return false, errors.Is(err, fs.ErrNotExist)
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false, false
	}
	defer f.Close()
	ino := ":" + strconv.FormatUint(st.Ino, 10)
	s := bufio.NewScanner(f)
	for s.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 7189 fe:00:10224396 0 EOF"; a waiter's line has "->"
		// after the number, and holds nothing.
		fields := strings.Fields(s.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		if strings.HasSuffix(fields[5], ino) && strings.Count(fields[5], ":") == 2 {
			return true, true
		}
	}
	return false, s.Err() == nil
}
