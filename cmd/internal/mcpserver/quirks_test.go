package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Quirk 5: a call a before-hook answers (answerCall) reaches the chain under the name it was
// made with and is answered as an isError tool result, and the hidden tool it goes through is
// neither listed nor callable by a client. It relies on mcp-go looking the tool up by the
// request its hooks changed, and handing the middlewares and the handler that request's _meta
// unchanged: an upgrade that copies or re-encodes the request between them fails here.
func TestAnsweredCallKeepsItsName(t *testing.T) {
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(true), server.WithHooks(&server.Hooks{}))
	c := &core{srv: srv, log: slog.New(slog.DiscardHandler)}
	srv.GetHooks().AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) {
		if req.Params.Name == "db__query" {
			answerCall(req, "db", promptlib.Errorf(promptlib.CodeUpstreamUnavailable, "server db is down"))
		}
	})
	addAnswerTool(srv, c)
	srv.AddTool(mcp.NewTool("health_check"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	var seen []string
	srv.Use(restoreAnswered)
	srv.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			seen = append(seen, req.Params.Name)
			return next(ctx, req)
		}
	})
	call := func(id int, method string, params map[string]any) map[string]any {
		t.Helper()
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		raw, err := json.Marshal(srv.HandleMessage(context.Background(), msg))
		if err != nil {
			t.Fatal(err)
		}
		var resp map[string]any
		if err := json.Unmarshal(raw, &resp); err != nil {
			t.Fatal(err)
		}
		return resp
	}

	resp := call(1, "tools/call", map[string]any{"name": "db__query", "arguments": map[string]any{}})
	res, _ := resp["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), `"error":"UPSTREAM_UNAVAILABLE"`) {
		t.Errorf("the answered call: %v, want an isError result UPSTREAM_UNAVAILABLE", resp)
	}
	if len(seen) != 1 || seen[0] != "db__query" {
		t.Errorf("the chain saw the call as %q, want db__query", seen)
	}

	resp = call(2, "tools/list", map[string]any{})
	if strings.Contains(fmt.Sprint(resp["result"]), answerTool) {
		t.Errorf("tools/list shows the hidden tool: %v", resp["result"])
	}
	resp = call(3, "tools/call", map[string]any{"name": answerTool, "arguments": map[string]any{}})
	if e, _ := resp["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "unknown tool") {
		t.Errorf("a client's call to the hidden tool: %v, want an unknown tool error", resp)
	}
}
