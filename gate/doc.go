// Package gate runs gated sessions over a prompt library: the project settings that scope and
// gate a session, the prompt index, the session state machine, tag matching with priorities and
// a byte budget, keyword extraction from intercepted tool calls, and the gate texts with their
// templates.
//
// Everything here is pure logic over values the caller supplies (a library snapshot, a project,
// tags, a tool call); the only I/O is reading project files. The MCP server wires it in:
//
//   - at start: LoadProject (or NoProject), NewIndex of the library snapshot, SystemTexts of the
//     same snapshot for a Renderer, and one NewSession (one process is one MCP session);
//   - on every library change: Index.Update and SystemTexts again, swapped in atomically
//     (an Index is immutable, so calls in flight keep the one they started with);
//   - initialize: Renderer.Instructions; begin_session's description: BeginSessionDescription;
//     tools/list: Session.ToolVisible;
//   - begin_session and read_prompts: Session.Begin and Session.Read, rendered with
//     Renderer.Briefing, returned with Briefing.Result as structured content;
//   - any other tool: Session.Intercept before running it; when it reports a briefing, its
//     rendering goes before the tool's own result;
//   - whenever a briefing has Ungated set: notifications/tools/list_changed.
package gate
