package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
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

func (u unservedProject) install(srv *server.MCPServer) {
	onlyHealthCheck(srv, u.core, promptlib.Errorf(promptlib.CodeProjectUnavailable, "%s", u.problem))
}

// unservedLibrary stands in for a library serve cannot open: no database where the flags, the
// environment or the defaults point (a --library path mistyped, a library never made), a file
// that is no library, one it may not read. Exiting before the handshake left the user a
// client's "failed to connect" and the reason in a log file they rarely find; serving says it
// where the model reads it, with the path looked at, what chose it and the command that fixes
// it. Nothing else can be served without a library.
type unservedLibrary struct {
	core    *core
	problem string
}

func (u unservedLibrary) instructions() string {
	return "mcpctl cannot open the prompt library it was started for: " + u.problem +
		" Until it is fixed only health_check works. Tell the user what is wrong and how to fix it."
}

func (u unservedLibrary) install(srv *server.MCPServer) {
	onlyHealthCheck(srv, u.core, promptlib.Errorf(promptlib.CodeLibraryUnavailable, "%s", u.problem))
}

// health is health_check's answer without a library: unhealthy, with the problem as the
// database's error, and the queue as it stands (a library whose file is damaged may still have
// one).
func (u unservedLibrary) health() HealthResult {
	c := u.core
	h := c.healthHeader()
	h.Status, h.Database.Error, h.Queue.State = "unhealthy", promptlib.Ptr(u.problem), queue.DirMissing
	if c.lib.Queue != "" {
		var qerr error
		h.Queue.State, h.Queue.Pending, qerr = queue.CheckDir(c.lib.Queue)
		if qerr != nil {
			h.Queue.Error = promptlib.Ptr(classify(qerr).Message)
		}
	}
	const none = "no library is open, so nothing is applied"
	h.Queue.Processor.State, h.Queue.Processor.Error = "none", promptlib.Ptr(none)
	h.Search.Index, h.Search.Error = "unavailable", promptlib.Ptr(none)
	h.LLM, h.Project = c.cfg.LLMProblem, c.cfg.ProjectProblem
	return h
}

// addStandIns registers begin_session, read_prompts and read_section where srv lacks them, for
// a session that serves no project, or no library: one started for a project has its assistant
// call begin_session first, which must answer why it fails, not that no such tool exists.
// onlyHealthCheck refuses them before a handler would run, so they have none.
func addStandIns(srv *server.MCPServer, c *core) {
	for _, name := range []string{gate.ToolBeginSession, gate.ToolReadPrompts, toolReadSection} {
		if srv.GetTool(name) == nil {
			srv.AddTools(c.serverTool(tool{name: name}))
		}
	}
}

// onlyHealthCheck lists health_check alone and refuses every other tool call with refusal: at
// call time (mcp-go filters just the called tool) every tool passes the filter, as the gate's.
func onlyHealthCheck(srv *server.MCPServer, c *core, refusal *promptlib.Error) {
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
			return c.errorResult(ctx, refusal), nil
		}
	})
}
