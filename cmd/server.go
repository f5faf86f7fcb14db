package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
)

// ServerConfig is everything the MCP server needs; serve builds it from flags and environment,
// tests build it directly.
type ServerConfig struct {
	Library  Library
	Project  *gate.Project // nil: the whole library, not gated
	CacheDir string        // the search sidecar's home ($XDG_CACHE_HOME/mcpctl)
	Logger   *slog.Logger
}

// deps is what tool, prompt and resource handlers share for one server.
type deps struct {
	cfg     ServerConfig
	lib     Library
	db      *dbread.DB
	log     *slog.Logger
	started time.Time
	srv     *server.MCPServer
	gate    *gateSide // nil without a project

	calls  sync.Map // *mcp.CallToolResult → callInfo, for the call's log line
	starts sync.Map // request id → start time
}

// RunStdioServer serves MCP over in/out until ctx ends or in closes. Nothing but JSON-RPC is
// ever written to out; logs go to cfg.Logger.
func RunStdioServer(ctx context.Context, cfg ServerConfig, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d, stop, err := newServer(ctx, cfg)
	if err != nil {
		return err
	}
	defer stop()
	// Writes to a Prompteka library whose app is not running wait up to ~18 s each; enough
	// workers that a few of those never hold up the read tools.
	stdio := server.NewStdioServer(d.srv)
	stdio.SetErrorLogger(slog.NewLogLogger(d.log.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(16)(stdio)
	err = stdio.Listen(ctx, in, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	d.log.Info("stopped", "uptimeSeconds", time.Since(d.started).Seconds())
	return err
}

// newServer assembles the MCP server: the library reader, the read and write tools, the gate
// for a project, and the library's prompts and resources. stop undoes it all, in reverse, and
// waits for every goroutine it started.
func newServer(ctx context.Context, cfg ServerConfig) (_ *deps, _ func(), err error) {
	started := time.Now()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var stops []func()
	cleanup := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()

	// The busy timeout stays below the shortest tool timeout (get_prompt, 1 s), so a library the
	// app holds locked is reported as DATABASE_LOCKED rather than as a generic timeout.
	db, err := dbread.Open(ctx, cfg.Library.DB, dbread.Options{CacheDir: cfg.CacheDir, Logger: cfg.Logger, BusyTimeout: 800 * time.Millisecond})
	if err != nil {
		return nil, nil, fmt.Errorf("open the library: %w", err)
	}
	stops = append(stops, func() { db.Close() })
	d := &deps{cfg: cfg, lib: cfg.Library, db: db, log: cfg.Logger, started: started}

	hooks := &server.Hooks{}
	d.logCalls(hooks)
	d.srv = server.NewMCPServer("mcpctl", version(),
		server.WithToolCapabilities(true),
		server.WithPromptCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithCompletions(),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithInstructions(instructions),
	)

	ws, err := startWriteSide(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	stops = append(stops, ws.close)
	tools := append(d.readTools(), ws.tools...)
	d.srv.AddTools(tools...)

	if cfg.Project != nil {
		names := make([]string, 0, len(tools)+1)
		for _, t := range tools {
			names = append(names, t.Tool.Name)
		}
		if d.gate, err = newGateSide(ctx, d, *cfg.Project, append(names, gate.ToolReadPrompts)); err != nil {
			return nil, nil, err
		}
		d.gate.install()
		stops = append(stops, d.gate.follow(ctx))
	}

	stopSurface, err := startPromptSurface(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	stops = append(stops, stopSurface)

	d.log.Info("serving", "library", cfg.Library.Dir, "mode", d.mode(), "source", cfg.Library.Source, "tools", len(tools))
	return d, cleanup, nil
}

func (d *deps) mode() string {
	if d.lib.Standalone {
		return "standalone"
	}
	return "prompteka"
}

const instructions = `mcpctl serves the user's prompt library (Prompteka). Use search_prompts to find prompts by words, ` +
	`list_folders and list_prompts to browse, get_prompt to read one in full. Ids are UUIDs returned by these tools.`
