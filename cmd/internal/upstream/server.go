package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
)

// State is where a server is in its life.
type State string

// The states of a server.
const (
	Starting State = "starting" // its process is starting or initializing
	Ready    State = "ready"    // initialized; its lists are current
	Failed   State = "failed"   // it could not start or it died; a restart is due
	Stopped  State = "stopped"  // the supervisor is closed, or never started
)

// DefaultTimeout is a call's timeout, and initialize's, when the project gives no timeoutMs.
const DefaultTimeout = 60 * time.Second

// Status is a server's state as health_check and 'mcpctl get servers' report it.
type Status struct {
	Name       string `json:"name"`
	Command    string `json:"command"` // the command as the project gives it
	State      State  `json:"state"`
	Tools      int    `json:"tools"` // how many tools it serves (after allow and deny)
	Prompts    int    `json:"prompts"`
	Resources  int    `json:"resources"`           // resources and resource templates
	LastError  string `json:"lastError,omitempty"` // the last failure, while it is not ready
	LastStderr string `json:"lastStderr,omitempty"`
	// RecoveredFrom is, once it is ready again, the failure it was restarted after: the same as
	// LastError was, but a ready server's lastError, and its hint "mcpctl restarts it", read as
	// a failure still to see to.
	RecoveredFrom string    `json:"recoveredFrom,omitempty"`
	FailedAt      time.Time `json:"failedAt,omitzero"` // when the last failure happened
	PID           int       `json:"pid,omitempty"`     // its process id while it runs
	Restarts      int       `json:"restarts"`          // how many times it was started again after failing
	Since         time.Time `json:"since"`             // when it entered State
	// Hint is what to do about the last failure.
	Hint string `json:"hint,omitempty"`
	// UnsetEnv are the variables its env refers to (${VAR}) that were unset at its last start,
	// so expanded to empty: often why it fails, as MCP clients start mcpctl without the
	// shell's environment.
	UnsetEnv []string `json:"unsetEnv,omitempty"`
}

// Tool is an upstream tool as mcpctl serves it.
type Tool struct {
	Server string // the server's name in the project
	Own    string // the tool's name on its server
	// Tool is the upstream's definition with Name replaced by the served name. Its input and
	// output schemas are the upstream's own JSON, in RawInputSchema and RawOutputSchema (nil
	// when it gave none).
	Tool mcp.Tool
}

// Prompt is an upstream prompt as mcpctl serves it.
type Prompt struct {
	Server string
	Own    string
	Prompt mcp.Prompt // Name is the served name
}

// Resource is an upstream resource, under its own URI.
type Resource struct {
	Server   string
	Resource mcp.Resource
}

// ResourceTemplate is an upstream resource template, under its own URI template.
type ResourceTemplate struct {
	Server   string
	Template mcp.ResourceTemplate
}

// ProgressFunc receives an upstream's progress notifications for one call. It runs on the
// connection's reader and must not block; progress may arrive after the call has returned, and
// is then dropped.
type ProgressFunc func(progress, total float64, message string)

// lists is what a ready server serves, with the served names' own names.
type lists struct {
	tools     []Tool
	prompts   []Prompt
	resources []Resource
	templates []ResourceTemplate
	toolOwn   map[string]string // served name → own name
	promptOwn map[string]string
}

// Server is one supervised upstream server. Its methods are safe for concurrent use.
type Server struct {
	name    string
	spec    gate.ServerSpec
	opts    *Options
	log     *slog.Logger
	timeout time.Duration
	filter  toolFilter
	changed func() // the supervisor's OnChange fan-out

	progressSeq atomic.Int64
	listSeq     atomic.Int64

	mu         sync.Mutex
	state      State
	since      time.Time
	reason     string    // the last failure
	failedAt   time.Time // when it happened
	hint       string
	unsetEnv   []string // at the last start
	permanent  bool     // the last failure was the command itself: no restart mends it
	lastStderr string
	restarts   int
	starts     int // how many times its process was started (or tried to be)
	// failedStarts counts the starts in a row whose process ran but never became ready: it
	// exited, broke the protocol or did not finish initializing. A server like that needs the
	// user (StartFailed); a restart after it died while serving does not.
	failedStarts int
	everReady    bool      // it has been ready since mcpctl started it
	restartAt    time.Time // when the next start is due; zero while none is scheduled
	pid          int
	conn         *conn // while Ready
	lists        lists
	wake         chan struct{} // closed and replaced on every state change
	progress     map[string]ProgressFunc
	calls        map[*deadline]bool // the requests under way, whose quiet waits a relay holds
	relaying     int                // the server's requests to the client under way (relay)
}

// conn is a running server's MCP connection.
type conn struct {
	proc   *process
	tr     *transport.Stdio
	client *client.Client
	caps   mcp.ServerCapabilities
	relist chan struct{} // a list_changed arrived; buffered 1
	roots  bool          // roots were declared to it, with listChanged
}

func newServer(name string, spec gate.ServerSpec, opts *Options, changed func()) *Server {
	timeout := DefaultTimeout
	if spec.TimeoutMs > 0 {
		timeout = time.Duration(spec.TimeoutMs) * time.Millisecond
	}
	return &Server{
		name: name, spec: spec, opts: opts, timeout: timeout, changed: changed,
		log:    opts.Logger.With("server", name),
		filter: toolFilter{allow: spec.Allow, deny: spec.Deny},
		state:  Stopped, since: time.Now(), wake: make(chan struct{}),
		progress: map[string]ProgressFunc{}, calls: map[*deadline]bool{},
	}
}

// Name is the server's name in the project.
func (s *Server) Name() string { return s.name }

// Spec is the server as the project gives it (env values unexpanded).
func (s *Server) Spec() gate.ServerSpec { return s.spec }

// HiddenBy names the project's rule that leaves out this server's tool called own,
// "tools.deny" or "tools.allow", or "" when none does.
func (s *Server) HiddenBy(own string) string { return s.filter.hiding(own) }

// Timeout is how long one call to the server may take.
func (s *Server) Timeout() time.Duration { return s.timeout }

// State reports the server's state, counts and last error.
func (s *Server) State() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.lastStderr
	if s.conn != nil {
		last = s.conn.proc.LastStderr()
	}
	st := Status{Name: s.name, Command: s.spec.Command, State: s.state,
		Tools: len(s.lists.tools), Prompts: len(s.lists.prompts), Resources: len(s.lists.resources) + len(s.lists.templates),
		LastError: s.reason, LastStderr: last, PID: s.pid, Restarts: s.restarts, Since: s.since, FailedAt: s.failedAt,
		Hint: s.hint, UnsetEnv: s.unsetEnv}
	if s.state == Ready {
		// The failure is past: nothing is to be done about it, and its hint would say otherwise.
		st.RecoveredFrom, st.LastError, st.Hint = st.LastError, "", ""
		if st.RecoveredFrom != "" && s.lastStderr != "" {
			// LastStderr is the running process's now: the failed one's line goes with its failure.
			st.RecoveredFrom += fmt.Sprintf("; its last stderr line then: %q", s.lastStderr)
		}
	}
	return st
}

// Tools are the tools the server serves now, sorted by name; none unless it is ready. The
// definitions are shared: treat them as read-only, and copy one before changing it.
func (s *Server) Tools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Tool(nil), s.lists.tools...)
}

// Prompts are the prompts the server serves now, sorted by name.
func (s *Server) Prompts() []Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Prompt(nil), s.lists.prompts...)
}

// Resources are the server's resources now, in its order.
func (s *Server) Resources() []Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Resource(nil), s.lists.resources...)
}

// ResourceTemplates are the server's resource templates now, in its order.
func (s *Server) ResourceTemplates() []ResourceTemplate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ResourceTemplate(nil), s.lists.templates...)
}

// Offer is what a server serves and its state, read at one moment: a caller that keeps what a
// server offered while it is down (mcpserver does) must not pair a state with lists of another.
type Offer struct {
	State     State
	Tools     []Tool
	Prompts   []Prompt
	Resources []Resource
	Templates []ResourceTemplate
}

// Offer is the server's state and lists now; the lists are empty unless it is ready. The
// definitions are shared, as Tools' are.
func (s *Server) Offer() Offer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Offer{State: s.state, Tools: append([]Tool(nil), s.lists.tools...), Prompts: append([]Prompt(nil), s.lists.prompts...),
		Resources: append([]Resource(nil), s.lists.resources...), Templates: append([]ResourceTemplate(nil), s.lists.templates...)}
}

// setState moves the server to st and wakes everyone waiting for a change.
func (s *Server) setState(st State, edit func()) {
	s.mu.Lock()
	if s.state != st {
		s.state, s.since = st, time.Now()
	}
	if edit != nil {
		edit()
	}
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// run supervises the server until ctx ends: start, serve, and after a failure wait the backoff
// (doubling from MinBackoff to MaxBackoff; back to MinBackoff after a run that stayed up for
// MaxBackoff) and start again.
func (s *Server) run(ctx context.Context) {
	backoff := s.opts.MinBackoff
	for {
		up, reason := s.runOnce(ctx)
		if ctx.Err() != nil {
			// A start that failed as ctx ended left it Failed: no restart is coming, and a
			// call waiting for one must be told at once.
			s.setState(Stopped, nil)
			return
		}
		if up >= s.opts.MaxBackoff {
			backoff = s.opts.MinBackoff
		}
		s.log.Warn("upstream server down; restarting", "reason", reason, "restartIn", backoff.String())
		// A call that finds it failed waits for a restart due within the call's timeout
		// (await): it must know when that is, and be woken to read it.
		s.setState(Failed, func() { s.restartAt = time.Now().Add(backoff) })
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			s.setState(Stopped, nil)
			return
		case <-t.C:
		}
		backoff = min(backoff*2, s.opts.MaxBackoff)
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
	}
}

// command builds the child's command: the project's command and args, mcpctl's environment
// with the server's env added (${VAR} expanded), in its cwd.
func (s *Server) command() *exec.Cmd {
	cmd := exec.Command(s.spec.Command, s.spec.Args...)
	env, unset := expandEnv(s.opts.Environ, s.spec.Env, s.opts.Getenv)
	for _, name := range unset {
		s.log.Warn("upstream env references an unset variable; it expands to empty", "variable", name)
	}
	s.mu.Lock()
	s.unsetEnv = unset
	s.mu.Unlock()
	if s.opts.Project != "" {
		cmd.Env = append(env, ParentEnv+"="+childChain(s.opts.Getenv(ParentEnv), s.opts.Project))
	} else {
		cmd.Env = env
	}
	cmd.Dir = WorkDir(s.spec, s.opts.Dir)
	return cmd
}

// WorkDir is the directory a server runs in: its cwd, a relative one from base (BaseDir: the
// repository of a repository's project, the projects directory of another); base without one.
func WorkDir(spec gate.ServerSpec, base string) string {
	switch {
	case spec.Cwd == "":
		return base
	case filepath.IsAbs(spec.Cwd) || base == "":
		return spec.Cwd
	}
	return filepath.Join(base, spec.Cwd)
}

// runOnce starts the server, initializes it, and serves until it dies or ctx ends. It leaves
// the server Failed (or Stopped when ctx ended) with no connection, and returns how long it was
// ready and why it stopped.
func (s *Server) runOnce(ctx context.Context) (up time.Duration, reason string) {
	s.setState(Starting, func() { s.lists, s.restartAt = lists{}, time.Time{}; s.starts++ })
	cmd := s.command()
	proc, err := startProcess(cmd, s.log)
	if err != nil {
		reason, hint, permanent := commandError(s.name, s.spec.Command, cmd.Dir, err)
		s.setState(Failed, func() { s.reason, s.hint, s.pid, s.permanent, s.failedAt = reason, hint, 0, permanent, time.Now() })
		return 0, reason
	}
	s.mu.Lock()
	s.permanent = false
	s.mu.Unlock()
	s.mu.Lock()
	s.pid = proc.pid()
	s.mu.Unlock()
	c := &conn{proc: proc, relist: make(chan struct{}, 1)}
	c.tr = transport.NewIO(&stdoutReader{p: proc, server: s.name, max: s.opts.maxLine},
		&stdinWriter{p: proc, server: s.name, timeout: s.timeout}, nil)
	transport.WithCommandLogger(transportLogger(s.log))(c.tr) // NewIO takes no options
	c.client = client.NewClient(c.tr, append(s.relayOptions(c), client.WithProtocolVersion(mcp.ProtocolVersion20251125))...)
	c.client.OnNotification(s.onNotification(c))

	// The connection ends when the child does: close it so that calls in flight fail at once,
	// even if something the child started still holds its stdout open.
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-proc.exited:
		case <-quit:
		}
		c.client.Close()
	}()
	var hint string
	defer func() {
		close(quit)
		wg.Wait()
		// The state changes before the process is stopped, so that no call finds a Ready
		// server without a connection, and none waits out the stop's grace.
		proc.settleStderr()
		st := Failed
		if ctx.Err() != nil {
			st = Stopped
		}
		var had bool
		s.setState(st, func() {
			had = s.conn != nil
			s.conn, s.lists = nil, lists{}
			if st == Failed {
				s.reason, s.hint, s.failedAt = reason, hint, time.Now()
				if !had {
					s.failedStarts++
				}
			}
			s.lastStderr = proc.LastStderr()
		})
		if had {
			s.changed()
		}
		proc.stop(s.opts.StopGrace)
		s.mu.Lock()
		s.lastStderr, s.pid = proc.LastStderr(), 0
		s.mu.Unlock()
	}()

	if err := c.client.Start(ctx); err != nil {
		return 0, "cannot connect: " + err.Error()
	}
	initCtx, cancel := context.WithTimeout(ctx, s.timeout)
	l, err := s.initialize(initCtx, c)
	cancel()
	if err != nil {
		f := proc.failure()
		switch {
		case ctx.Err() != nil:
			return 0, "stopped"
		case f != nil:
			hint = f.hint
			return 0, f.reason + " while starting"
		case errors.Is(initCtx.Err(), context.DeadlineExceeded) && proc.LastStray() != "": // cancel() above already ran
			hint = fmt.Sprintf("An MCP server over stdio may write only JSON-RPC messages to stdout: have servers.%s.command log to stderr, or check that it is an MCP server speaking stdio", s.name)
			return 0, fmt.Sprintf("did not finish initializing within %v; it wrote %q on stdout, which is no JSON-RPC message", s.timeout, proc.LastStray())
		case errors.Is(initCtx.Err(), context.DeadlineExceeded):
			hint = fmt.Sprintf("If it is only slow, raise servers.%s.timeoutMs in the project file", s.name)
			return 0, fmt.Sprintf("did not finish initializing within %v", s.timeout)
		case s.died(c):
			hint = fmt.Sprintf("Run servers.%s.command by hand to see why it exits; its last stderr line says more", s.name)
			return 0, proc.exitReason() + " while starting"
		}
		hint = "Check that the command is an MCP server speaking stdio"
		return 0, "initialize failed: " + err.Error()
	}
	readyAt := time.Now()
	s.setState(Ready, func() { s.conn, s.lists, s.failedStarts, s.everReady = c, l, 0, true })
	s.log.Info("upstream server ready", "pid", proc.pid(), "tools", len(l.tools), "prompts", len(l.prompts), "resources", len(l.resources)+len(l.templates))
	s.changed()

	for {
		select {
		case <-ctx.Done():
			return time.Since(readyAt), "stopped"
		case <-proc.exited:
			if f := proc.failure(); f != nil {
				// Given up on first: its exit may be what the failure made of it.
				hint = f.hint
				return time.Since(readyAt), f.reason
			}
			hint = "mcpctl restarts it with backoff; its last stderr line may say why it stopped"
			return time.Since(readyAt), proc.exitReason()
		case <-proc.failed:
			f := proc.failure()
			hint = f.hint
			return time.Since(readyAt), f.reason
		case <-c.relist:
			lctx, cancel := context.WithTimeout(ctx, s.timeout)
			l, err := s.list(lctx, c)
			cancel()
			if err != nil {
				s.log.Warn("upstream list after list_changed failed", "error", err)
				continue
			}
			s.setState(Ready, func() { s.lists = l })
			s.changed()
		}
	}
}

// relayOptions declare to the server what the client mcpctl serves declared of sampling,
// elicitation and roots, and relay those requests to it. A handler also declares its capability
// (mcp-go), so there is one only for what the client takes; a server that asks for anything
// else regardless gets mcp-go's "no ... handler configured".
func (s *Server) relayOptions(c *conn) []client.ClientOption {
	cl := s.opts.Client
	if cl == nil {
		return nil
	}
	caps := cl.Capabilities()
	var opts []client.ClientOption
	declared := mcp.ClientCapabilities{Sampling: caps.Sampling, Elicitation: caps.Elicitation, Roots: caps.Roots}
	if caps.Sampling != nil {
		opts = append(opts, client.WithSamplingHandler(relay{s}))
	}
	if caps.Elicitation != nil {
		opts = append(opts, client.WithElicitationHandler(relay{s}))
	}
	if caps.Roots != nil {
		opts = append(opts, client.WithRootsHandler(relay{s}))
		c.roots = caps.Roots.ListChanged
	}
	return append(opts, client.WithClientCapabilities(declared))
}

// relay passes a server's requests to the client mcpctl serves. While one is under way the
// server is waiting on mcpctl's client (a user answering an elicitation, a model sampling), not
// hanging, and sends no progress: its calls' quiet waits are held (hold), so only their cap
// still runs. A relayed request waits at most that cap itself: a client that never answers must
// not hold a goroutine for good.
type relay struct{ s *Server }

func (r relay) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, done := r.s.hold(ctx)
	defer done()
	return r.s.opts.Client.CreateMessage(ctx, req)
}

func (r relay) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	ctx, done := r.s.hold(ctx)
	defer done()
	return r.s.opts.Client.Elicit(ctx, req)
}

func (r relay) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	ctx, done := r.s.hold(ctx)
	defer done()
	return r.s.opts.Client.ListRoots(ctx, req)
}

// hold holds the quiet waits of the server's requests under way until done, and bounds ctx by
// the cap of a call.
func (s *Server) hold(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithTimeout(ctx, s.callCap())
	s.mu.Lock()
	s.relaying++
	for d := range s.calls {
		d.hold(true)
	}
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.relaying--; s.relaying == 0 {
			for d := range s.calls {
				d.hold(false)
			}
		}
	}
}

// died reports whether the child has exited, giving it a moment to be reaped after its pipes
// closed.
func (s *Server) died(c *conn) bool {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.proc.exited:
		return true
	case <-t.C:
		return false
	}
}

func (s *Server) initialize(ctx context.Context, c *conn) (lists, error) {
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpctl", Version: s.opts.Version}
	res, err := c.client.Initialize(ctx, req)
	if err != nil {
		return lists{}, err
	}
	c.caps = res.Capabilities
	return s.list(ctx, c)
}

// onNotification handles the server's notifications on the connection's reader, which must
// not wait on a request: a list_changed only marks the lists for the run loop to fetch.
func (s *Server) onNotification(c *conn) func(mcp.JSONRPCNotification) {
	return func(n mcp.JSONRPCNotification) {
		switch mcp.MCPMethod(n.Method) {
		case mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationPromptsListChanged, mcp.MethodNotificationResourcesListChanged:
			select {
			case c.relist <- struct{}{}:
			default:
			}
		case mcp.MethodNotificationProgress:
			f := n.Params.AdditionalFields
			tok, _ := f["progressToken"].(string)
			s.mu.Lock()
			fn := s.progress[tok]
			s.mu.Unlock()
			if fn == nil {
				return
			}
			progress, _ := f["progress"].(float64)
			total, _ := f["total"].(float64)
			msg, _ := f["message"].(string)
			fn(progress, total, msg)
		}
	}
}

// list fetches everything the server offers, following every nextCursor.
func (s *Server) list(ctx context.Context, c *conn) (lists, error) {
	l := lists{toolOwn: map[string]string{}, promptOwn: map[string]string{}}
	if c.caps.Tools != nil {
		raw, err := s.listTools(ctx, c)
		if err != nil {
			return l, fmt.Errorf("tools/list: %w", err)
		}
		taken := map[string]bool{}
		for _, t := range raw {
			if !s.filter.allows(t.Name) {
				continue
			}
			own := t.Name
			t.Name = exposedName(s.name, own, taken)
			taken[t.Name] = true
			l.toolOwn[t.Name] = own
			l.tools = append(l.tools, Tool{Server: s.name, Own: own, Tool: t})
		}
		sort.Slice(l.tools, func(i, j int) bool { return l.tools[i].Tool.Name < l.tools[j].Tool.Name })
	}
	if c.caps.Prompts != nil {
		res, err := c.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			return l, fmt.Errorf("prompts/list: %w", err)
		}
		taken := map[string]bool{}
		for _, p := range res.Prompts {
			own := p.Name
			p.Name = exposedName(s.name, own, taken)
			taken[p.Name] = true
			l.promptOwn[p.Name] = own
			l.prompts = append(l.prompts, Prompt{Server: s.name, Own: own, Prompt: p})
		}
		sort.Slice(l.prompts, func(i, j int) bool { return l.prompts[i].Prompt.Name < l.prompts[j].Prompt.Name })
	}
	if c.caps.Resources != nil {
		res, err := c.client.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			return l, fmt.Errorf("resources/list: %w", err)
		}
		for _, r := range res.Resources {
			l.resources = append(l.resources, Resource{Server: s.name, Resource: r})
		}
		tres, err := c.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		switch {
		case errors.Is(err, mcp.ErrMethodNotFound):
			// A server with resources but no templates may not know the method.
		case err != nil:
			return l, fmt.Errorf("resources/templates/list: %w", err)
		default:
			for _, t := range tres.ResourceTemplates {
				l.templates = append(l.templates, ResourceTemplate{Server: s.name, Template: t})
			}
		}
	}
	return l, nil
}

// maxListPages bounds a list that never ends.
const maxListPages = 1000

// listTools lists the server's tools itself rather than through the client, whose tool type
// parses schemas into a struct that drops keywords it does not know ($defs, anyOf, ...): the
// upstream's schemas are kept as the JSON it sent.
func (s *Server) listTools(ctx context.Context, c *conn) ([]mcp.Tool, error) {
	var out []mcp.Tool
	seen := map[string]bool{"": true}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("more than %d pages", maxListPages)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		id := mcp.NewRequestId("mcpctl-list-" + strconv.FormatInt(s.listSeq.Add(1), 10))
		resp, err := c.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodToolsList), Params: params})
		if err != nil {
			return nil, transport.NewError(err)
		}
		if resp.Error != nil {
			return nil, resp.Error.AsError()
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			return nil, fmt.Errorf("reply does not parse: %w", err)
		}
		for _, raw := range res.Tools {
			t, err := decodeTool(raw)
			if err != nil {
				s.log.Warn("upstream tool skipped: its definition does not parse", "error", err)
				continue
			}
			out = append(out, t)
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("cursor %q repeated", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// decodeTool parses one tool definition, keeping its schemas as raw JSON.
func decodeTool(raw json.RawMessage) (mcp.Tool, error) {
	var schemas struct {
		Input  json.RawMessage `json:"inputSchema"`
		Output json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &schemas); err != nil {
		return mcp.Tool{}, err
	}
	var t mcp.Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		return mcp.Tool{}, err
	}
	if t.Name == "" {
		return mcp.Tool{}, errors.New("a tool without a name")
	}
	t.InputSchema, t.OutputSchema = mcp.ToolInputSchema{}, mcp.ToolOutputSchema{}
	t.RawInputSchema = schemas.Input
	if len(t.RawInputSchema) == 0 || string(t.RawInputSchema) == "null" {
		t.RawInputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(schemas.Output) > 0 && string(schemas.Output) != "null" {
		t.RawOutputSchema = schemas.Output
	}
	return t, nil
}
