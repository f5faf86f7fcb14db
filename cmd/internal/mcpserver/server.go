// Package mcpserver is mcpctl's MCP server: the one library view, the request chain, and the
// components that register tools, prompts and resources on it — read tools, write tools, the
// gate of a project's session, and the library's prompts and resources.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/queue"
)

// Library is a resolved library: where its database and queue are, and who processes its queue.
type Library struct {
	Dir        string // the directory holding the database
	DB         string // prompts.db
	Queue      string // import-queue/
	Standalone bool   // mcpctl processes the queue (the marker file is present)
	Source     string // how it was found, for health_check and error messages
}

// Config is everything the server needs; `mcpctl serve` builds it from flags and environment,
// tests build it directly.
type Config struct {
	Library  Library
	Project  *gate.Project // nil: the whole library, not gated
	CacheDir string        // the search sidecar's home ($XDG_CACHE_HOME/mcpctl)
	// TrafficDir is where the session's traffic events go ($XDG_STATE_HOME/mcpctl/traffic);
	// "" writes none.
	TrafficDir string
	// TraceContent puts payloads into traffic events, not only their lengths.
	TraceContent bool
	Version      string
	Logger       *slog.Logger
	// Upstream is how the project's servers are started (their directory, the environment
	// ${VAR} expands from); Untrusted, when set, says why they are not started at all (a
	// repository's project file nobody has trusted yet) and which command trusts it.
	Upstream  upstream.Options
	Untrusted string
	// LLMProblem, when set, says what is wrong with the LLM's config.yaml, which serve runs
	// without (for health_check).
	LLMProblem string
	// ProjectProblem, when set, says why the project serve was started for cannot be served,
	// and what fixes it: the session then serves health_check alone (unservedProject), with
	// Project nil.
	ProjectProblem string
	// LibraryProblem, when set, says why the library cannot be opened and what fixes it: the
	// session then serves health_check alone (unservedLibrary), with no project, and opens
	// nothing. Run returns ErrOpenLibrary instead when it finds the library unopenable itself.
	LibraryProblem string
	// Pipeline runs the content pipelines; nil serves content unchanged.
	Pipeline *pipeline.Engine
	// Reranker, with a project, re-ranks each briefing's candidates (an LLM, DESIGN §9); nil
	// keeps the gate deterministic.
	Reranker gate.Reranker
}

// core is what every component shares: the configuration, the library and its view, the MCP
// server they register on.
type core struct {
	cfg     Config
	lib     Library
	db      *dbread.DB
	view    *view
	srv     *server.MCPServer
	log     *slog.Logger
	started time.Time
	up      *upstreams       // nil without upstream servers
	pipe    *contentPipeline // nil without a pipeline engine
	// proc is the state of a standalone library's in-process processor.
	proc queue.ProcessorStatus
}

// Server is an assembled MCP server, ready to serve one session over stdio.
type Server struct {
	core
	gate    *gateComponent // nil without a project
	obs     *observer
	closers []func()
}

// ErrOpenLibrary is what Run and New return when the library's database cannot be opened. They
// return it before anything is read from in, so the caller can run the session again with
// Config.LibraryProblem saying why.
var ErrOpenLibrary = errors.New("open the library")

// Run serves MCP over in/out until ctx ends or in closes. Nothing but JSON-RPC is ever written
// to out; logs go to cfg.Logger.
func Run(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Serve(ctx, in, out)
}

// New assembles the server: the library reader and its view, then each component in the order
// the request chain needs them. Close undoes it all, in reverse, and waits for every goroutine
// it started.
func New(ctx context.Context, cfg Config) (_ *Server, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.LibraryProblem != "" {
		cfg.Project, cfg.Untrusted = nil, ""
	}
	s := &Server{core: core{cfg: cfg, lib: cfg.Library, log: cfg.Logger, started: time.Now()}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if cfg.LibraryProblem != "" {
		return s, s.serveNoLibrary()
	}

	// The busy timeout stays below the shortest tool timeout (get_prompt, 1 s), so a library the
	// app holds locked is reported as DATABASE_LOCKED rather than as a generic timeout.
	s.db, err = dbread.Open(ctx, cfg.Library.DB, dbread.Options{CacheDir: cfg.CacheDir, Logger: cfg.Logger, BusyTimeout: 800 * time.Millisecond})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpenLibrary, err)
	}
	s.closers = append(s.closers, func() { s.db.Close() })

	if s.obs, err = newObserver(cfg, s.log); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.obs.close)
	s.srv = newMCPServer(cfg)
	s.view = newView(s.db, cfg.Project, s.log)
	if cfg.CacheDir != "" {
		// A session starts from the view its last run kept. A project's view is its own (its
		// scope and the gate's documents), and so is one made under other pipeline settings
		// (the documents hold their tables of contents' sizes).
		key := cfg.Library.DB
		if cfg.Project != nil {
			key += "\x00project\x00" + cfg.Project.Name + "\x00" + cfg.Project.Folder + "\x00" + gate.DocFormat
			if cfg.Pipeline != nil {
				key += "\x00" + cfg.Pipeline.ConfigKey()
			}
		}
		s.view.keep, s.view.keepDB = viewFile(cfg.CacheDir, key), key
	}

	tools := newReadTools(&s.core).tools()
	w, err := newWriteTools(ctx, &s.core)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, w.close)
	tools = append(tools, w.tools()...)
	s.srv.AddTools(tools...)

	if cfg.Project != nil {
		names := make([]string, 0, len(tools)+1)
		for _, t := range tools {
			names = append(names, t.Tool.Name)
		}
		s.gate = newGateComponent(&s.core, *cfg.Project, append(names, gate.ToolReadPrompts))
	}
	if cfg.Pipeline != nil {
		s.pipe = newContentPipeline(&s.core, cfg.Pipeline)
		if cfg.Project != nil {
			s.view.tocOf = s.pipe.tocOf
		}
		if s.pipe.makesSections() {
			s.srv.AddTools(s.pipe.readSectionTool())
		}
	}
	if cfg.Project != nil && len(cfg.Project.Servers) > 0 && cfg.Untrusted == "" {
		opts := cfg.Upstream
		opts.Logger, opts.Version = s.log, cfg.Version
		s.up = newUpstreams(ctx, &s.core, opts)
		s.closers = append(s.closers, s.up.close)
	}
	if cfg.Untrusted != "" {
		s.log.Warn("project servers not started", "reason", cfg.Untrusted)
		if cfg.Project != nil && len(cfg.Project.Servers) > 0 {
			s.srv.GetHooks().AddBeforeCallTool(s.untrustedCall)
			addAnswerTool(s.srv, &s.core)
		}
	}
	if cfg.ProjectProblem == "" {
		// A project not served serves no prompts or resources: without it, they would be the
		// whole library's, where the project's sessions see only its folder.
		ps := newPromptSurface(s.srv, s.view, s.log)
		ps.up = s.up
		if cfg.Untrusted != "" {
			ps.untrusted = s.untrustedName
		}
	}
	chain(s.srv, s.obs, s.gate, s.pipe)
	if cfg.ProjectProblem != "" {
		unservedProject(&s.core, cfg.ProjectProblem).install(s.srv)
	}

	// A project's first load (or its kept view) comes before serving: the initialize
	// instructions carry its index. Without one, initialize never waits for the library.
	stopView, err := s.view.start(ctx, cfg.Project != nil)
	if err != nil {
		if cfg.Project.File != "" {
			return nil, fmt.Errorf("project %s (%s): %w", cfg.Project.Name, cfg.Project.File, err)
		}
		return nil, fmt.Errorf("project %s: %w", cfg.Project.Name, err)
	}
	s.closers = append(s.closers, stopView)
	if s.gate != nil {
		s.gate.install()
	}
	// Every tool registered by now (read_section too); a project's servers add theirs later.
	s.log.Info("serving", "library", cfg.Library.Dir, "mode", s.mode(), "source", cfg.Library.Source, "tools", len(s.srv.ListTools()))
	return s, nil
}

// newMCPServer is the MCP server every session registers on, with the capabilities a client
// sees at initialize.
func newMCPServer(cfg Config) *server.MCPServer {
	return server.NewMCPServer("mcpctl", cfg.Version,
		server.WithToolCapabilities(true),
		server.WithPromptCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithCompletions(),
		server.WithHooks(&server.Hooks{}),
		server.WithRecovery(),
		server.WithInstructions(instructionsFor(cfg)),
		server.WithToolFilter(declareResultSize),
	)
}

// serveNoLibrary assembles the session of a library that cannot be opened (Config.LibraryProblem):
// the library's tools (and the gate's and the pipeline's, unserved.install), so that a call to
// any of them answers with the problem rather than as a tool nobody knows, behind the observer,
// and no reader, queue, view, gate or pipeline.
func (s *Server) serveNoLibrary() error {
	var err error
	if s.obs, err = newObserver(s.cfg, s.log); err != nil {
		return err
	}
	s.closers = append(s.closers, s.obs.close)
	s.srv = newMCPServer(s.cfg)
	// No handler but health_check's runs (unservedLibrary refuses the others first), and none
	// of them touches the library before it runs.
	s.srv.AddTools(append(newReadTools(&s.core).tools(), (&writeTools{core: &s.core}).tools()...)...)
	chain(s.srv, s.obs, nil, nil)
	unservedLibrary(&s.core, s.cfg.LibraryProblem).install(s.srv)
	s.log.Info("serving without a library: only health_check works until it is fixed", "library", s.lib.DB, "source", s.lib.Source)
	return nil
}

// Serve answers one session over in/out until ctx ends or in closes.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	// Every tool call holds a worker until it answers: a write to a Prompteka library whose
	// app is not running waits up to ~18 s, a project server's call up to its timeout (and
	// maxServerCalls of them at once). mcp-go's most workers (idle ones cost a parked goroutine),
	// so that slow calls never hold up the read tools; and a queue past any client's burst, as a
	// full one makes mcp-go run calls on its read loop, where they block every request after.
	stdio := server.NewStdioServer(s.srv)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(100)(stdio)
	server.WithQueueSize(1000)(stdio)
	w := s.obs.wire(in, out)
	err := stdio.Listen(ctx, w.in(), w.out())
	w.close()
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	s.log.Info("stopped", "uptimeSeconds", time.Since(s.started).Seconds())
	return err
}

// Close stops every component, in reverse order of assembly, and waits for them.
func (s *Server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

func (c *core) mode() string {
	if c.lib.Standalone {
		return "standalone"
	}
	return "prompteka"
}

// instructionsFor is what initialize says without a project's gate (which writes its own).
func instructionsFor(cfg Config) string {
	if cfg.LibraryProblem != "" {
		return unservedLibrary(nil, cfg.LibraryProblem).instructions()
	}
	if cfg.ProjectProblem != "" {
		return unservedProject(nil, cfg.ProjectProblem).instructions()
	}
	return instructions
}

const instructions = `mcpctl serves the user's prompt library (Prompteka). Use search_prompts to find prompts by words, ` +
	`list_folders and list_prompts to browse, get_prompt to read one in full. Ids are UUIDs returned by these tools.`
