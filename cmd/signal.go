package cmd

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is cancelled by SIGINT, SIGTERM or SIGHUP: how every long-running command
// stops. SIGHUP is what closing the terminal that runs Claude Code sends serve (it shares the
// client's process group); without a handler it killed serve on the spot, leaving a project
// server's children running and a write in the queue unanswered. SIGPIPE is caught, never
// acted on: without that, a write to a stdout or stderr whose reader has gone (a client that
// crashed) killed the process too, where it now fails and serve stops in order. A handler,
// unlike an ignored signal, is not inherited by the servers and stages serve starts. main and
// the tests' re-executed mcpctl both start Main with it.
func SignalContext() (context.Context, context.CancelFunc) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
