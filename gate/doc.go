// Package gate runs gated sessions over a prompt library: the project settings that scope and
// gate a session, the prompt index, the session state machine, ranking with priorities, synonyms
// and a byte budget, keywords from intercepted tool calls, and the gate texts with their
// templates.
//
// Everything here is pure logic over values the caller supplies (Docs of the prompts, a project,
// tags, a tool call); the only I/O is reading project files, and prompt bodies come through a
// Bodies loader only for what a briefing sends in full. The MCP server wires it in:
//
//   - at start: LoadProject (or NoProject); from its one library view NewScope, a Doc per visible
//     prompt (NewDoc, cached while the prompt is unchanged), NewIndex of the Docs, SystemTexts of
//     the system prompts for a Renderer, and one NewSession (one process is one MCP session);
//   - on every library change: new Docs for the changed prompts only, NewIndex and SystemTexts
//     again, swapped in atomically (an Index is immutable, so calls in flight keep theirs);
//   - initialize: Renderer.Instructions; begin_session's description: BeginSessionDescription;
//     tools/list: Session.ToolVisible;
//   - begin_session and read_prompts: Session.Begin and Session.Read, rendered with
//     Renderer.Briefing and a Bodies loader, returned with Briefing.Result as structured content;
//   - any other tool: Session.Intercept before running it; when it reports a briefing, its
//     rendering, less what the tool's result carries in full (Briefing.Without), goes before
//     that result; what any result carries in full is Session.Received, so no later briefing
//     sends it again;
//   - whenever a briefing has Ungated set: notifications/tools/list_changed.
//
// LibraryIndex and LibraryBodies compose the same from a library in memory, for the CLI and
// tests. Explain says why each prompt was sent, named or left out; a Reranker (LLMReranker over
// the configured chat model, set with Session.SetReranker) may choose among the candidates and
// the best matches below the relevance floor, through SelectReranked, time-boxed and cached, the
// deterministic selection as its fallback; what it does not choose is named, not sent.
package gate
