// Command mcpctl is a local MCP agent over a personal prompt library. See package cmd.
package main

import (
	"os"

	"github.com/mcpctl/mcpctl/cmd"
)

func main() {
	ctx, stop := cmd.SignalContext()
	code := cmd.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
