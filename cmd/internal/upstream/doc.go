// Package upstream runs a project's own MCP servers (DESIGN §10) as supervised children over
// stdio, each with an mcp-go client, and offers their tools, prompts and resources under the
// names mcpctl serves them by: tools and prompts as {server}__{name}, resources under their own
// URIs.
//
// A Supervisor starts every server in the background (Start returns at once), restarts one that
// dies with backoff, and kills each as a process group when it closes; on Linux a child also
// dies with mcpctl itself, even on SIGKILL. Calls wait for a server that is still starting, up
// to the call's timeout; a server that is down answers at once with an *UnavailableError, and a
// server that breaks the protocol with a *CallError. ToolError turns either into the
// promptlib.Error a tool result carries. The package knows nothing of the MCP server mcpctl
// itself runs: the caller registers what it lists and forwards what it calls.
package upstream
