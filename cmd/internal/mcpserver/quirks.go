package mcpserver

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
