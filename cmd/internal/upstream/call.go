package upstream

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/cmd/internal/trust"
	"github.com/mcpctl/mcpctl/promptlib"
)

// await returns the server's connection once it is ready. A call that comes while the server
// is starting, or restarting after it died (failed, its restart due within the server's
// timeout), waits for that start, until callCtx ends; README promises that a call made while a
// server restarts waits for it, and one answered "unavailable" a moment after a crash had the
// model retry blindly. A call waits for one start at most: when the start it waited for fails,
// it is told why at once, as is a call to a server that is failed with no restart due within
// its timeout, whose last start failed (StartFailed: the user's to fix), or stopped. When ctx
// (the caller's own) ends first, its error is returned as it is.
func (s *Server) await(ctx, callCtx context.Context) (*conn, lists, error) {
	first, counted := 0, false // s.starts before the start the call waits for, once counted
	for {
		s.mu.Lock()
		st, c, l, wake, starts, restartAt := s.state, s.conn, s.lists, s.wake, s.starts, s.restartAt
		userFix := s.permanent || s.failedStarts > 0
		s.mu.Unlock()
		if !counted {
			// A flag, not a sentinel: the first start under way leaves first at -1.
			counted, first = true, starts
			if st == Starting {
				first-- // the start under way is the one it waits for
			}
		}
		switch st {
		case Ready:
			if !c.proc.ended() {
				return c, l, nil
			}
			// It has just died and the run loop is about to record it: the call waits for
			// the restart rather than go into a closed connection.
		case Starting:
		case Failed:
			switch {
			case starts > first: // the start it waited for failed
				return nil, lists{}, s.unavailable("", "")
			case userFix: // a restart is unlikely to mend it (StartFailed), or cannot (Permanent)
				return nil, lists{}, s.unavailable("", "")
			case !restartAt.IsZero() && time.Until(restartAt) > s.timeout:
				return nil, lists{}, s.unavailable("", "")
			}
			// Its restart is due within the call's timeout, or about to be scheduled (run).
		default:
			return nil, lists{}, s.unavailable("", "")
		}
		select {
		case <-wake:
		case <-callCtx.Done():
			if ctx.Err() != nil {
				return nil, lists{}, ctx.Err()
			}
			if st == Failed {
				return nil, lists{}, s.unavailable("", "")
			}
			hint := fmt.Sprintf("It may be slow to start: try again shortly, or raise servers.%s.timeoutMs", s.name)
			s.mu.Lock()
			if s.failedStarts > 0 {
				hint = "" // its last start failed: trying again is no advice (ToolError's StartFailed)
			}
			s.mu.Unlock()
			return nil, lists{}, s.unavailable(fmt.Sprintf("did not finish starting within %v", s.timeout), hint)
		}
	}
}

// Await waits as a call does (await), within the server's timeout: for a start under way, or a
// restart due within it. It returns nil once the server is ready; else an *UnavailableError
// saying why a call cannot be served now, or ctx's error when ctx ends first. mcpserver uses it
// for a call it cannot route yet: a server never ready has registered no tools.
func (s *Server) Await(ctx context.Context) error {
	callCtx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, _, err := s.await(ctx, callCtx)
	return err
}

// Unavailable is what a call to the server answers while it is not running (failed, or
// stopped): its last failure, last stderr line and what to do. For a name mcpctl cannot route
// to the server yet, which a call would not reach.
func (s *Server) Unavailable() *UnavailableError { return s.unavailable("", "") }

// unavailable builds the error for a server that is not running; reason and hint default to
// the last failure's.
func (s *Server) unavailable(reason, hint string) *UnavailableError {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case reason != "":
	case s.state == Stopped && s.starts == 0:
		// Its supervisor was never started (Start makes every server Starting at once).
		reason, hint = "mcpctl has not started it", "mcpctl serve starts a project's servers as it starts; reconnect the client to start them"
	case s.state == Stopped:
		reason, hint = "mcpctl is not running it", "mcpctl serve is shutting down, and its servers with it; the client starts it again on its next connection"
	default:
		reason = s.reason
	}
	if hint == "" {
		hint = s.hint
	}
	last := s.lastStderr
	if s.conn != nil {
		last = s.conn.proc.LastStderr()
	}
	var restartIn time.Duration
	if until := time.Until(s.restartAt); s.state == Failed && !s.restartAt.IsZero() && until > s.timeout {
		// A call would not wait for it (await): when it is due is what a caller can act on.
		restartIn = until.Truncate(time.Second) + time.Second
	}
	return &UnavailableError{Server: s.name, State: s.state, Reason: reason, LastStderr: last, Hint: hint, Permanent: s.permanent,
		StartFailed: s.failedStarts > 0, NeverReady: !s.everReady, Diagnose: describeCommand(s.name, s.opts.Project), RestartIn: restartIn}
}

// describeCommand is the command that shows the user why server name of the project in file
// fails: 'mcpctl describe server NAME', with the --project that names the project (the
// repository's directory for a repository's project file, else the project's name).
func describeCommand(name, file string) string {
	cmd := "mcpctl describe server " + promptlib.ShellWord(name)
	switch {
	case file == "":
		return cmd
	case filepath.Base(filepath.Dir(file)) == ".mcpctl":
		return cmd + " --project " + promptlib.ShellWord(trust.RepoDir(file))
	}
	return cmd + " --project " + promptlib.ShellWord(strings.TrimSuffix(filepath.Base(file), ".yaml"))
}

// callError sorts a failed request: the caller's own cancellation is returned as it is (the
// client has already sent notifications/cancelled upstream); a connection that broke because
// the server died, or that mcpctl gave up on (process.fail), is an *UnavailableError; anything
// else, a timeout included, a *CallError.
func (s *Server) callError(ctx, callCtx context.Context, c *conn, method, name string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if f := c.proc.failure(); f != nil {
		// mcpctl gave up on the connection: that is what happened, not the timeout or the
		// broken connection that followed from it.
		ue := s.unavailable(f.reason, f.hint)
		ue.LastStderr, ue.State = c.proc.LastStderr(), Failed // whatever the state still says
		return ue
	}
	if callCtx.Err() != nil {
		var te *TimeoutError
		if !errors.As(context.Cause(callCtx), &te) {
			te = &TimeoutError{Quiet: s.timeout, Cap: s.callCap()}
		}
		return &CallError{Server: s.name, Method: method, Name: name, Err: te}
	}
	var te *transport.Error
	if errors.As(err, &te) || errors.Is(err, transport.ErrTransportClosed) {
		if s.died(c) {
			c.proc.settleStderr()
			ue := s.unavailable(c.proc.exitReason()+" during the call", "mcpctl restarts it, and a call made meanwhile waits for the restart; if this call may have done part of its work, check that before repeating it")
			ue.LastStderr, ue.State = c.proc.LastStderr(), Failed // it died, whatever the state still says
			return ue
		}
		return s.unavailable("the connection to it broke: "+err.Error(), "mcpctl restarts it, and a call made meanwhile waits for the restart")
	}
	return &CallError{Server: s.name, Method: method, Name: name, Err: err}
}

// completeWait is the most a completion waits for its server, starting or answering.
const completeWait = 3 * time.Second

// capFactor is how many times its server's timeout a call may take in all while it keeps
// reporting progress.
const capFactor = 10

// callCap is the most one call may take, progress or not.
func (s *Server) callCap() time.Duration { return capFactor * s.timeout }

// deadline is one request's: it ends the request once it has gone the server's timeout without
// an answer or a progress notification (touch restarts that wait), and in any case after
// callCap. A long tool that reports progress keeps working; a hung one is cut off as before.
// While the server waits on mcpctl's client (relay), the quiet wait is held.
type deadline struct {
	s          *Server
	quiet, cap *time.Timer
	timeout    time.Duration
	cancel     context.CancelCauseFunc

	mu   sync.Mutex
	held bool
}

// newDeadline is ctx with the request's deadline; stop it when the request is over.
func (s *Server) newDeadline(ctx context.Context) (context.Context, *deadline) {
	callCtx, cancel := context.WithCancelCause(ctx)
	d := &deadline{s: s, timeout: s.timeout, cancel: cancel}
	d.quiet = time.AfterFunc(s.timeout, func() { cancel(&TimeoutError{Quiet: s.timeout, Cap: s.callCap()}) })
	d.cap = time.AfterFunc(s.callCap(), func() { cancel(&TimeoutError{Quiet: s.timeout, Cap: s.callCap(), Capped: true}) })
	s.mu.Lock()
	s.calls[d] = true
	if s.relaying > 0 {
		d.hold(true) // under s.mu, so the relay's end cannot come between
	}
	s.mu.Unlock()
	return callCtx, d
}

// touch restarts the quiet wait: the request is working. A held wait stays held. Once the
// request is over, a reset timer only cancels a context already cancelled, which does nothing.
func (d *deadline) touch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.held {
		d.quiet.Reset(d.timeout)
	}
}

// hold stops the quiet wait (on) or starts it afresh (off).
func (d *deadline) hold(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.held = on
	if on {
		d.quiet.Stop()
	} else {
		d.quiet.Reset(d.timeout)
	}
}

func (d *deadline) stop() {
	d.s.mu.Lock()
	delete(d.s.calls, d)
	d.s.mu.Unlock()
	d.mu.Lock()
	d.held = true // no relay restarts it
	d.quiet.Stop()
	d.mu.Unlock()
	d.cap.Stop()
	d.cancel(nil)
}

// CallTool calls the tool served as name (server__tool) with args (the arguments as the client
// sent them) and returns the upstream's result unchanged, an isError one included. The call
// may go the server's timeout without an answer or a progress notification, and take at most
// capFactor times it in all; a server still starting is waited for within the timeout. progress,
// if not nil, receives the upstream's progress notifications for this call. Errors: ctx's own
// error when ctx ends (the upstream is sent notifications/cancelled), an *UnavailableError, a
// *CallError, or ErrUnknown for a name the server does not serve.
func (s *Server) CallTool(ctx context.Context, name string, args any, progress ProgressFunc) (*mcp.CallToolResult, error) {
	callCtx, dl := s.newDeadline(ctx)
	defer dl.stop()
	c, l, err := s.await(ctx, callCtx)
	if err != nil {
		return nil, err
	}
	own, ok := l.toolOwn[name]
	if !ok {
		return nil, fmt.Errorf("%w: server %s serves no tool %s (it may be hidden by the project's tools.allow or tools.deny)", ErrUnknown, s.name, name)
	}
	var req mcp.CallToolRequest
	req.Params.Name = own
	req.Params.Arguments = args
	// Progress is always asked for, even when the client asked for none: it is what tells a
	// working call from a hung one.
	tok := "mcpctl-progress-" + strconv.FormatInt(s.progressSeq.Add(1), 10)
	s.mu.Lock()
	s.progress[tok] = func(p, total float64, message string) {
		dl.touch()
		if progress != nil {
			progress(p, total, message)
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.progress, tok)
		s.mu.Unlock()
	}()
	req.Params.Meta = &mcp.Meta{ProgressToken: tok}
	res, err := c.client.CallTool(callCtx, req)
	if err != nil {
		return nil, s.callError(ctx, callCtx, c, "tools/call", own, err)
	}
	return res, nil
}

// GetPrompt gets the prompt served as name (server__prompt) with args, like CallTool.
func (s *Server) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	callCtx, dl := s.newDeadline(ctx)
	defer dl.stop()
	c, l, err := s.await(ctx, callCtx)
	if err != nil {
		return nil, err
	}
	own, ok := l.promptOwn[name]
	if !ok {
		return nil, fmt.Errorf("%w: server %s serves no prompt %s", ErrUnknown, s.name, name)
	}
	var req mcp.GetPromptRequest
	req.Params.Name = own
	req.Params.Arguments = args
	res, err := c.client.GetPrompt(callCtx, req)
	if err != nil {
		return nil, s.callError(ctx, callCtx, c, "prompts/get", own, err)
	}
	return res, nil
}

// ReadResource reads uri from this server, like CallTool. Linked prompts (mcp+server:uri) use
// it directly; so does a client's resources/read, from the server mcpctl chose for the URI.
func (s *Server) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	callCtx, dl := s.newDeadline(ctx)
	defer dl.stop()
	c, _, err := s.await(ctx, callCtx)
	if err != nil {
		return nil, err
	}
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	res, err := c.client.ReadResource(callCtx, req)
	if err != nil {
		return nil, s.callError(ctx, callCtx, c, "resources/read", uri, err)
	}
	return res, nil
}

// Complete asks the server to complete an argument: of the prompt served as ref's name
// (mcp.PromptReference, the server's prompt asked by its own name), or of one of its resource
// templates (mcp.ResourceReference, as the server gave it). args are the arguments already
// filled in. A server that did not declare completions answers none without being asked: it
// would refuse the method. Otherwise like GetPrompt: within its timeout, a server still starting
// waited for, and the same errors.
func (s *Server) Complete(ctx context.Context, ref any, arg mcp.CompleteArgument, args map[string]string) (*mcp.Completion, error) {
	// A completion answers a keystroke: one that comes later than completeWait is of no use,
	// and a restarting server must not hold a worker for its whole timeout per keystroke.
	ctx, cancel := context.WithTimeout(ctx, min(completeWait, s.timeout))
	defer cancel()
	callCtx, dl := s.newDeadline(ctx)
	defer dl.stop()
	c, l, err := s.await(ctx, callCtx)
	if err != nil {
		return nil, err
	}
	if c.caps.Completions == nil {
		return &mcp.Completion{Values: []string{}}, nil
	}
	var req mcp.CompleteRequest
	name := ""
	switch r := ref.(type) {
	case mcp.PromptReference:
		own, ok := l.promptOwn[r.Name]
		if !ok {
			return nil, fmt.Errorf("%w: server %s serves no prompt %s", ErrUnknown, s.name, r.Name)
		}
		r.Type, r.Name = "ref/prompt", own
		req.Params.Ref, name = r, own
	case mcp.ResourceReference:
		r.Type = "ref/resource"
		req.Params.Ref, name = r, r.URI
	default:
		return nil, fmt.Errorf("%w: a completion of %T", ErrUnknown, ref)
	}
	req.Params.Argument = arg
	req.Params.Context.Arguments = args
	res, err := c.client.Complete(callCtx, req)
	if err != nil {
		return nil, s.callError(ctx, callCtx, c, "completion/complete", name, err)
	}
	return &res.Completion, nil
}

// Wait waits until the server is ready or has failed (or is stopped), or ctx ends, and returns
// its status then. 'mcpctl get servers' uses it to start each server once and report.
func (s *Server) Wait(ctx context.Context) Status {
	for {
		s.mu.Lock()
		st, wake := s.state, s.wake
		s.mu.Unlock()
		if st != Starting {
			return s.State()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return s.State()
		}
	}
}
