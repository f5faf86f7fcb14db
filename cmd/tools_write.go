package cmd

// STUB owned by the queue engineer: the write side of `mcpctl serve`.

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// writeSide is what the write side adds to a server: its tools, and a close func that stops
// whatever it started (the in-process processor) and waits for it.
type writeSide struct {
	tools []server.ServerTool
	close func()
}

// startWriteSide prepares the queue writer for d.lib (orphan cleanup), starts the in-process
// processor when the library is standalone (one per library, elected by flock), and returns the
// write tools (create_prompt, ..., get_operation_status) built with d.tool.
func startWriteSide(ctx context.Context, d *deps) (writeSide, error) {
	return writeSide{close: func() {}}, nil
}
