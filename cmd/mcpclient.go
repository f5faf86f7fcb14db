package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
)

// The tool results the demo (and the end-to-end tests) decode.
type (
	toolError  = mcpserver.ToolError
	foldersOut = mcpserver.FoldersResult
	promptsOut = mcpserver.PromptsResult
	healthOut  = mcpserver.HealthResult
	writeOut   = mcpserver.WriteResult
	folderOut  = mcpserver.FolderResult
)

// dialServer starts `bin serve args...` as a child process and connects an MCP client to it
// over stdio, pinned to the protocol revision real clients use. The caller closes the client,
// which ends the child.
func dialServer(ctx context.Context, bin string, env []string, stderr io.Writer, args ...string) (*client.Client, *mcp.InitializeResult, error) {
	return dialServerNotify(ctx, bin, env, stderr, nil, nil, args...)
}

// dialServerNotify is dialServer with a notification handler installed before the handshake,
// so no notification is missed, and a hook that sees the child's command once it is built.
func dialServerNotify(ctx context.Context, bin string, env []string, stderr io.Writer,
	onNotify func(mcp.JSONRPCNotification), onCmd func(*exec.Cmd), args ...string) (*client.Client, *mcp.InitializeResult, error) {
	// env is the child's whole environment (the default would add ours), so tests are hermetic.
	exact := transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		c := exec.CommandContext(ctx, command, args...)
		c.Env = env
		if onCmd != nil {
			onCmd(c)
		}
		return c, nil
	})
	t := transport.NewStdioWithOptions(bin, env, append([]string{"serve"}, args...), exact, transport.WithCommandStderrWriter(stderr))
	// The child lives until the client is closed, not until ctx (which bounds the handshake) ends.
	if err := t.Start(context.Background()); err != nil {
		return nil, nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	c := client.NewClient(t, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if onNotify != nil {
		c.OnNotification(onNotify)
	}
	if err := c.Start(ctx); err != nil {
		c.Close()
		return nil, nil, err
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpctl-demo", Version: version()}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("initialize: %w", err)
	}
	return c, init, nil
}

// callTool calls a tool and decodes its structured result (or, for an error result, the error
// body) into out.
func callTool(ctx context.Context, c *client.Client, name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if out == nil {
		return res, nil
	}
	var raw []byte
	if res.IsError || res.StructuredContent == nil {
		if len(res.Content) > 0 {
			if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
				raw = []byte(tc.Text)
			}
		}
	} else if raw, err = json.Marshal(res.StructuredContent); err != nil {
		return res, err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return res, fmt.Errorf("%s: decode result: %w", name, err)
	}
	return res, nil
}
