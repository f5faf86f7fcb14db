package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// gateComponent is the gated-session layer of a server that serves a project: the prompt index,
// the session's state machine, the begin_session and read_prompts tools, and the intercept of
// real tool calls while gated (the chain's gate stage).
//
// One process is one MCP session over stdio, so one gate.Session serves it. mcp-go has no
// per-session tool lists over stdio: a tool filter shows what the session may see, and the
// list_changed notification is sent explicitly when the session ungates.
type gateComponent struct {
	*core
	project gate.Project
	sess    *gate.Session
	state   atomic.Pointer[gateState]
	tools   []string // mcpctl's own tools listed once ungated, for the briefing's {{tools}}
}

// renderer is st's renderer with the tools open now: mcpctl's own by name, read_section when
// listed, and each project server's as its prefix and count. The servers start after the gate
// is made and come and go, so this is asked at each briefing; by name, 36 tools of three
// servers would cost a briefing half a kilobyte of its budget, and tools/list names them.
func (g *gateComponent) renderer(st *gateState) gate.Renderer {
	r := st.r
	r.Tools = slices.Clone(g.tools)
	if g.pipe != nil && g.pipe.makesSections() {
		r.Tools = append(r.Tools, toolReadSection)
	}
	if g.up != nil {
		r.Tools = append(r.Tools, g.up.toolEntries()...)
	}
	return r
}

// gateState is what the gate derives from one snapshot of the library view.
type gateState struct {
	ix *gate.Index
	r  gate.Renderer
}

// newGateComponent subscribes the gate to the library view; install registers it once the first
// snapshot is in.
func newGateComponent(c *core, p gate.Project, tools []string) *gateComponent {
	g := &gateComponent{core: c, project: p, sess: gate.NewSession(p), tools: tools}
	// A re-ranking is time-boxed inside the Reranker and falls back to the deterministic order,
	// so a slow or failing model delays a briefing but never fails it.
	g.sess.SetReranker(c.cfg.Reranker)
	c.view.subscribe(g.update)
	return g
}

// update rebuilds the index and the gate texts from a new snapshot, and begin_session's
// description (which carries the index) when it changed while the tool is listed.
func (g *gateComponent) update(prev, next *snapshot) {
	before := g.state.Load()
	var ix *gate.Index
	if before != nil && prev != nil && sameDocs(prev.docs, next.docs) {
		ix = before.ix // the view shares the documents of an unchanged library: so is the index
	} else {
		ix = gate.NewIndex(next.docs, g.project)
		if u := ix.UnknownPriorities(); len(u) > 0 {
			g.log.Warn("project priorities name prompts that do not exist", "project", g.project.Name, "names", u)
		}
	}
	r := gate.Renderer{Texts: gate.SystemTexts(next.system), Tools: g.tools}
	if g.pipe != nil {
		r.TOC = g.pipe.toc
	}
	g.state.Store(&gateState{ix: ix, r: r})
	// Re-adding the tool tells the client its list changed; once the session is open
	// begin_session is hidden for good, and a new description changes nothing it lists.
	if before != nil && g.sess.ToolVisible(gate.ToolBeginSession) && gate.BeginSessionDescription(before.ix) != gate.BeginSessionDescription(ix) {
		g.srv.AddTools(g.beginSessionTool(ix))
	}
}

func (g *gateComponent) current() *gateState { return g.state.Load() }

// sameDocs reports whether two snapshots share one slice of documents.
func sameDocs(a, b []gate.Doc) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// install adds the gate's tools, the tool filter and the instructions to the server, before it
// serves and after the first snapshot.
func (g *gateComponent) install() {
	g.srv.AddTools(g.beginSessionTool(g.current().ix), g.readPromptsTool())
	server.WithToolFilter(g.filterTools)(g.srv)
	g.srv.GetHooks().AddAfterInitialize(func(ctx context.Context, id any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		st := g.current()
		r := g.renderer(st)
		r.Note = untrustedNote(g.cfg.Project, g.cfg.Untrusted)
		text, unknown := r.Instructions(st.ix, g.sess.Gated())
		g.logUnknown(unknown)
		res.Instructions = text
	})
}

// filterTools shows, at list time, what the session may use now. At call time (mcp-go passes
// just the called tool) every tool passes: a call to a real tool while gated is not refused but
// intercepted, so clients that skip begin_session still get their briefing.
func (g *gateComponent) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if len(tools) == 1 {
		return tools
	}
	out := tools[:0:0]
	for _, t := range tools {
		if g.sess.ToolVisible(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// intercept runs a real tool called while the session is gated, and puts the briefing built
// from the call's keywords before its result; then the session is ungated. Of every tool call it
// records the prompts the result carries in full, so no briefing sends them again.
func (g *gateComponent) intercept(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.Params.Name
		if name == gate.ToolBeginSession || name == gate.ToolReadPrompts {
			return next(ctx, req)
		}
		ctx = recorded(ctx)
		if !g.sess.Gated() {
			res, err := next(ctx, req)
			g.received(ctx)
			return res, err
		}
		args, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			args = nil
		}
		st := g.current()
		b, ok := g.sess.InterceptContext(ctx, st.ix, name, args)
		res, err := next(ctx, req)
		if !ok {
			g.received(ctx)
			return res, err
		}
		carried := g.carried(ctx)
		chosen := b
		b = b.Without(carried)
		// The session is ungated and the briefing's prompts count as sent: the briefing must
		// reach the model even when the tool failed.
		if err != nil || res == nil {
			msg := "the tool returned no result"
			if err != nil {
				msg = err.Error()
			}
			res = mcp.NewToolResultError(msg)
		}
		r := g.renderer(st)
		// The briefing and the result are one tool result, bounded like any other: first the
		// briefing's lines naming prompts are cut, then it names its last matches instead of
		// sending them, and if the result alone is that large, the call answers
		// RESULT_TOO_LARGE: called again once the session is open, it comes alone.
		left := textLeft(res.Content, callFrom(ctx).preparedText())
		whole := b
		b, text, unknown, berr := fitNaming(ctx, r, whole, g.bodies, left, framed)
		if !left.fits(framed, b, text) {
			bytes, tokens := wholeResult.bytes-left.bytes, wholeResult.tokens-left.tokens
			res = g.errorResult(ctx, promptlib.Errorf(promptlib.CodeResultTooLarge,
				"%s ran, but its result (%d KB of text, about %d tokens) does not fit beside the project briefing above in one tool result", name, (bytes+1023)/1024, tokens))
			// The result is thrown away: the prompts it carried were not received, and the
			// briefing sends or names those it chose instead of calling them already provided.
			carried, whole = nil, chosen
			left = textLeft(res.Content, "")
			b, text, unknown, berr = fitNaming(ctx, r, whole, g.bodies, left, framed)
			text = capText(b, text, left, framed)
		}
		g.logUnknown(unknown)
		g.sess.Received(carried...)
		switch {
		case berr != nil:
			// No briefing reached the model: none of its prompts counts as sent, so the next
			// briefing or read_prompts sends them.
			g.log.Error("gate: briefing bodies could not be read", "err", berr)
			g.sess.Unsent(whole, gate.Briefing{})
		case res.IsError:
			g.sess.Unsent(whole, b)
			res.Content = errorWithBriefing(res.Content, text)
		default:
			g.sess.Unsent(whole, b)
			res.Content = append([]mcp.Content{mcp.NewTextContent(text)}, res.Content...)
			g.carryBriefing(ctx, name, res, text)
		}
		if berr != nil {
			// The traffic says what reached the model, as the session does: what matched, but
			// nothing sent.
			g.record(ctx, b, 0, false)
		} else {
			g.record(ctx, b, len(text), true)
		}
		if b.Ungated {
			g.ungated()
		}
		return res, nil
	}
}

// errorWithBriefing is a failed call's content with the briefing in its one text block: Claude
// Code passes the model only the first content block of an error result (claude-code #1804,
// #39976), so a briefing before the error hid the failure (RESULT_TOO_LARGE's "call it again"
// too), and one after it was never read. mcpctl's own error ({"error", "message", "hint"}) gains
// a "briefing" field, after the rest; another (a project server's own error) is its text, then
// the briefing. Images and audio follow.
func errorWithBriefing(content []mcp.Content, briefing string) []mcp.Content {
	var texts []string
	var rest []mcp.Content
	for _, c := range content {
		if t, ok := blockText(c); ok {
			texts = append(texts, t)
		} else {
			rest = append(rest, c)
		}
	}
	var text string
	var ours struct {
		Error string `json:"error"`
	}
	if len(texts) == 1 && json.Unmarshal([]byte(texts[0]), &ours) == nil && ours.Error != "" {
		text = string(withBriefingField([]byte(texts[0]), briefing, false))
	} else {
		text = strings.Join(append(texts, errorBriefingHeader+briefing), "\n\n")
	}
	return append([]mcp.Content{mcp.NewTextContent(text)}, rest...)
}

// errorBriefingHeader comes before a briefing that follows another server's error.
const errorBriefingHeader = "[The project's briefing for this session, which the failed call carries:]\n\n"

// carryBriefing makes the briefing reach a client that reads only a result's structuredContent
// when it has one: Claude Code (2.1.280, claude-code #79944) and VS Code hand the model
// JSON.stringify(structuredContent) alone, so a briefing only in the text content was lost while
// its prompts counted as sent. mcpctl's own tools carry it in a "briefing" field their output
// schemas allow; a project server's tool listed without an output schema (as every one is once a
// content pipeline runs) loses its structuredContent, the text content then carrying briefing
// and result. An error result has its own way (errorWithBriefing).
func (g *gateComponent) carryBriefing(ctx context.Context, name string, res *mcp.CallToolResult, text string) {
	if callFrom(ctx).addBriefing(text) {
		return
	}
	if res.StructuredContent == nil && len(res.RawStructuredContent) == 0 {
		return
	}
	upstream := false
	if g.up != nil {
		_, _, upstream = g.up.source(name)
	}
	if !upstream {
		if raw, ok := res.StructuredContent.(json.RawMessage); ok {
			res.StructuredContent = json.RawMessage(withBriefingField(raw, text, true)) // a handler called without the wire
		}
		return
	}
	if t := g.srv.GetTool(name); t == nil || t.Tool.RawOutputSchema != nil || t.Tool.OutputSchema.Type != "" {
		return // its schema promises structuredContent, and may not allow a field of ours
	}
	// A result the server sent as structuredContent alone has its JSON as text already: the
	// pipeline made it so, and the bound was counted with it.
	dropStructured(res)
}

// contentTextBytes is the size of a result's content as a model reads it: its texts, and any
// other content as JSON.
func contentTextBytes(content []mcp.Content) int {
	n := 0
	for _, c := range content {
		if t, ok := c.(mcp.TextContent); ok {
			n += len(t.Text)
		} else if raw, err := json.Marshal(c); err == nil {
			n += len(raw)
		}
	}
	return n
}

// textLeft is the room a result's text leaves of a whole result's: its text blocks and
// embedded text resources, and prepared, the text a prepared result splices in for its marker
// (call.preparedText). The bound a briefing shares with the result is on text; an image or
// audio block is not text to a client (Claude Code bounds images apart), and counting its
// base64 as text threw away an intercepted 45 KB screenshot as RESULT_TOO_LARGE.
func textLeft(content []mcp.Content, prepared string) room {
	left := wholeResult.less(prepared)
	for _, c := range content {
		if t, ok := blockText(c); ok {
			left = left.less(t)
		}
	}
	return left
}

// received tells the session which prompts the call's result carried in full.
func (g *gateComponent) received(ctx context.Context) {
	g.sess.Received(g.carried(ctx)...)
}

// carried is the prompts the call's result carries in full. A call the client cancelled
// carried nothing: its response is never sent.
func (g *gateComponent) carried(ctx context.Context) []string {
	if ctx.Err() != nil {
		return nil
	}
	return callFrom(ctx).carriedIDs()
}

// bodies reads the prompts a briefing sends in full: the gate keeps no bodies.
func (g *gateComponent) bodies(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		p, err := g.db.Prompt(ctx, id)
		if err != nil {
			return nil, err
		}
		out[id], _, _ = g.up.delivered(ctx, g.log, p)
	}
	return out, nil
}

// record puts what the gate did into the call's record, for its traffic event.
// record puts the gate's part in the call's traffic event; sent is false when the briefing did
// not reach the model, whose prompts then count as matched only.
func (g *gateComponent) record(ctx context.Context, b gate.Briefing, bytes int, sent bool) {
	state := "open"
	if g.sess.Gated() {
		state = "gated"
	}
	// A prompt sent as its table of contents is sent, and one held so is matched. Priority 10 is
	// sent whatever the tags and is not matched: counted apart, so sent less critical is of matched.
	sel := b.Selection
	tg := traffic.Gate{State: state, Bytes: bytes,
		Matched: len(sel.Full) + len(sel.TOC) + len(sel.Listed) + sel.MoreListed + len(sel.AlreadySent) + len(sel.AlreadyTOC)}
	if sent {
		tg.Sent, tg.Critical = len(b.Sent())+len(sel.TOC)+len(sel.CriticalTOC), len(sel.Critical)+len(sel.CriticalTOC)
	}
	callFrom(ctx).setGate(tg)
}

// ungated tells the client the tool list changed: the library tools and read_prompts replace
// begin_session. Clients that ignore the notification read the same in the briefing.
func (g *gateComponent) ungated() {
	g.srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
}

func (g *gateComponent) logUnknown(unknown []string) {
	if len(unknown) > 0 {
		g.log.Warn("gate: texts use unknown template variables; left as typed", "variables", unknown)
	}
}

// briefingResult is a begin_session or read_prompts result: the structured form for the schema,
// and the rendered markdown as the text the model reads.
type briefingResult struct{ gate.Result }

func (b briefingResult) MarshalJSON() ([]byte, error) { return json.Marshal(b.Result) }
func (b briefingResult) ResultText() string           { return b.Text }

type tagsInput struct {
	Tags []string `json:"tags"`
	Task string   `json:"task"`
}

func (g *gateComponent) beginSessionTool(ix *gate.Index) server.ServerTool {
	return g.taskInput(g.serverTool(tool{
		name: gate.ToolBeginSession, title: "Begin session", readOnly: true, timeout: 5 * time.Second,
		description: gate.BeginSessionDescription(ix),
		handle: func(ctx context.Context, args json.RawMessage) (any, error) {
			return g.brief(ctx, args, g.sess.BeginContext)
		},
	}))
}

func (g *gateComponent) readPromptsTool() server.ServerTool {
	return g.taskInput(g.serverTool(tool{
		name: gate.ToolReadPrompts, title: "Read project prompts", readOnly: true, timeout: 5 * time.Second,
		description: gate.ReadPromptsDescription,
		handle: func(ctx context.Context, args json.RawMessage) (any, error) {
			return g.brief(ctx, args, g.sess.ReadContext)
		},
	}))
}

// taskInput lists a gate tool's task argument only when a Reranker reads it: the deterministic
// ranking does not (gate.Task), and every argument listed costs each session's context its
// description. A task given anyway is accepted, as the schema that checks calls says.
func (g *gateComponent) taskInput(st server.ServerTool) server.ServerTool {
	if g.cfg.Reranker != nil {
		return st
	}
	var schema map[string]any
	if err := json.Unmarshal(st.Tool.RawInputSchema, &schema); err != nil {
		panic("mcpserver: " + st.Tool.Name + "'s input schema: " + err.Error()) // embedded, checked by the schemas tests
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		delete(props, "task")
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic("mcpserver: " + st.Tool.Name + "'s input schema: " + err.Error())
	}
	st.Tool.RawInputSchema = raw
	return st
}

func (g *gateComponent) brief(ctx context.Context, args json.RawMessage, call func(context.Context, *gate.Index, gate.Task) gate.Briefing) (any, error) {
	var in tagsInput
	if err := decodeToolArgs(args, &in); err != nil {
		return nil, err
	}
	st := g.current()
	chosen := call(ctx, st.ix, gate.Task{Tags: in.Tags, Text: in.Task})
	b, text, unknown, err := fitNaming(ctx, g.renderer(st), chosen, g.bodies, wholeResult, asResult)
	if err != nil {
		g.sess.Unsent(chosen, gate.Briefing{}) // none of it reached the model
		return nil, err
	}
	g.sess.Unsent(chosen, b)
	text = capText(b, text, wholeResult, asResult)
	g.logUnknown(unknown)
	g.record(ctx, b, len(text), true)
	if b.Ungated {
		g.ungated()
	}
	return briefingResult{b.Result(text)}, nil
}
