package upstream

import "syscall"

// procAttr puts the child in a process group of its own, so that stopping it reaches whatever
// it started (npx starts node, a shell script starts its program), and asks the kernel to
// SIGKILL it when mcpctl dies, however it dies: a SIGKILL leaves mcpctl no chance to clean up.
//
// Pdeathsig is tied to the thread that forked the child, not to the process. The Go runtime
// only ends a thread when a goroutine locked to it (runtime.LockOSThread) returns without
// unlocking, and nothing in mcpctl starts children from such a goroutine. It reaches only the
// direct child: a grandchild in the group outlives a SIGKILL of mcpctl until it reads EOF on
// its stdin, which the MCP stdio transport requires servers to treat as the end.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
