package upstream

import (
	"context"
	"log/slog"
)

// transportLogger is the log mcp-go's client transport writes to for one server. Left alone it
// writes to slog.Default(): plain-text lines among serve's JSON ones, naming no server, at ERROR
// ("Error writing response: write |1: file already closed", when a server stopping asked the
// client something). What it reports, a pipe that broke, the supervisor also sees and says in
// its own words (the server is down, restarted, and why), so its records are kept at DEBUG.
func transportLogger(log *slog.Logger) *slog.Logger {
	return slog.New(debugHandler{log.With("component", "mcp-go").Handler()})
}

// debugHandler passes every record on at DEBUG.
type debugHandler struct{ h slog.Handler }

func (d debugHandler) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.h.Enabled(ctx, slog.LevelDebug)
}

func (d debugHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.h.Handle(ctx, r)
}

func (d debugHandler) WithAttrs(as []slog.Attr) slog.Handler { return debugHandler{d.h.WithAttrs(as)} }
func (d debugHandler) WithGroup(name string) slog.Handler    { return debugHandler{d.h.WithGroup(name)} }
