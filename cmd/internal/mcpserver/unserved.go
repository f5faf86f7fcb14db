package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/promptlib"
)

// unservedProject stands in for a project serve was started for but cannot serve: its file is
// invalid or missing, or its folder is not in the library. A client that cannot start a server
// shows its user "failed to connect" and nothing more, so serve runs and says what is wrong
// where the model and the user see it: in the initialize instructions, in health_check, and in
// the error every other tool answers. It serves nothing else, since without the project the
// session would work without its rules, unseen.
type unservedProject struct {
	core    *core
	problem string
}

func (u unservedProject) instructions() string {
	return "mcpctl cannot serve this session's project: " + u.problem +
		" Until it is fixed only health_check works. Tell the user what is wrong and how to fix it."
}

// install lists health_check alone and refuses every other tool call, with the problem: at
// call time (mcp-go filters just the called tool) every tool passes the filter, as the gate's.
func (u unservedProject) install(srv *server.MCPServer) {
	server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		if len(tools) == 1 {
			return tools
		}
		out := tools[:0:0]
		for _, t := range tools {
			if t.Name == "health_check" {
				out = append(out, t)
			}
		}
		return out
	})(srv)
	srv.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Name == "health_check" {
				return next(ctx, req)
			}
			return u.core.errorResult(ctx, promptlib.Errorf(promptlib.CodeProjectUnavailable, "%s", u.problem)), nil
		}
	})
}
