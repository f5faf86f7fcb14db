package upstream

import (
	"errors"
	"fmt"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Sentinel errors, for errors.Is.
var (
	// ErrUnavailable matches every *UnavailableError.
	ErrUnavailable = errors.New("upstream: server unavailable")
	// ErrUnknown means no server of the project offers the tool, prompt or resource named.
	ErrUnknown = errors.New("upstream: no such tool, prompt or resource")
	// ErrClosed means the supervisor was closed.
	ErrClosed = errors.New("upstream: supervisor closed")
)

// UnavailableError is a call to a server that is not running: it failed to start, died, is
// waiting to be restarted, or did not finish starting within the call's timeout. It is what a
// tool result reports as UPSTREAM_UNAVAILABLE.
type UnavailableError struct {
	Server     string // the server's name in the project
	State      State  // its state when the call gave up
	Reason     string // what happened: "exited: exit status 1", "did not finish starting within 60s"
	LastStderr string // the last line it wrote to stderr, "" if none
	Hint       string // what to do about this server in particular
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("upstream: server %s is not available (%s): %s", e.Server, e.State, e.Reason)
	if e.LastStderr != "" {
		msg += fmt.Sprintf("; its last stderr line: %q", e.LastStderr)
	}
	return msg
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Code is UPSTREAM_UNAVAILABLE.
func (e *UnavailableError) Code() promptlib.Code { return promptlib.CodeUpstreamUnavailable }

// CallError is a server that answered a call with a protocol error (a JSON-RPC error, a reply
// that does not parse) or did not answer within its timeout. It is what a tool result reports as
// UPSTREAM_ERROR. An upstream tool's own isError result is not a CallError: it passes through.
type CallError struct {
	Server string // the server's name in the project
	Method string // "tools/call", "prompts/get", "resources/read"
	Name   string // the tool or prompt (the upstream's own name) or the URI
	Err    error  // the cause: the JSON-RPC error (mcp.ErrMethodNotFound, ...) or context.DeadlineExceeded
}

func (e *CallError) Error() string {
	return fmt.Sprintf("upstream: server %s: %s %s: %v", e.Server, e.Method, e.Name, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// Code is UPSTREAM_ERROR.
func (e *CallError) Code() promptlib.Code { return promptlib.CodeUpstreamError }

// ToolError turns an error of this package into the *promptlib.Error a tool result carries
// (isError with {error, message, hint}); the message names the server, and for an unavailable
// one its last stderr line and a hint for that server. It returns nil for any other error
// (a cancelled context, a bug), which the caller handles as before.
func ToolError(err error) *promptlib.Error {
	var ue *UnavailableError
	if errors.As(err, &ue) {
		msg := ue.Error()
		if ue.Hint != "" {
			msg += ". " + ue.Hint
		}
		return &promptlib.Error{Code: promptlib.CodeUpstreamUnavailable, Message: msg, Err: err}
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return &promptlib.Error{Code: promptlib.CodeUpstreamError, Message: ce.Error(), Err: err}
	}
	return nil
}
