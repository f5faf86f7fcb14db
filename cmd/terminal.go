package cmd

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// isTerminal reports whether s (a command's stdin or stdout) is a terminal: a person is there,
// not a client or a pipe. It asks through SyscallConn, not Fd, which would put a non-blocking
// descriptor (serve's stdin, the MCP channel) in blocking mode for good.
func isTerminal(s any) bool {
	f, ok := s.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	is := false
	if rc.Control(func(fd uintptr) { is = term.IsTerminal(fd) }) != nil {
		return false
	}
	return is
}

// ttyReadable reports whether the console can read keys: from stdin when it is a terminal,
// else from /dev/tty, which bubbletea opens then.
func ttyReadable(stdin io.Reader) bool {
	if isTerminal(stdin) {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	tty.Close()
	return true
}
