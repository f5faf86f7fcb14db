package cmd

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is cancelled by SIGINT or SIGTERM: how every long-running command stops. main
// and the tests' re-executed mcpctl both start Main with it.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
