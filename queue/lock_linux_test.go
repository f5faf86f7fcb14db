package queue

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
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

// A processor in another process that is stopped (Ctrl-Z, SIGSTOP) holds the queue's lock and
// answers nothing: a write is told so at once, with its pid and how to resume it, not after
// waiting out its attempts (17 s) to be told to try again, and health_check (Alive) says why.
func TestStoppedLockHolderIsNamed(t *testing.T) {
	l := newLib(t, 1)
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), envChildLock+"="+l.Queue)
	holder.Stderr = os.Stderr
	// Killed with the test binary, however it ends: a child left stopped would hold the lock
	// and its directory for good.
	holder.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	pid := holder.Process.Pid
	t.Cleanup(func() {
		stdin.Close()
		holder.Process.Kill() // stopped or not
		holder.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}

	var status ProcessorStatus
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunElected(ctx, ElectConfig{Dir: l.Queue, DB: filepath.Join(l.Dir, DBName), Retry: time.Hour, Status: &status})
	}()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the election to wait for the holder", func() bool {
		state, _ := status.State()
		return state == ProcWaiting
	})
	if err := status.Alive(); err != nil {
		t.Fatalf("a running holder: %v, want alive", err)
	}

	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Alive keeps "running" for up to a second (aliveFor): it is asked until it tells.
	waitFor(t, "the stopped holder to be seen", func() bool { return status.Alive() != nil })
	if err := status.Alive(); !strings.Contains(err.Error(), fmt.Sprintf("kill -CONT %d", pid)) {
		t.Errorf("a stopped holder: %v, want it named, with how to resume it", err)
	}
	w := patientWriter(t, l.Queue).WithProcessor(status.Alive)
	_, err = w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("while stopped"))
	var pe *promptlib.Error
	if !errors.As(err, &pe) || pe.Code != promptlib.CodeProcessorStopped || pe.Outcome != promptlib.NotApplied ||
		!strings.Contains(pe.Message, "is stopped") {
		t.Errorf("a write while the holder is stopped: %v, want PROCESSOR_STOPPED, not applied, saying it is stopped", err)
	}
	// So is a write to a Prompteka library whose 'queue process --force' is the one stopped.
	_, err = patientWriter(t, l.Queue).WithForcedProcessor(filepath.Join(l.Dir, DBName)).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("while stopped"))
	if !errors.As(err, &pe) || pe.Code != promptlib.CodeProcessorStopped || !strings.Contains(pe.Message, "is stopped") ||
		!strings.Contains(pe.Hint(), "resumed") {
		t.Errorf("a forced processor's write while it is stopped: %v (hint %q), want PROCESSOR_STOPPED saying it is stopped, and to have it resumed", err, pe.Hint())
	}

	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the holder to run again", func() bool { return !stopped(pid) })
	if err := status.Alive(); err != nil {
		t.Errorf("a resumed holder: %v, want alive", err)
	}
}
