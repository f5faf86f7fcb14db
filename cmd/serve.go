package cmd

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
)

func runServe(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("serve", "mcpctl serve [--library DIR | --db FILE] [--queue DIR]",
		"Runs the stdio MCP server that Claude Code, Claude Desktop or Cursor start from .mcp.json.\n"+
			"Stdout carries only the protocol; logs go to stderr as JSON (LOG_LEVEL=debug|info|warn|error).\n"+
			"With nothing configured it serves the standalone library in $XDG_DATA_HOME/mcpctl/library,\n"+
			"creating it with a few sample prompts on first run.")
	lf := addLibraryFlags(fs)
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fs.usageError("unexpected argument %q", fs.Arg(0))
	}
	log := newLogger(env)
	lib, err := lf.resolve(ctx, env, true)
	if err != nil {
		log.Error("no library", "err", err)
		return err
	}
	return RunStdioServer(ctx, ServerConfig{
		Library:  lib,
		CacheDir: filepath.Join(cacheHome(env), "mcpctl"),
		Logger:   log,
	}, env.Stdin, env.Stdout)
}

// newLogger writes JSON lines to stderr at LOG_LEVEL (default info).
func newLogger(env Env) *slog.Logger {
	var level slog.Level
	switch strings.ToLower(env.Getenv("LOG_LEVEL")) {
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		level = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}
