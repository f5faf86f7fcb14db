package upstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

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
	// Permanent is a failure no restart mends (the command does not exist or cannot run): the
	// project file or the machine must change.
	Permanent bool
	// StartFailed is a server whose last start failed: its process ran but exited, broke the
	// protocol or did not finish initializing before it was ready. mcpctl keeps restarting it,
	// but a command that fails as it starts mostly fails the same way each time, and a model
	// told to try again retried in a loop: like Permanent, it is the user's to see to.
	StartFailed bool
	// NeverReady is true when it has not been ready once since mcpctl started it.
	NeverReady bool
	// Diagnose is the command the user runs to see why it fails: it starts the server once and
	// reports what it did, with the fix.
	Diagnose string
	// RestartIn is how long until mcpctl starts it again, rounded up to a second, when that is
	// further off than a call waits (its timeout); zero otherwise.
	RestartIn time.Duration
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

// Code is UPSTREAM_ERROR, or INVALID_INPUT for a request the server refused as invalid.
func (e *CallError) Code() promptlib.Code {
	if e.Invalid() {
		return promptlib.CodeInvalidInput
	}
	return promptlib.CodeUpstreamError
}

// Invalid reports whether the server refused the request itself: JSON-RPC -32602 (invalid
// params: a missing or wrong argument) or -32601 (it knows no such method). That is the
// caller's mistake to fix, not the server's fault, and calling again unchanged cannot help.
func (e *CallError) Invalid() bool {
	return errors.Is(e.Err, mcp.ErrInvalidParams) || errors.Is(e.Err, mcp.ErrMethodNotFound)
}

// TimeoutError is the cause of a CallError for a call cut off by its deadline: it went quiet
// (no answer and no progress) for the server's timeout, or it ran past the most a call may take
// even while it reports progress.
type TimeoutError struct {
	Quiet  time.Duration // the server's timeout: how long a call may go without answer or progress
	Cap    time.Duration // the most a call may take in all
	Capped bool          // it was still reporting progress when Cap ended it
}

func (e *TimeoutError) Error() string {
	if e.Capped {
		return fmt.Sprintf("still running after %v, the most a call may take even while it reports progress (%d × the server's timeout), so the request was cancelled upstream", e.Cap, capFactor)
	}
	return fmt.Sprintf("no answer and no progress within %v, so the request was cancelled upstream", e.Quiet)
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) true.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// ToolError turns an error of this package into the *promptlib.Error a tool result carries
// (isError with {error, message, hint}); the message names the server, and for an unavailable
// one its last stderr line and a hint for that server. It returns nil for any other error
// (a cancelled context, a bug), which the caller handles as before.
func ToolError(err error) *promptlib.Error {
	var ue *UnavailableError
	if errors.As(err, &ue) {
		e := &promptlib.Error{Code: promptlib.CodeUpstreamUnavailable, Message: ue.Error(), Err: err}
		see := ""
		if ue.Diagnose != "" {
			see = " " + promptlib.Quoted(ue.Diagnose) + " shows them why."
		}
		switch {
		case ue.Permanent:
			// A restart cannot help: the generic hint's "try again in a few seconds" would only
			// waste the model's calls.
			e.Advice = ue.Hint + ". Only the user can fix this: tell them; calling again will fail the same way until they do." + see
		case ue.StartFailed:
			since := "It failed as it started"
			if ue.NeverReady {
				since = "It has failed every start since mcpctl began"
			}
			hint := ""
			if ue.Hint != "" {
				hint = ue.Hint + ". "
			}
			e.Advice = fmt.Sprintf("%s%s, so only the user can fix this: tell them what failed.%s mcpctl keeps restarting it, and its tools work again once a start succeeds, but calling again before the user has fixed it will most likely fail the same way.",
				hint, since, see)
		default:
			// A crash's or a slow start's own hint says what comes next ("a call made meanwhile
			// waits for the restart"): with when the restart is due, it is the advice. Beside
			// it, the code's generic hint ("try again in a few seconds") said otherwise.
			advice := ue.Hint
			if ue.RestartIn > 0 {
				// Calling again before then fails the same way, whatever the hint said of a call
				// made meanwhile.
				advice = "Its next start is in about " + roughly(ue.RestartIn) + ", and a call made from then on waits for it: use other tools until then"
			}
			if advice != "" {
				e.Advice = advice + "."
			}
		}
		return e
	}
	var ce *CallError
	if !errors.As(err, &ce) {
		return nil
	}
	e := &promptlib.Error{Code: ce.Code(), Message: ce.Error(), Err: err}
	var te *TimeoutError
	switch {
	case errors.Is(ce.Err, mcp.ErrMethodNotFound):
		// The server knows no such method (or, for some servers, no such tool): no argument
		// fixes that.
		e.Advice = fmt.Sprintf("Server %s does not offer this; list its tools, prompts or resources again and use one it offers.", ce.Server)
	case ce.Invalid() && ce.Method == "prompts/get":
		e.Advice = "Fix the prompt's arguments as the server's message says, and get it again; prompts/list gives the arguments it takes."
	case ce.Invalid():
		e.Advice = "Fix the arguments as the server's message says, and call the tool again; its input schema (tools/list) lists what it takes."
	case errors.As(err, &te) && te.Capped:
		e.Advice = fmt.Sprintf("The tool was still working: calling it again unchanged will be cut off again. Ask the user to raise servers.%s.timeoutMs in the project file (a call may take %d times it), or do the work in smaller parts.", ce.Server, capFactor)
	case errors.As(err, &te):
		e.Advice = fmt.Sprintf("If the tool is slow but working, calling it again will be cut off again: ask the user to raise servers.%s.timeoutMs in the project file. If it hangs, use another tool.", ce.Server)
	}
	return e
}

// roughly is d as a model reads a wait: "25 s", "30 min" (not "1h0m0s").
func roughly(d time.Duration) string {
	if d < 2*time.Minute {
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	}
	return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
}
