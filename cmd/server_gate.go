package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// gateSide is the gated-session layer of a server that serves a project: the prompt index, the
// session's state machine, the begin_session and read_prompts tools, the intercept of real tool
// calls while gated, and the project's folder scope for every other tool.
//
// One process is one MCP session over stdio, so one gate.Session serves it. mcp-go has no
// per-session tool lists over stdio: a tool filter shows what the session may see, and the
// list_changed notification is sent explicitly when the session ungates.
type gateSide struct {
	d       *deps
	project gate.Project
	sess    *gate.Session
	view    atomic.Pointer[gateView]
	tools   []string // the tools listed once ungated, for the briefing's {{tools}}; fixed

	// changes is subscribed before the first load, so an edit made while loading is not missed.
	changes     <-chan struct{}
	unsubscribe func()
}

// gateView is everything derived from one library snapshot; a library change swaps in a new one.
type gateView struct {
	ix    *gate.Index
	r     gate.Renderer
	scope map[string]bool // folder ids (promptlib.Key) the project sees; nil: the whole library
	root  string          // the project's folder id, as stored; "" without a folder
}

// newGateSide loads the project's view of the library. It runs before serving starts, so the
// initialize instructions can carry the index.
func newGateSide(ctx context.Context, d *deps, p gate.Project, tools []string) (*gateSide, error) {
	g := &gateSide{d: d, project: p, sess: gate.NewSession(p), tools: tools}
	g.changes, g.unsubscribe = d.db.Changes()
	if err := g.reload(ctx); err != nil {
		g.unsubscribe()
		return nil, err
	}
	return g, nil
}

// reload rebuilds the index, the gate texts and the folder scope from the library as it is now.
func (g *gateSide) reload(ctx context.Context) error {
	lib, err := snapshot(ctx, g.d.db)
	if err != nil {
		return err
	}
	// The library is read whole here and dropped after: the index keeps no bodies, briefings
	// load them by id (bodies). The lead's one library view replaces this read (issue 8).
	ix, sc, err := gate.LibraryIndex(lib, g.project)
	if err != nil {
		return fmt.Errorf("project %s: %w", g.project.Name, err)
	}
	scope, err := gate.FolderScope(lib.Folders, g.project)
	if err != nil {
		return fmt.Errorf("project %s: %w", g.project.Name, err)
	}
	var root string
	if g.project.Folder != "" {
		if root, err = gate.ResolveFolder(lib.Folders, g.project.Folder); err != nil {
			return fmt.Errorf("project %s: %w", g.project.Name, err)
		}
	}
	if u := ix.UnknownPriorities(); len(u) > 0 {
		g.d.log.Warn("project priorities name prompts that do not exist", "project", g.project.Name, "names", u)
	}
	g.view.Store(&gateView{ix: ix, r: gate.Renderer{Texts: gate.SystemTexts(sc.SystemPrompts(lib.Prompts)), Tools: g.tools}, scope: scope, root: root})
	return nil
}

func (g *gateSide) current() *gateView { return g.view.Load() }

// bodies loads the bodies a briefing sends in full from the library. A prompt deleted since the
// index was built is left out; the briefing names it instead.
func (g *gateSide) bodies(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		p, err := g.d.db.Prompt(ctx, id)
		if errors.Is(err, dbread.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = p.Content
	}
	return out, nil
}

// install adds the gate's tools, the tool filter, the intercept and the instructions to the
// server, before it serves.
func (g *gateSide) install() {
	v := g.current()
	g.d.srv.AddTools(g.beginSessionTool(v.ix), g.readPromptsTool())
	server.WithToolFilter(g.filterTools)(g.d.srv)
	g.d.srv.Use(g.intercept)
	g.d.srv.GetHooks().AddAfterInitialize(func(ctx context.Context, id any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		v := g.current()
		text, unknown := v.r.Instructions(v.ix, g.sess.Gated())
		g.logUnknown(unknown)
		res.Instructions = text
	})
}

// filterTools shows, at list time, what the session may use now. At call time (mcp-go passes
// just the called tool) every tool passes: a call to a real tool while gated is not refused but
// intercepted, so clients that skip begin_session still get their briefing.
func (g *gateSide) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
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
// from the call's keywords before its result; then the session is ungated.
func (g *gateSide) intercept(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.Params.Name
		if name == gate.ToolBeginSession || name == gate.ToolReadPrompts || !g.sess.Gated() {
			return next(ctx, req)
		}
		args, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			args = nil
		}
		v := g.current()
		b, ok := g.sess.Intercept(v.ix, name, args)
		res, err := next(ctx, req)
		if !ok {
			return res, err
		}
		// The session is ungated and the briefing's prompts count as sent: the briefing must
		// reach the model even when the tool failed.
		if err != nil || res == nil {
			msg := "the tool returned no result"
			if err != nil {
				msg = err.Error()
			}
			res = mcp.NewToolResultError(msg)
		}
		text, unknown, err := v.r.Briefing(ctx, b, g.bodies)
		if err != nil {
			text = "The project briefing could not be loaded: " + err.Error()
		}
		g.logUnknown(unknown)
		res.Content = append([]mcp.Content{mcp.NewTextContent(text)}, res.Content...)
		g.d.log.Info("gate: intercepted", "tool", name, "tags", len(b.Tags), "sent", len(b.Sent()))
		if b.Ungated {
			g.ungated()
		}
		return res, nil
	}
}

// ungated tells the client the tool list changed: the library tools and read_prompts replace
// begin_session. Clients that ignore the notification read the same in the briefing.
func (g *gateSide) ungated() {
	g.d.srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
}

func (g *gateSide) logUnknown(unknown []string) {
	if len(unknown) > 0 {
		g.d.log.Warn("gate: texts use unknown template variables; left as typed", "variables", unknown)
	}
}

// briefingResult is a begin_session or read_prompts result: the structured form for the schema,
// and the rendered markdown as the text the model reads.
type briefingResult struct{ gate.Result }

func (b briefingResult) MarshalJSON() ([]byte, error) { return json.Marshal(b.Result) }
func (b briefingResult) ResultText() string           { return b.Text }

type tagsInput struct {
	Tags []string `json:"tags"`
}

func (g *gateSide) beginSessionTool(ix *gate.Index) server.ServerTool {
	return g.d.serverTool(tool{
		name: gate.ToolBeginSession, title: "Begin session", readOnly: true, timeout: 5 * time.Second,
		description: gate.BeginSessionDescription(ix),
		handle: func(ctx context.Context, args json.RawMessage) (any, error) {
			return g.brief(ctx, args, g.sess.Begin)
		},
	})
}

func (g *gateSide) readPromptsTool() server.ServerTool {
	return g.d.serverTool(tool{
		name: gate.ToolReadPrompts, title: "Read project prompts", readOnly: true, timeout: 5 * time.Second,
		description: gate.ReadPromptsDescription,
		handle: func(ctx context.Context, args json.RawMessage) (any, error) {
			return g.brief(ctx, args, g.sess.Read)
		},
	})
}

func (g *gateSide) brief(ctx context.Context, args json.RawMessage, call func(*gate.Index, []string) gate.Briefing) (any, error) {
	var in tagsInput
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, badArgs(err)
	}
	v := g.current()
	b := call(v.ix, in.Tags)
	text, unknown, err := v.r.Briefing(ctx, b, g.bodies)
	if err != nil {
		return nil, err
	}
	g.logUnknown(unknown)
	if b.Ungated {
		g.ungated()
	}
	return briefingResult{b.Result(text)}, nil
}

// follow rebuilds the gate's view after each library change: a new index, the texts edited in
// the app's mcpctl-system folder, and begin_session's description (which carries the index).
// A failed reload (the app holding a lock) is retried after a pause; meanwhile the last good
// view serves.
func (g *gateSide) follow(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer g.unsubscribe()
		retry := time.NewTimer(time.Hour)
		retry.Stop()
		defer retry.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-g.changes:
			case <-retry.C:
			}
			before := g.current()
			if err := g.reload(ctx); err != nil {
				g.d.log.Error("gate: reload after a library change; retrying", "err", err)
				retry.Reset(time.Second)
				continue
			}
			after := g.current()
			if gate.BeginSessionDescription(before.ix) != gate.BeginSessionDescription(after.ix) {
				g.d.srv.AddTools(g.beginSessionTool(after.ix))
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// inScope reports whether a folder (nil: the top level) belongs to the served project.
func (g *gateSide) inScope(folderID *string) bool {
	v := g.current()
	if v.scope == nil {
		return true
	}
	return folderID != nil && v.scope[promptlib.Key(*folderID)]
}

// snapshot reads the whole library: what the gate's index is built from.
func snapshot(ctx context.Context, db *dbread.DB) (promptlib.Library, error) {
	infos, err := db.Folders(ctx)
	if err != nil {
		return promptlib.Library{}, err
	}
	prompts, err := db.AllPrompts(ctx)
	if err != nil {
		return promptlib.Library{}, err
	}
	folders := make([]promptlib.Folder, len(infos))
	for i, f := range infos {
		folders[i] = f.Folder
	}
	return promptlib.Library{Folders: folders, Prompts: prompts}, nil
}
