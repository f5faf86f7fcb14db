package upstream

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// connFailure is why mcpctl gave up on a server's connection while the server still ran: it
// broke the protocol in a way no single request recovers from. It is the error every request
// under way then gets, and the server's last failure.
type connFailure struct {
	reason string // what happened, as Status.LastError says it
	hint   string // what to do about it
}

func (f *connFailure) Error() string { return "upstream: " + f.reason }

// writeChunk is how much of a message one bounded write sends: the deadline is renewed after
// each, so a server that reads slowly is told apart from one that stopped reading.
const writeChunk = 64 << 10

// stdinWriter is the connection's writer to a server's stdin. mcp-go writes each message whole
// under one lock and does not bound the write by the request's context: once a server stops
// reading and the pipe is full, that write, and every later message to the server, would wait
// for good, and so would mcpctl's shutdown behind them. Here a write that makes no progress for
// the server's timeout fails the connection instead (process.fail): the run loop stops the
// server and restarts it, and every request under way fails with the reason.
type stdinWriter struct {
	p       *process
	server  string
	timeout time.Duration
}

func (w *stdinWriter) Write(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		if f := w.p.failure(); f != nil {
			return written, f // the connection is being torn down; a half-sent line is no use
		}
		if err := w.p.stdin.SetWriteDeadline(time.Now().Add(w.timeout)); errors.Is(err, os.ErrNoDeadline) {
			// Not a pollable pipe (never with os.Pipe on Unix): write as mcp-go would.
			n, err := w.p.stdin.Write(b[written:])
			return written + n, err
		}
		n, err := w.p.stdin.Write(b[written:min(len(b), written+writeChunk)])
		written += n
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.p.fail(fmt.Sprintf("it stopped reading its input: mcpctl could not send it a %s message within %v, so mcpctl stopped it", sizeText(len(b)), w.timeout),
				fmt.Sprintf("mcpctl restarts it with backoff: try again in a few seconds. If it stops reading again, it hangs on this request: try smaller arguments, or tell the user that servers.%s stops reading its stdin", w.server))
			return written, w.p.failure()
		}
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// Close closes the server's stdin, its cue to exit; mcp-go closes it with the connection.
func (w *stdinWriter) Close() error { return w.p.stdin.Close() }

// sizeText is n bytes for a person: "64 MiB", "100 KiB", "12 bytes".
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
