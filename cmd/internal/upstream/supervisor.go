package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
)

// Options tune a Supervisor; the zero value is the production setting.
type Options struct {
	Logger  *slog.Logger        // where servers' stderr and lifecycle go; default slog.Default()
	Dir     string              // the base of a relative cwd, and the cwd when none is given; "" = mcpctl's
	Environ []string            // the environment children inherit; default os.Environ()
	Getenv  func(string) string // what ${VAR} in env values expands from; default os.Getenv
	Version string              // mcpctl's version, sent in initialize
	// Project is the project file whose servers these are; each child finds it at the end of
	// ParentEnv.
	Project string

	// Client, when set, is the client mcpctl serves: a server may send it sampling, elicitation
	// and roots requests through mcpctl, as far as the client declared it takes them.
	Client Client

	MinBackoff time.Duration // the first restart delay; default 1 s
	MaxBackoff time.Duration // the longest restart delay; default 30 s
	StopGrace  time.Duration // how long a child has after SIGTERM before SIGKILL; default 2 s

	maxLine int // the most one message from a server may take; default maxLine (tests lower it)
}

func (o *Options) fill() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	o.MaxBackoff = max(o.MaxBackoff, o.MinBackoff)
	if o.StopGrace <= 0 {
		o.StopGrace = 2 * time.Second
	}
	if o.maxLine <= 0 {
		o.maxLine = maxLine
	}
}

// Client is the MCP client mcpctl serves. A project's server talks to mcpctl as its client; the
// requests it sends its client are relayed to this one, and mcpctl declares to the server only
// what this client declared, so a server that needs what the client lacks knows it up front
// (and may leave out the tools that need it) rather than failing mid-call.
type Client interface {
	// Capabilities are what the client declared in initialize; read at each server's start.
	Capabilities() mcp.ClientCapabilities
	CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error)
}

// BaseDir is the directory a project's servers run in by default and their relative cwd is
// taken from: the repository for a .mcpctl/project.yaml, else the project file's directory.
func BaseDir(p gate.Project) string {
	return projectBase(p.File)
}

// Supervisor runs a project's servers. Its methods are safe for concurrent use.
type Supervisor struct {
	servers map[string]*Server
	names   []string // sorted

	mu       sync.Mutex
	onChange []func()
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	started  bool
}

// New prepares a supervisor for the project's servers; nothing runs before Start.
func New(servers map[string]gate.ServerSpec, opts Options) *Supervisor {
	opts.fill()
	s := &Supervisor{servers: map[string]*Server{}}
	for name, spec := range servers {
		s.servers[name] = newServer(name, spec, &opts, s.fireChange)
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	return s
}

// Start starts every server in the background and returns at once: a server's process start,
// initialize and first lists happen on its own goroutine, and OnChange fires when it is ready.
// The servers run until Close (or ctx ends). Starting twice, or after Close, does nothing.
func (s *Supervisor) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	for _, name := range s.names {
		srv := s.servers[name]
		srv.setState(Starting, nil) // so a call made right after Start waits for it
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			srv.run(ctx)
		}()
	}
}

// Close stops every server (stdin closed, SIGTERM to its process group, SIGKILL after the
// grace) and returns once all are reaped. Safe to call more than once, and without Start.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	s.started = true // no Start after Close
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
	return nil
}

// OnChange registers f, called whenever a server's tools, prompts or resources come or go: it
// became ready, it died, or it sent list_changed and was listed again. f may run concurrently for
// different servers and must not block; it may call the supervisor's methods.
func (s *Supervisor) OnChange(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, f)
}

func (s *Supervisor) fireChange() {
	s.mu.Lock()
	fs := append([]func(){}, s.onChange...)
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// RootsChanged tells every running server that the client's roots changed
// (notifications/roots/list_changed), so that those that asked for them ask again. Each is
// told on its own goroutine, within its timeout: the caller is the client's read loop, which a
// server not reading its stdin would otherwise stall for every request.
func (s *Supervisor) RootsChanged(ctx context.Context) {
	ctx = context.WithoutCancel(ctx) // the notification's context ends with its handler
	for _, name := range s.names {
		srv := s.servers[name]
		srv.mu.Lock()
		c := srv.conn
		srv.mu.Unlock()
		if c != nil && c.roots {
			go func() {
				ctx, cancel := context.WithTimeout(ctx, srv.timeout)
				defer cancel()
				if err := c.client.RootListChanges(ctx); err != nil {
					srv.log.Warn("upstream: roots list_changed not passed on", "error", err)
				}
			}()
		}
	}
}

// Servers are the project's servers, sorted by name.
func (s *Supervisor) Servers() []*Server {
	out := make([]*Server, len(s.names))
	for i, n := range s.names {
		out[i] = s.servers[n]
	}
	return out
}

// Server is the server called name, or nil.
func (s *Supervisor) Server(name string) *Server { return s.servers[name] }

// States are every server's status, sorted by name: what health_check reports.
func (s *Supervisor) States() []Status {
	out := make([]Status, len(s.names))
	for i, n := range s.names {
		out[i] = s.servers[n].State()
	}
	return out
}

// Owner is the server that serves a tool or prompt called name (server__own), whether or not it
// is running now; ok is false for a name that is not an upstream's.
func (s *Supervisor) Owner(name string) (srv *Server, ok bool) {
	server, ok := splitName(name)
	if !ok {
		return nil, false
	}
	srv = s.servers[server]
	return srv, srv != nil
}

// CallTool calls the upstream tool served as name; see Server.CallTool. A name of no server
// of the project gives ErrUnknown.
func (s *Supervisor) CallTool(ctx context.Context, name string, args any, progress ProgressFunc) (*mcp.CallToolResult, error) {
	srv, ok := s.Owner(name)
	if !ok {
		return nil, fmt.Errorf("%w: no server of the project serves tool %s", ErrUnknown, name)
	}
	return srv.CallTool(ctx, name, args, progress)
}

// GetPrompt gets the upstream prompt served as name; see Server.GetPrompt.
func (s *Supervisor) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	srv, ok := s.Owner(name)
	if !ok {
		return nil, fmt.Errorf("%w: no server of the project serves prompt %s", ErrUnknown, name)
	}
	return srv.GetPrompt(ctx, name, args)
}
