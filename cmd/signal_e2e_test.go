package cmd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// serve stops in order, never killed where it stands, when the terminal closes (SIGHUP) and
// when its client has gone (a write to a pipe nobody reads): killed, it left a project server's
// children running and a queued write unanswered.
func TestServeStopsInOrderWhenItsClientGoes(t *testing.T) {
	lib := librarytest.New(t, 3)
	start := func(t *testing.T) (c *exec.Cmd, toServer, fromServer *os.File) {
		t.Helper()
		c = exec.Command(os.Args[0], "serve", "--library", lib.Dir)
		c.Env = testHome(t)
		// A file, not a buffer: Wait would also wait for a buffer's copy, which a child of serve
		// left running could hold open. Read by ended when serve does not stop.
		stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stderr.Close() })
		c.Stderr = stderr
		in, toServer, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		fromServer, out, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		c.Stdin, c.Stdout = in, out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
		t.Cleanup(func() { c.Process.Kill(); c.Wait(); toServer.Close(); fromServer.Close() })
		toServer.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		if _, err := bufio.NewReader(fromServer).ReadString('\n'); err != nil { // serving
			t.Fatal(err)
		}
		toServer.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		return c, toServer, fromServer
	}
	// ended waits for serve to exit, at most stopBound: a serve that does not stop is killed and
	// the test fails saying what it wrote, instead of holding the whole run until go test's
	// -timeout. A bound on a failure, not a timed assertion: serve stops in about a second.
	const stopBound = 30 * time.Second
	ended := func(t *testing.T, c *exec.Cmd) {
		t.Helper()
		exited := make(chan struct{})
		go func() { c.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(stopBound):
			c.Process.Kill()
			<-exited
			stderr, _ := os.ReadFile(c.Stderr.(*os.File).Name())
			t.Fatalf("serve had not stopped %s after it was told to, and was killed; its stderr:\n%s", stopBound, stderr)
		}
		if ws := c.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Errorf("serve was killed by %v, want it to stop in order", ws.Signal())
		}
	}

	t.Run("the terminal closes", func(t *testing.T) {
		c, _, _ := start(t)
		if err := c.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		ended(t, c)
	})
	t.Run("the client stops reading", func(t *testing.T) {
		c, toServer, fromServer := start(t)
		fromServer.Close()
		toServer.WriteString(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
		toServer.Close()
		ended(t, c)
	})
}
