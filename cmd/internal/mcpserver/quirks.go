package mcpserver

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/promptlib"
)

// mcp-go's quirks, and how mcpctl works with them. Each has a test (quirks_test.go) that fails
// when an upgrade of mcp-go changes the behaviour it relies on.
//
//  1. Error codes. mcp-go reports every prompt and resource handler error as -32603 (internal);
//     the only -32602 (prompt) and -32002 (resource) it makes are for a name or URI it has no
//     handler for. So a request to refuse is steered, in a before-hook (mcp-go hands hooks the
//     request by pointer and uses it after), to a name or URI that cannot exist and that carries
//     the explanation between carrier marks; the wire then replaces mcp-go's whole message
//     ("prompt '…' not found: prompt not found") by the explanation alone. A tool name of no
//     one's gets mcp-go's "tool '…' not found: tool not found", and a URI of no one's its
//     "handler not found for resource URI '…'", which the wire rewrites to say what to do.
//  2. Lists. mcp-go keeps a registry entry per prompt and resource and sorts the whole registry
//     on every list call (≈1.5 KB and 50–150 ms per page at 100k prompts). mcpctl registers no
//     library prompt or resource: an after-hook fills each list page from the view's snapshot
//     (already in name order), and prompts/get reaches the library through one hidden router
//     prompt. Cursors keep mcp-go's form (base64 of the last name; a resource's name and URI,
//     as resource names may repeat) so its own cursor parsing
//     accepts them; one that is not base64 gets mcp-go's error, which the wire rewrites.
//  3. Params it cannot decode. mcp-go answers them (a prompt argument that is not a string, a
//     tool name that is a number) as -32600 with Go type names; the wire makes them -32602 in
//     JSON terms (paramsFault).
//  4. Tool visibility. mcp-go's tool filter also runs at call time; the gate's filter passes
//     every call through (it only narrows tools/list), because a real call while gated must run
//     and be briefed, not be refused (gate.go).
//  5. A tool call a before-hook must answer. A call to a project server's tool that mcp-go has
//     no handler for (the server was never ready, so none of its tools is registered) would be
//     -32602 (quirk 1), but a server that is down is no malformed request: it is a failure the
//     user can act on, an isError tool result (DESIGN §5), and a gated session's first call
//     carries the briefing like any failed call. So the hook points the call at one hidden
//     tool, answerTool, with the answer in the request's _meta; the chain's first middleware
//     (restoreAnswered) gives the call its name back, so that the gate, the pipeline and the
//     record see the tool called, and answerTool's handler returns the answer.

// Carrier marks around an explanation smuggled through an mcp-go not-found error.
const carrierOpen, carrierClose = "⟦mcpctl:", "⟧"

// invalidOpen opens an explanation that the wire sends as -32602 (invalid params) whatever code
// mcp-go gave it: a handler's error is always -32603 (quirk 1), but a project server that
// refused a prompt's arguments as invalid was asked wrongly, which is the client's to fix.
const invalidOpen = "⟦mcpctl-invalid:"

// carry wraps msg so the wire can recognise it in mcp-go's error message.
func carry(msg string) string { return carrierOpen + msg + carrierClose }

// carryInvalid wraps msg so the wire sends it as -32602.
func carryInvalid(msg string) string { return invalidOpen + msg + carrierClose }

// rewriteError turns an mcp-go error into the one the client should read, and reports whether
// it changed it.
func rewriteError(code int, msg string) (int, string, bool) {
	if i := strings.Index(msg, invalidOpen); i >= 0 {
		rest := msg[i+len(invalidOpen):]
		if j := strings.Index(rest, carrierClose); j >= 0 {
			return mcp.INVALID_PARAMS, rest[:j], true
		}
	}
	if i := strings.Index(msg, carrierOpen); i >= 0 {
		rest := msg[i+len(carrierOpen):]
		if j := strings.Index(rest, carrierClose); j >= 0 {
			return code, rest[:j], true
		}
	}
	if name, ok := strings.CutPrefix(msg, "tool '"); ok {
		if name, ok := strings.CutSuffix(name, "' not found: tool not found"); ok {
			return code, fmt.Sprintf("unknown tool '%s': this server has no tool of that name. Call tools/list for the tools this session can use.", name), true
		}
	}
	if uri, ok := strings.CutPrefix(msg, "handler not found for resource URI '"); ok {
		if uri, ok := strings.CutSuffix(uri, "': resource not found"); ok {
			if uri == "" {
				// No URI at all is a malformed request, not a resource that does not exist.
				return mcp.INVALID_PARAMS, "params.uri is required: the URI of a resource from resources/list or of a template from resources/templates/list", true
			}
			return code, fmt.Sprintf("unknown resource '%s': no resource of this session has this URI, and no template matches it. Call resources/list and resources/templates/list for what it serves.", uri), true
		}
	}
	if strings.Contains(msg, "illegal base64 data") {
		return code, "invalid cursor: pass the nextCursor of the previous page unchanged, or no cursor to start from the beginning", true
	}
	if code == mcp.INVALID_REQUEST && strings.HasPrefix(msg, "unparsable ") {
		return mcp.INVALID_PARAMS, "Invalid params: " + paramsFault(msg), true
	}
	return code, msg, false
}

// unmarshalFault is encoding/json's type error as mcp-go passes it on: the field path starts
// at params, after the Go struct names (embedded ones included) that lead to it.
var unmarshalFault = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field (?:\w+\.)*?(params(?:\.\S+)?) of type (.+)$`)

// paramsFault says in protocol terms what mcp-go's "unparsable" error found wrong. The wire has
// checked the envelope (JSON, method, id) before mcp-go saw it, so the fault is in the params:
// mcp-go calls it an invalid request (-32600) and names Go types.
func paramsFault(msg string) string {
	m := unmarshalFault.FindStringSubmatch(msg)
	if m == nil {
		// Never Go's own words (they name Go types): what is certain is where the fault is.
		method, _, _ := strings.Cut(strings.TrimPrefix(msg, "unparsable "), " ")
		return fmt.Sprintf("the params of %s do not have the types the method takes; see its definition in the MCP specification", method)
	}
	got, field, want := m[1], m[2], m[3]
	out := fmt.Sprintf("%s: %s where %s belongs", field, jsonKind(got), jsonKind(want))
	if field == "params.arguments" && strings.HasPrefix(msg, "unparsable "+string(mcp.MethodPromptsGet)) {
		out += "; a prompt's arguments are an object of strings"
	}
	return out
}

// jsonKind names, as JSON, a kind encoding/json reports or a Go type it wanted.
func jsonKind(kind string) string {
	switch {
	case kind == "bool":
		return "a boolean"
	case kind == "object" || kind == "array":
		return "an " + kind
	case kind == "number" || strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint") || strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "string" || strings.HasSuffix(kind, "Cursor"):
		return "a string"
	case strings.HasPrefix(kind, "mcp.") || strings.HasPrefix(kind, "struct"):
		return "an object"
	case kind == "map[string]string":
		return "an object of strings"
	case strings.HasPrefix(kind, "map["):
		return "an object"
	case strings.HasPrefix(kind, "[]"):
		return "an array"
	}
	return "a " + kind
}

// answerTool is the hidden tool a call answered by a before-hook is pointed at (quirk 5), and
// metaAnswer the key of its answer in the request's _meta.
const (
	answerTool = carrierOpen + "answer" + carrierClose
	metaAnswer = carrierOpen + "answer" + carrierClose
)

// hookAnswer is the answer to a call, the name it was made with, and the project server it was
// for ("" for none), which its record names.
type hookAnswer struct {
	name, upstream string
	err            *promptlib.Error
}

// answerCall points req at answerTool, to be answered with err as an isError tool result; the
// call was for the project server upstream, if not "".
func answerCall(req *mcp.CallToolRequest, upstream string, err *promptlib.Error) {
	if req.Params.Meta == nil {
		req.Params.Meta = &mcp.Meta{}
	}
	if req.Params.Meta.AdditionalFields == nil {
		req.Params.Meta.AdditionalFields = map[string]any{}
	}
	req.Params.Meta.AdditionalFields[metaAnswer] = hookAnswer{name: req.Params.Name, upstream: upstream, err: err}
	req.Params.Name = answerTool
}

// answered is the answer answerCall left in req, if any.
func answered(req mcp.CallToolRequest) (hookAnswer, bool) {
	if req.Params.Meta == nil {
		return hookAnswer{}, false
	}
	a, ok := req.Params.Meta.AdditionalFields[metaAnswer].(hookAnswer)
	return a, ok
}

// restoreAnswered is the chain's first tool middleware: a call answerCall pointed at answerTool
// gets its own name back.
func restoreAnswered(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a, ok := answered(req); ok && req.Params.Name == answerTool {
			req.Params.Name = a.name
		}
		return next(ctx, req)
	}
}

// addAnswerTool registers answerTool, which no list shows: its handler returns the answer the
// hook left, and a call made to its name by a client is a tool nobody offers. Install it after
// the hooks that answer calls.
func addAnswerTool(srv *server.MCPServer, c *core) {
	srv.GetHooks().AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) {
		if _, ok := answered(*req); req.Params.Name == answerTool && !ok {
			// A client's own call to the name (a _meta it sends holds JSON, never a hookAnswer).
			req.Params.Name = carry(fmt.Sprintf("unknown tool '%s': this server has no tool of that name. Call tools/list for the tools this session can use.", answerTool))
		}
	})
	srv.AddTools(server.ServerTool{
		Tool: mcp.NewTool(answerTool, mcp.WithDescription("mcpctl's answer to a call a hook refused; never listed")),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, ok := answered(req)
			if !ok { // the hook above refused it
				return nil, fmt.Errorf("%s called without an answer", answerTool)
			}
			if a.upstream != "" {
				rec := callFrom(ctx)
				rec.mu.Lock()
				rec.upstream = a.upstream
				rec.mu.Unlock()
			}
			return c.errorResult(ctx, a.err), nil
		},
	})
	// At call time mcp-go filters just the called tool, which passes (as the gate's filter).
	server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		if len(tools) == 1 {
			return tools
		}
		return slices.DeleteFunc(tools, func(t mcp.Tool) bool { return t.Name == answerTool })
	})(srv)
}

// routerPrompt is the one prompt registered with mcp-go: prompts/get for any library prompt is
// routed to it (routeArg carries the name asked for).
const (
	routerPrompt = carrierOpen + "router" + carrierClose
	routeArg     = carrierOpen + "name" + carrierClose
)

// route points a prompts/get for a library prompt at the router.
func route(req *mcp.GetPromptRequest) {
	if req.Params.Arguments == nil {
		req.Params.Arguments = map[string]string{}
	}
	req.Params.Arguments[routeArg] = req.Params.Name
	req.Params.Name = routerPrompt
}

// routed takes the library prompt's name back out of a routed request.
func routed(req *mcp.GetPromptRequest) {
	if name, ok := req.Params.Arguments[routeArg]; ok {
		req.Params.Name = name
		delete(req.Params.Arguments, routeArg)
	}
}

// askedPrompt is the name a prompts/get asked for, before or after route: the source a
// project's proxyModelOverrides name.
func askedPrompt(req mcp.GetPromptRequest) string {
	if name, ok := req.Params.Arguments[routeArg]; ok && req.Params.Name == routerPrompt {
		return name
	}
	return req.Params.Name
}

// cursorAfter decodes a list cursor into the last name the previous page held; "" starts at the
// beginning. mcp-go has refused a cursor that is not base64 before the after-hook runs.
func cursorAfter(c mcp.Cursor) string {
	b, err := base64.StdEncoding.DecodeString(string(c))
	if err != nil {
		return ""
	}
	return string(b)
}

func cursorOf(name string) mcp.Cursor {
	return mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(name)))
}

// installRouter registers the router prompt. It is in no list: prompts/list pages are filled
// from the snapshot (a prompt filter would hide it from prompts/get too, as mcp-go applies
// filters at get time).
func installRouter(srv *server.MCPServer, handler server.PromptHandlerFunc) {
	srv.AddPrompt(mcp.Prompt{Name: routerPrompt, Description: "routes prompts/get to the library"}, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		routed(&req)
		return handler(ctx, req)
	})
}
