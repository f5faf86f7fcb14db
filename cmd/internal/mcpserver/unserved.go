package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// unserved stands in for what a session was started for but cannot serve. A client that
// cannot start a server shows its user "failed to connect" and nothing more, and the reason
// goes to a log file the user rarely finds; so serve runs and says what is wrong where the model
// and the user see it: in the initialize instructions, in health_check, and in the error every
// other tool answers (code). It serves nothing else.
type unserved struct {
	core    *core
	code    promptlib.Code
	what    string // what cannot be served, for the instructions
	problem string
}

// unservedProject is a project whose file is invalid or missing, or whose folder is not in the
// library: without it the session would work without the project's rules, unseen.
func unservedProject(c *core, problem string) unserved {
	return unserved{c, promptlib.CodeProjectUnavailable, "mcpctl cannot serve this session's project", problem}
}

// unservedLibrary is a library serve cannot open: no database where the flags, the environment
// or the defaults point (a --library path mistyped, a library never made), a file that is no
// library, one it may not read. The problem names the path looked at, what chose it and the
// command that fixes it; nothing else can be served without a library.
func unservedLibrary(c *core, problem string) unserved {
	return unserved{c, promptlib.CodeLibraryUnavailable, "mcpctl cannot open the prompt library it was started for", problem}
}

func (u unserved) instructions() string {
	return u.what + ": " + u.problem + " Until it is fixed only health_check works. Tell the user what is wrong and how to fix it."
}

// install makes srv serve health_check alone, and answer every other tool, begin_session,
// read_prompts and read_section among them (addStandIns), with the problem.
func (u unserved) install(srv *server.MCPServer) {
	addStandIns(srv, u.core)
	onlyHealthCheck(srv, u.core, promptlib.Errorf(u.code, "%s", u.problem))
}

// health is health_check's answer without a library: unhealthy, with the problem as the
// database's error, and the queue as it stands (a library whose file is damaged may still have
// one).
func (u unserved) health() HealthResult {
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
	h.Queue.Processor.State, h.Queue.Processor.Error = "none", promptlib.Ptr("no library is open, so nothing is applied")
	h.Search.Index, h.Search.Error = "unavailable", promptlib.Ptr("no library is open, so there is nothing to search")
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
