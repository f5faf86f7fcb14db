// Package gate runs gated sessions over a prompt library: the project settings that scope and
// gate a session, the prompt index, the session state machine, tag matching with priorities and
// a byte budget, keyword extraction from intercepted tool calls, and the gate texts with their
// templates.
//
// Everything here is pure logic over values the caller supplies (a library snapshot, a project,
// tags, a tool call); the only I/O is reading project files. The MCP server in cmd wires it in:
// it builds an Index whenever the library changes, keeps one Session per process (one process is
// one MCP session over stdio), and renders Briefings into tool results.
package gate
