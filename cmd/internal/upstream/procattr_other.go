//go:build unix && !linux

package upstream

import "syscall"

// procAttr puts the child in a process group of its own, so that stopping it reaches whatever
// it started. Outside Linux there is no parent-death signal (macOS and the BSDs lack
// Pdeathsig): after a SIGKILL of mcpctl a child lives on until it reads EOF on its stdin, which
// the MCP stdio transport requires servers to treat as the end; a normal exit, SIGTERM or
// SIGINT of mcpctl stops every child through Supervisor.Close.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
