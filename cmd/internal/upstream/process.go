package upstream

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// process is one run of a server's command: a child in its own process group, its stdin and
// stdout as the MCP channel, its stderr read line by line into the log.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout

	exited  chan struct{} // closed once the child has exited and been reaped
	waitErr error         // why it exited; read after exited is closed

	stderrDone chan struct{} // closed when the stderr reader has returned
	stderrR    *os.File

	log      *slog.Logger
	failed   chan struct{} // closed once mcpctl gave up on the connection (fail)
	failOnce sync.Once
	failWhy  *connFailure // set before failed is closed

	// heard is when the child last wrote to its stdout (UnixNano): a child that does not read
	// its stdin while it answers or reports progress is busy, not wedged (stdinWriter).
	heard atomic.Int64

	mu         sync.Mutex
	lastStderr string
	lastStray  string // the last line on stdout that was no JSON-RPC message (stdoutReader)
}

// maxStray is how much of a stray stdout line is kept: enough to recognise it.
const maxStray = 120

// startProcess starts cmd with pipes of our own for all three streams. os/exec's own pipes
// would make Wait wait for a grandchild that holds stderr open, and Wait would close stdout
// under the MCP reader; with plain files Wait returns when the child exits and we close our ends
// when we are done with them.
func startProcess(cmd *exec.Cmd, log *slog.Logger) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	closeAll(inR, outW, errW) // the child's ends; it holds its own copies
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderrR: errR, log: log,
		exited: make(chan struct{}), stderrDone: make(chan struct{}), failed: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go p.readStderr()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// fail gives up on the connection for reason: the run loop, waiting on failed, stops the child
// and restarts it, and requests under way get reason and hint (Server.callError). Only the first
// failure counts; later ones are its consequences.
func (p *process) fail(reason, hint string) {
	p.failOnce.Do(func() {
		p.failWhy = &connFailure{reason: reason, hint: hint}
		p.log.Error("upstream connection failed; stopping the server", "reason", reason)
		close(p.failed)
	})
}

// ended reports whether the child has exited or mcpctl has given up on it: its connection is
// closed or about to be, and the run loop is about to record the failure.
func (p *process) ended() bool {
	select {
	case <-p.exited:
		return true
	case <-p.failed:
		return true
	default:
		return false
	}
}

// failure is why mcpctl gave up on the connection, or nil while it has not.
func (p *process) failure() *connFailure {
	select {
	case <-p.failed:
		return p.failWhy
	default:
		return nil
	}
}

func (p *process) strayed(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastStray = strings.TrimSpace(line)
}

// LastStray is the last line the child wrote to stdout that was no JSON-RPC message, or "".
func (p *process) LastStray() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastStray
}

// LastStderr is the last non-empty line the child wrote to stderr.
func (p *process) LastStderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastStderr
}

// settleStderr waits a moment for the stderr reader to reach the end after the child has
// exited, so that the last line it wrote before dying is the one reported. A child still
// running, or a grandchild holding stderr, costs nothing or at most the moment.
func (p *process) settleStderr() {
	select {
	case <-p.exited:
	default:
		return
	}
	t := time.NewTimer(200 * time.Millisecond)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
	}
}

// pid is the child's process id, which is also its process group's id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exitReason says how the child ended; call after exited is closed.
func (p *process) exitReason() string {
	if p.waitErr == nil {
		return "exited with status 0"
	}
	return "exited: " + p.waitErr.Error()
}

// stop ends the child and everything in its process group: it closes the child's stdin (an MCP
// server's cue to exit), sends SIGTERM to the group, and after grace SIGKILL. It returns once
// the child has been reaped and our ends of its pipes are closed. Safe to call after the child
// has exited by itself.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	killGroup(p.pid(), syscall.SIGTERM)
	t := time.NewTimer(grace)
	select {
	case <-p.exited:
	case <-t.C:
		killGroup(p.pid(), syscall.SIGKILL)
		<-p.exited
	}
	t.Stop()
	// The leader is gone; sweep anything it left in its group that ignored SIGTERM. The group
	// id cannot be reused while a member lives, so this reaches only our own.
	killGroup(p.pid(), syscall.SIGKILL)
	p.stdout.Close()
	// A grandchild that left the group may still hold stderr: stop reading rather than wait.
	select {
	case <-p.stderrDone:
	case <-time.After(time.Second):
		p.stderrR.Close()
		<-p.stderrDone
	}
	p.stderrR.Close()
}

// killGroup signals every process in the group pgid; an empty group is not an error.
func killGroup(pgid int, sig syscall.Signal) {
	if pgid <= 0 {
		return // never signal our own group or every process
	}
	_ = syscall.Kill(-pgid, sig)
}

// commandError says what to fix when a command cannot be started. permanent: the command
// itself is at fault, and starting it again fails the same way until the user mends it; a
// system out of processes, file descriptors or memory is not, and the restart may succeed.
// dir is the directory it was to run in: exec reports a missing one as the command's path.
//
// Those four errnos (EAGAIN, EMFILE, ENFILE, ENOMEM) are the ones dbread's passing and queue's
// unreadable also count as passing; their lists stay apart on purpose. Theirs add an I/O error
// (EIO), which says nothing of a file's content; here it means the program's file could not be
// read, its own fault until the user mends it. dbread's adds a full disk, which an exec does
// not meet.
func commandError(name, command, dir string, err error) (reason, hint string, permanent bool) {
	_, dirErr := os.Stat(dir)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Sprintf("command %q not found in PATH", command),
			fmt.Sprintf("Install it, or give servers.%s.command as an absolute path in the project file", name), true
	case errors.Is(err, os.ErrNotExist) && dir != "" && errors.Is(dirErr, os.ErrNotExist):
		return fmt.Sprintf("its directory %s does not exist", dir),
			fmt.Sprintf("Create it, or set servers.%s.cwd in the project file to a directory that exists (a relative cwd is from the repository of a repository's project, else from the projects directory)", name), true
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("command does not exist: %v", err),
			fmt.Sprintf("Check servers.%s.command in the project file", name), true
	case errors.Is(err, os.ErrPermission):
		return fmt.Sprintf("command cannot be run: %v", err),
			fmt.Sprintf("Make servers.%s.command executable (chmod +x)", name), true
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.ENOMEM):
		return fmt.Sprintf("cannot start for now: the system is out of processes, file descriptors or memory (%v)", err),
			"mcpctl starts it again shortly; if this lasts, close programs or raise the limits (ulimit -u, ulimit -n)", false
	}
	return "cannot start: " + err.Error(), fmt.Sprintf("Check servers.%s in the project file", name), true
}
