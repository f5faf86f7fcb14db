package upstream

import (
	"errors"
	"fmt"
	"io"
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
// the server's timeout, while the server writes nothing either, fails the connection instead
// (process.fail): the run loop stops the server and restarts it, and every request under way
// fails with the reason. A server that answers or reports progress meanwhile is busy on a call
// (a single-threaded one reads no input while it works) and is waited for, up to the most a
// call may take.
type stdinWriter struct {
	p       *process
	server  string
	timeout time.Duration
}

func (w *stdinWriter) Write(b []byte) (int, error) {
	written := 0
	start := time.Now()
	for written < len(b) {
		if f := w.p.failure(); f != nil {
			return written, f // the connection is being torn down; a half-sent line is no use
		}
		from := time.Now()
		if err := w.p.stdin.SetWriteDeadline(from.Add(w.timeout)); errors.Is(err, os.ErrNoDeadline) {
			// Not a pollable pipe (never with os.Pipe on Unix): write as mcp-go would.
			n, err := w.p.stdin.Write(b[written:])
			return written + n, err
		}
		n, err := w.p.stdin.Write(b[written:min(len(b), written+writeChunk)])
		written += n
		if errors.Is(err, os.ErrDeadlineExceeded) && (n > 0 || w.p.heard.Load() >= from.UnixNano() && time.Since(start) < capFactor*w.timeout) {
			continue // it reads slowly, or it is busy and says so: wait on
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.p.fail(fmt.Sprintf("it stopped reading its input: mcpctl could not send it a %s message within %v, so mcpctl stopped it", sizeText(len(b)), w.timeout),
				fmt.Sprintf("mcpctl restarts it, and a call made meanwhile waits for the restart. If it stops reading again, it hangs on this request: try smaller arguments, or tell the user that servers.%s stops reading its stdin", w.server))
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

// maxLine is the most one message from a server (one line of its stdout) may take. mcp-go reads
// a line whole, however long, so without a bound a server writing without a newline holds all
// of mcpctl's memory (300 MB took 936 MB). 64 MiB lets a legitimately big result through: a
// 40 MB screenshot is about 53 MB once base64-encoded into JSON.
const maxLine = 64 << 20

// maxDepth is how deeply encoding/json nests before it refuses a document. mcp-go drops a
// message it cannot parse without a word, so a reply nested deeper would leave its call waiting
// out the whole timeout.
const maxDepth = 10000

// stdoutReader is the connection's reader of a server's stdout. It watches each line as mcp-go
// will frame it, and fails the connection (process.fail) on one that mcp-go could not take: one
// longer than max, or nested deeper than maxDepth. The server is then stopped and restarted, and
// every request under way fails at once with the reason, not after its timeout.
type stdoutReader struct {
	p      *process
	server string
	max    int

	line     int    // bytes since the last newline
	begun    bool   // the line has had a byte that is not a space
	straying bool   // its first such byte was neither '{' nor '[': no JSON-RPC message
	stray    []byte // the start of a straying line
	depth    int    // open objects and arrays, outside strings
	inString bool   // inside a JSON string
	escaped  bool   // the byte before was a backslash inside a string
}

// Read ends the stream with io.EOF once the connection has failed: mcp-go would log any other
// error through the process's default logger, a plain-text line in the middle of mcpctl's JSON
// log, and process.fail has already logged the reason.
func (r *stdoutReader) Read(b []byte) (int, error) {
	if r.p.failure() != nil {
		return 0, io.EOF
	}
	n, err := r.p.stdout.Read(b)
	if n > 0 {
		r.p.heard.Store(time.Now().UnixNano())
	}
	for i, c := range b[:n] {
		if c == '\n' { // mcp-go's frame, whatever the JSON says
			if r.straying {
				r.p.strayed(string(r.stray))
			}
			r.line, r.depth, r.inString, r.escaped = 0, 0, false, false
			r.begun, r.straying, r.stray = false, false, r.stray[:0]
			continue
		}
		if r.line++; r.line > r.max {
			r.p.fail(fmt.Sprintf("it sent a message larger than %s, the most mcpctl accepts from a server, so mcpctl stopped it", sizeText(r.max)),
				fmt.Sprintf("mcpctl restarts it with backoff. Calling again unchanged will fail the same way: ask for less at a time (a smaller page, range or image), or tell the user that servers.%s sends too much at once", r.server))
			// mcp-go still takes the whole lines before this one in b; it drops the rest with
			// the end of the stream.
			return i, io.EOF
		}
		// A server that prints on stdout what belongs on stderr may never answer initialize:
		// the line says why, when its start times out.
		if !r.begun && c != ' ' && c != '\t' && c != '\r' {
			r.begun, r.straying = true, c != '{' && c != '['
		}
		if r.straying && len(r.stray) < maxStray {
			r.stray = append(r.stray, c)
		}
		switch {
		case r.inString:
			switch {
			case r.escaped:
				r.escaped = false
			case c == '\\':
				r.escaped = true
			case c == '"':
				r.inString = false
			}
		case c == '"':
			r.inString = true
		case c == '{' || c == '[':
			if r.depth++; r.depth > maxDepth {
				r.p.fail(fmt.Sprintf("it sent a message nested more than %d levels deep, which cannot be parsed, so mcpctl stopped it", maxDepth),
					fmt.Sprintf("mcpctl restarts it with backoff. Calling again unchanged will likely fail the same way: use another tool, or tell the user that servers.%s sends malformed replies", r.server))
				return i, io.EOF
			}
		case c == '}' || c == ']':
			r.depth = max(r.depth-1, 0) // a log line on the wrong stream need not balance
		}
	}
	return n, err
}
