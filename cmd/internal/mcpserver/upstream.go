package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// upstreams serves a project's own MCP servers (DESIGN §10) through the chain: their tools as
// {server}__{tool} (gated and intercepted like ours, their results through the pipeline), their
// prompts as {server}__{prompt} and their resources under their own URIs. The supervisor runs the
// children; this component keeps what mcp-go serves in step with what they offer.
type upstreams struct {
	*core
	sup *upstream.Supervisor

	mu        sync.Mutex
	offers    map[string]upstream.Offer // what each server offers, kept while it is down
	tools     map[string]string         // served tool name → its server
	defs      map[string]string         // served tool name → its definition as registered, JSON
	resources map[string]string         // registered resource URI → the server it is read from
	templates map[string]string         // registered template → its server; never removed (sync)
	prompts   []mcp.Prompt              // the upstreams' prompts, by name
	listing   []mcp.Resource            // the upstreams' resources, by name
	warned    map[string]bool           // server+" "+URI of every left-out resource logged
	calls     map[string]int            // the tool calls each server has under way (admit)
	synced    chan struct{}             // closed and replaced after every sync

	start sync.Once
}

// newUpstreams prepares the project's servers; they start in the background at the client's
// first request (its initialize), so that each is told what the client takes of sampling,
// elicitation and roots (relayed to it). Initialize never waits for them.
func newUpstreams(ctx context.Context, c *core, opts upstream.Options) *upstreams {
	u := &upstreams{core: c, offers: map[string]upstream.Offer{}, tools: map[string]string{}, defs: map[string]string{},
		resources: map[string]string{}, templates: map[string]string{}, warned: map[string]bool{},
		calls: map[string]int{}, synced: make(chan struct{})}
	rel := &clientRelay{srv: c.srv}
	opts.Client = rel
	u.sup = upstream.New(c.cfg.Project.Servers, opts)
	u.sup.OnChange(u.sync)
	hooks := c.srv.GetHooks()
	hooks.AddBeforeAny(func(reqCtx context.Context, _ any, method mcp.MCPMethod, message any) {
		if req, ok := message.(*mcp.InitializeRequest); ok && method == mcp.MethodInitialize {
			rel.set(req.Params.Capabilities, server.ClientSessionFromContext(reqCtx))
		}
		// A client of protocol 2026-07-28 sends no initialize: its first request starts them.
		u.start.Do(func() { u.sup.Start(ctx) })
	})
	hooks.AddBeforeCallTool(u.checkCallTool)
	addAnswerTool(c.srv, c) // checkCallTool answers a call to a server that is down through it
	c.srv.AddNotificationHandler(string(mcp.MethodNotificationRootsListChanged), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		u.sup.RootsChanged(ctx)
	})
	return u
}

// clientRelay is the session's client as the project's servers reach it through mcpctl
// (upstream.Client): what it declared in initialize, and its session to send requests on.
type clientRelay struct {
	srv *server.MCPServer

	mu      sync.Mutex
	caps    mcp.ClientCapabilities
	session server.ClientSession
}

func (r *clientRelay) set(caps mcp.ClientCapabilities, session server.ClientSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.caps, r.session = caps, session
}

func (r *clientRelay) Capabilities() mcp.ClientCapabilities {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.caps
}

// sessionCtx is ctx (the upstream's request) with the client's session, which mcp-go sends
// requests to the client on.
func (r *clientRelay) sessionCtx(ctx context.Context) (context.Context, error) {
	r.mu.Lock()
	session := r.session
	r.mu.Unlock()
	if session == nil {
		return nil, errors.New("mcpctl has no client session to relay the request to")
	}
	return r.srv.WithContext(ctx, session), nil
}

func (r *clientRelay) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, err := r.sessionCtx(ctx)
	if err != nil {
		return nil, err
	}
	// Deprecated from protocol 2026-07-28, which a client declaring sampling does not speak: the
	// relay serves project servers and clients of the protocols that have it.
	//lint:ignore SA1019 relayed only for clients that declared sampling
	return r.srv.RequestSampling(ctx, req)
}

func (r *clientRelay) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	ctx, err := r.sessionCtx(ctx)
	if err != nil {
		return nil, err
	}
	return r.srv.RequestElicitation(ctx, req)
}

func (r *clientRelay) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	ctx, err := r.sessionCtx(ctx)
	if err != nil {
		return nil, err
	}
	return r.srv.RequestRoots(ctx, req)
}

func (u *upstreams) close() {
	if err := u.sup.Close(); err != nil {
		u.log.Warn("upstream: close", "err", err)
	}
}

// sync registers what the servers offer now and removes what went away. mcp-go sends
// tools/list_changed and resources/list_changed itself on AddTools/DeleteTools and on resource
// changes; prompts/list_changed is ours to send, as prompts/list comes from our own listing.
func (u *upstreams) sync() {
	u.mu.Lock()
	defer u.mu.Unlock()

	// A server that died or is restarting keeps what it offered last: its tools, prompts and
	// resources stay listed, and using one answers UPSTREAM_UNAVAILABLE naming the server,
	// rather than "no such tool" or "not found" for a moment or for good. A stopped server (mcpctl
	// is ending) offers nothing.
	servers := u.sup.Servers()
	offers := make(map[string]upstream.Offer, len(servers))
	defs := make(map[string]string, len(u.defs))
	var add []server.ServerTool
	for _, srv := range servers {
		o := srv.Offer()
		switch o.State {
		case upstream.Ready:
			// Its lists are new at every ready and every list_changed, but only a tool that is
			// new or differs is registered again: mcp-go sends the client tools/list_changed at
			// every AddTools, and a server that says list_changed with nothing changed (100
			// times, each after its tools were listed) had the client list every tool 100 times.
			for _, t := range o.Tools {
				tl := t.Tool
				if u.pipe != nil {
					// Any result may be transformed (by the model in force, or paged when over
					// MaxResultBytes), and a transformed one carries no structuredContent: so
					// promise none.
					tl.OutputSchema, tl.RawOutputSchema = mcp.ToolOutputSchema{}, nil
				}
				def, err := json.Marshal(tl)
				if err == nil && u.defs[tl.Name] == string(def) {
					defs[tl.Name] = string(def)
					continue
				}
				defs[tl.Name] = string(def)
				add = append(add, server.ServerTool{Tool: tl, Handler: u.callTool})
			}
		case upstream.Failed, upstream.Starting:
			prev, ok := u.offers[srv.Name()]
			if !ok {
				continue // it never was ready: nothing of it is known
			}
			o = prev // registered when it was ready
			for _, t := range o.Tools {
				defs[t.Tool.Name] = u.defs[t.Tool.Name]
			}
		default:
			continue
		}
		offers[srv.Name()] = o
	}
	u.offers = offers

	tools := map[string]string{}
	var prompts []mcp.Prompt
	for _, srv := range servers {
		for _, t := range offers[srv.Name()].Tools {
			tools[t.Tool.Name] = srv.Name()
		}
		for _, p := range offers[srv.Name()].Prompts {
			prompts = append(prompts, p.Prompt)
		}
	}
	var del []string
	for name := range u.tools {
		if _, ok := tools[name]; !ok {
			del = append(del, name)
		}
	}
	if len(del) > 0 {
		u.srv.DeleteTools(del...)
	}
	if len(add) > 0 {
		u.srv.AddTools(add...)
	}
	u.tools, u.defs = tools, defs

	sort.Slice(prompts, func(i, j int) bool { return prompts[i].Name < prompts[j].Name })
	if !sameUpstreamPrompts(u.prompts, prompts) {
		u.prompts = prompts
		u.srv.SendNotificationToAllClients(mcp.MethodNotificationPromptsListChanged, nil)
	}
	u.syncResources(servers, offers)
	close(u.synced)
	u.synced = make(chan struct{})
}

// syncResources registers the servers' resources and templates. A URI is served once: mcpctl's
// own resources always win (a server must not answer for the library), then the first server
// by name that offers it; a resource left out is logged once, naming its server and URI.
// Resources and templates are added and deleted in one call each: mcp-go sends
// resources/list_changed per call, and a server's resources arrive together.
func (u *upstreams) syncResources(servers []*upstream.Server, offers map[string]upstream.Offer) {
	left := map[[2]string][]string{} // {server, who serves the URI} → the URIs left out
	owner := map[string]string{}
	var listing []mcp.Resource
	var addRes []server.ServerResource
	for _, srv := range servers {
		name := srv.Name()
		for _, r := range offers[name].Resources {
			uri := r.Resource.URI
			switch first, taken := owner[uri]; {
			case ReservedResource(uri):
				left[[2]string{name, ""}] = append(left[[2]string{name, ""}], uri)
				continue
			case taken:
				left[[2]string{name, first}] = append(left[[2]string{name, first}], uri)
				continue
			}
			owner[uri] = name
			listing = append(listing, r.Resource)
			if u.resources[uri] != name {
				// New, or read from another server until now: its handler names its server.
				addRes = append(addRes, server.ServerResource{Resource: r.Resource, Handler: u.reader(name)})
			}
		}
	}
	var delRes []string
	for uri := range u.resources {
		if _, ok := owner[uri]; !ok {
			delRes = append(delRes, uri)
		}
	}
	if len(delRes) > 0 {
		u.srv.DeleteResources(delRes...)
	}
	if len(addRes) > 0 {
		u.srv.AddResources(addRes...)
	}
	u.resources = owner
	slices.SortFunc(listing, func(a, b mcp.Resource) int { return compareResource(a.Name, a.URI, b.Name, b.URI) })
	u.listing = listing

	// mcp-go v1.2.1 cannot remove one template (only replace all of them, ours included), so a
	// template stays registered once added: reading through it asks the server that offered it,
	// which answers for itself. mcp-go tries templates in no fixed order, so one that could
	// match mcpctl's own URIs would take their reads at random: it is left out.
	tmplOwner := map[string]string{}
	var addTmpl []server.ServerResourceTemplate
	for _, srv := range servers {
		name := srv.Name()
		for _, t := range offers[name].Templates {
			raw := t.Template.URITemplate.Raw()
			switch first, taken := tmplOwner[raw]; {
			case ReservedTemplate(t.Template):
				left[[2]string{name, ""}] = append(left[[2]string{name, ""}], raw)
				continue
			case taken:
				left[[2]string{name, first}] = append(left[[2]string{name, first}], raw)
				continue
			}
			tmplOwner[raw] = name
			if u.templates[raw] != name {
				u.templates[raw] = name
				addTmpl = append(addTmpl, server.ServerResourceTemplate{Template: t.Template, Handler: server.ResourceTemplateHandlerFunc(u.reader(name))})
			}
		}
	}
	if len(addTmpl) > 0 {
		u.srv.AddResourceTemplates(addTmpl...)
	}
	u.warnLeftOut(left)
}

// warnLeftOut logs the resources left out that were not logged before: one line per server and
// per who serves their URIs instead, as a server mcpctl itself is would collide thousands of
// times.
func (u *upstreams) warnLeftOut(left map[[2]string][]string) {
	for key, uris := range left {
		srv, first := key[0], key[1]
		var fresh []string
		for _, uri := range uris {
			if !u.warned[srv+" "+uri] {
				u.warned[srv+" "+uri] = true
				fresh = append(fresh, uri)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		shown := fresh[:min(len(fresh), 10)]
		if first == "" {
			u.log.Warn("upstream resources left out: mcpctl serves these URIs itself, and its own resources always win. "+
				"Nothing to do unless you need the server's: read them through a tool of the server, if it has one",
				"server", srv, "uris", shown, "count", len(fresh))
			continue
		}
		u.log.Warn("upstream resources left out: an earlier server (by name) serves the same URIs, and a URI is read from one server. "+
			"If you need this server's, have one of the two serve them under other URIs",
			"server", srv, "servedBy", first, "uris", shown, "count", len(fresh))
	}
}

// ReservedResource reports whether uri is mcpctl's own: the prompteka: scheme is the library's
// (resources.go), so a project server's resource there is never served.
func ReservedResource(uri string) bool { return strings.HasPrefix(uri, ownScheme) }

// ReservedTemplate reports whether a project server's resource template would take reads of
// mcpctl's own resources: it is in the prompteka: scheme, or it matches one of mcpctl's URIs.
func ReservedTemplate(t mcp.ResourceTemplate) bool {
	tpl := t.URITemplate
	if tpl == nil || tpl.Template == nil {
		return false
	}
	if ReservedResource(tpl.Raw()) {
		return true
	}
	for _, uri := range []string{libraryURI, promptURIPrefix + "0", folderURIPrefix + "0"} {
		if tpl.Match(uri) != nil {
			return true
		}
	}
	return false
}

func sameUpstreamPrompts(a, b []mcp.Prompt) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !samePrompt(a[i], b[i]) {
			return false
		}
	}
	return true
}

// promptList is the upstreams' prompts, by name.
func (u *upstreams) promptList() []mcp.Prompt {
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.prompts
}

// resourceList is the upstreams' resources, by name.
func (u *upstreams) resourceList() []mcp.Resource {
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.listing
}

// servesPrompt reports whether a prompt name is an upstream's.
func (u *upstreams) servesPrompt(name string) bool {
	if u == nil || !strings.Contains(name, upstream.Separator) {
		return false
	}
	for _, p := range u.promptList() {
		if p.Name == name {
			return true
		}
	}
	return false
}

// source names a served upstream tool's server and its own name there, from what is served:
// a server that went down just after answering still owns the tool its result came from.
func (u *upstreams) source(served string) (server, own string, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	server, ok = u.tools[served]
	if !ok {
		return "", "", false
	}
	for _, t := range u.offers[server].Tools {
		if t.Tool.Name == served {
			return server, t.Own, true
		}
	}
	return server, strings.TrimPrefix(served, server+upstream.Separator), true
}

// toolEntries names each server's tools for a briefing: "db__* (11)" for the tools it serves;
// "db__* (starting)" or "db__* (failed: see health_check)" for a server that serves none yet. A
// briefing made right after initialize, while a server starts, listed only mcpctl's own tools,
// and the model took the project's for missing.
func (u *upstreams) toolEntries() []string {
	u.mu.Lock()
	count := map[string]int{}
	for _, srv := range u.tools {
		count[srv]++
	}
	u.mu.Unlock()
	var out []string
	for _, st := range u.sup.States() {
		switch {
		case count[st.Name] > 0:
			out = append(out, fmt.Sprintf("%s%s* (%d)", st.Name, upstream.Separator, count[st.Name]))
		case st.State == upstream.Starting:
			out = append(out, st.Name+upstream.Separator+"* (starting)")
		case st.State == upstream.Failed:
			out = append(out, st.Name+upstream.Separator+"* (failed: see health_check)")
		}
	}
	return out
}

// maxServerCalls bounds the calls one server has under way, and maxUpstreamCalls those of all
// the servers together. Each holds one of the session's workers (Server.Serve, 100) until it
// answers or times out: a server that hangs would otherwise take them all, and seven that hang
// would still, with mcpctl's own tools.
const (
	maxServerCalls   = 16
	maxUpstreamCalls = 64
)

// admit counts a call to srv in, or says why it cannot be made now.
func (u *upstreams) admit(srv string) *promptlib.Error {
	u.mu.Lock()
	defer u.mu.Unlock()
	total := 0
	for _, n := range u.calls {
		total += n
	}
	switch {
	case u.calls[srv] >= maxServerCalls:
		return &promptlib.Error{Code: promptlib.CodeUpstreamError,
			Message: fmt.Sprintf("server %s already has %d calls under way, the most mcpctl runs at once for one server so that a slow server cannot hold up the other tools", srv, maxServerCalls),
			Advice:  "Wait for one of those calls to answer, then call again; the other tools can be used meanwhile."}
	case total >= maxUpstreamCalls:
		busy := slices.SortedFunc(maps.Keys(u.calls), func(a, b string) int { return cmp.Or(u.calls[b]-u.calls[a], strings.Compare(a, b)) })
		var parts []string
		for _, name := range busy[:min(len(busy), 5)] {
			if u.calls[name] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", name, u.calls[name]))
			}
		}
		return &promptlib.Error{Code: promptlib.CodeUpstreamError,
			Message: fmt.Sprintf("the project's servers already have %d calls under way (%s), the most mcpctl runs at once so that slow servers cannot hold up its own tools", maxUpstreamCalls, strings.Join(parts, ", ")),
			Advice:  "Wait for some of those calls to answer, then call again; mcpctl's own tools can be used meanwhile."}
	}
	u.calls[srv]++
	return nil
}

// release counts a call to srv out.
func (u *upstreams) release(srv string) {
	u.mu.Lock()
	u.calls[srv]--
	u.mu.Unlock()
}

// progressInterval is the least time between two progress notifications mcpctl forwards for
// one call. A server that reported 900 a second had each one written to the client and to the
// traffic log; a client's progress bar needs a few. Every one still counts as the server's sign
// of life (upstream's call deadline), forwarded or not.
const progressInterval = 100 * time.Millisecond

// progressPace paces a call's progress notifications: the first and the last (progress reaching
// total) go out at once, and none less than progressInterval after the one before. One held
// back is not lost: the latest held back goes out when the interval is over, so a server that
// reports a step and then works quietly for a minute is seen at that step, total or no total.
type progressPace struct {
	send func(progressNote)
	// now and after are the clock (time.Now, time.AfterFunc: after runs f once d has passed and
	// returns what cancels it); tests bring their own.
	now   func() time.Time
	after func(d time.Duration, f func()) (cancel func() bool)

	mu      sync.Mutex
	last    time.Time     // when the last one went out
	held    *progressNote // the latest held back, if any
	timer   func() bool   // cancels the pending flush, nil if none
	stopped bool
}

type progressNote struct {
	progress, total float64
	message         string
}

func newProgressPace(send func(progressNote)) *progressPace {
	return &progressPace{send: send, now: time.Now, after: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }}
}

// report sends n, or holds it back until the interval is over.
func (pp *progressPace) report(n progressNote) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.stopped {
		return
	}
	now := pp.now()
	if wait := progressInterval - now.Sub(pp.last); !pp.last.IsZero() && wait > 0 && (n.total <= 0 || n.progress < n.total) {
		pp.held = &n
		if pp.timer == nil {
			pp.timer = pp.after(wait, pp.flush)
		}
		return
	}
	pp.held = nil // n is newer
	pp.last = now
	pp.send(n)
}

// flush sends the one held back, if any, once the interval since the last one sent is over
// (the last of all may have gone out meanwhile).
func (pp *progressPace) flush() {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	pp.timer = nil
	if pp.stopped || pp.held == nil {
		return
	}
	now := pp.now()
	if wait := progressInterval - now.Sub(pp.last); wait > 0 {
		pp.timer = pp.after(wait, pp.flush)
		return
	}
	n := *pp.held
	pp.held, pp.last = nil, now
	pp.send(n)
}

// stop ends the call's progress: once it returns nothing more is handed to mcp-go, as the
// response follows. (mcp-go writes notifications from a goroutine of its own, so one handed
// over just before may still be written after the response, as it always could.)
func (pp *progressPace) stop() {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	pp.stopped = true
	if pp.timer != nil {
		pp.timer()
		pp.timer = nil
	}
}

// callTool forwards a call to its server. An upstream's own error result passes through as it
// is; a server that is not there, or that breaks the protocol, is an isError result naming it.
func (u *upstreams) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	rec := callFrom(ctx)
	if srv, ok := u.sup.Owner(req.Params.Name); ok {
		rec.mu.Lock()
		rec.upstream = srv.Name()
		rec.mu.Unlock()
		if err := u.admit(srv.Name()); err != nil {
			return u.errorResult(ctx, err), nil
		}
		defer u.release(srv.Name())
	}
	var progress upstream.ProgressFunc
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		token := req.Params.Meta.ProgressToken
		pace := newProgressPace(func(n progressNote) {
			params := map[string]any{"progressToken": token, "progress": n.progress}
			if n.total > 0 {
				params["total"] = n.total
			}
			if n.message != "" {
				params["message"] = n.message
			}
			_ = u.srv.SendNotificationToClient(ctx, "notifications/progress", params)
		})
		defer pace.stop()
		progress = func(p, total float64, message string) {
			pace.report(progressNote{p, total, message})
		}
	}
	res, err := u.sup.CallTool(ctx, req.Params.Name, req.GetRawArguments(), progress)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // cancelled: the wire sends no response
		}
		if te := upstream.ToolError(err); te != nil {
			return u.errorResult(ctx, te), nil
		}
		if errors.Is(err, upstream.ErrUnknown) {
			return u.errorResult(ctx, promptlib.Errorf(promptlib.CodeInvalidInput, "no tool %q: its server no longer offers it; list the tools again", req.Params.Name)), nil
		}
		return u.errorResult(ctx, err), nil
	}
	if res.IsError {
		rec.setCode(upstreamToolError)
	}
	// Copies first: they are found by the images' data as the server sent it.
	if u.pipe != nil && dropMediaCopies(res) {
		u.log.Info("upstream: a copy of an image or audio block left out of structuredContent", "tool", req.Params.Name)
	}
	if content, changed := fitMedia(ctx, res.Content); changed {
		res.Content = content
		u.log.Info("upstream: an image fitted to what the Claude API takes (scaled, retyped, left out or given as text)", "tool", req.Params.Name)
	}
	return res, nil
}

// reader reads a resource from the server sync chose for its URI (or its template), never from
// another that lists it too. A server that is down answers as its tools do: UPSTREAM_UNAVAILABLE
// with its last stderr line, through the same wait for a server still starting.
func (u *upstreams) reader(name string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		rec := callFrom(ctx)
		rec.mu.Lock()
		rec.upstream = name
		rec.mu.Unlock()
		if err := u.admit(name); err != nil {
			return nil, fault(ctx, err)
		}
		defer u.release(name)
		res, err := u.sup.Server(name).ReadResource(ctx, req.Params.URI)
		if err != nil {
			return nil, fault(ctx, err)
		}
		contents, notes := fitResourceImages(ctx, res.Contents, askServer)
		for _, note := range notes {
			u.log.Info("upstream: a resource's image fitted to what the Claude API takes", "server", name, "uri", req.Params.URI, "note", note)
		}
		return contents, nil
	}
}

// getPrompt serves an upstream's prompt.
func (u *upstreams) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if srv, ok := u.sup.Owner(req.Params.Name); ok {
		rec := callFrom(ctx)
		rec.mu.Lock()
		rec.upstream = srv.Name()
		rec.mu.Unlock()
		if err := u.admit(srv.Name()); err != nil {
			return nil, fault(ctx, err)
		}
		defer u.release(srv.Name())
	}
	res, err := u.sup.GetPrompt(ctx, req.Params.Name, req.Params.Arguments)
	if err != nil {
		return nil, fault(ctx, err)
	}
	if msgs, changed := fitPromptImages(ctx, res.Messages); changed {
		res.Messages = msgs
		u.log.Info("upstream: a prompt's image fitted to what the Claude API takes", "prompt", req.Params.Name)
	}
	return res, nil
}

// fault is an upstream's failure as prompts/get and resources/read report it: they have no
// error result, so the code, message and hint a tool's isError result carries (callTool) become
// one JSON-RPC error message, and the traffic records the code.
func fault(ctx context.Context, err error) error {
	te := upstream.ToolError(err)
	if te == nil && !errors.As(err, &te) { // a promptlib.Error of mcpctl's own (admit)
		return err
	}
	callFrom(ctx).setCode(string(te.Code))
	msg := string(te.Code) + ": " + sentence(clipMessage(te.Message)) + " " + te.Hint()
	if ce := (*upstream.CallError)(nil); errors.As(err, &ce) && ce.Invalid() {
		return errors.New(carryInvalid(msg))
	}
	return errors.New(msg)
}

// sentence ends s with a full stop unless it ends with one already.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// checkCallTool runs before mcp-go looks a tool up. A {server}__ name that is not served now
// would get mcp-go's bare "tool not found". A server never ready has registered no tools: a call
// to one of them waits for it as a call to a registered tool does (upstream's Await: a start
// under way or a restart due, within the server's timeout; a client that keeps tool names, a
// resumed conversation), and is then served, or, the server being down, answered as one: an
// isError result UPSTREAM_UNAVAILABLE saying why and what to do (answerCall, quirks.go 5), not
// the -32602 of a malformed request. A name the server does not offer, or that the project
// leaves out, is a tool nobody offers: -32602, saying so (quirks.go 1).
func (u *upstreams) checkCallTool(ctx context.Context, _ any, req *mcp.CallToolRequest) {
	if req == nil || u.served(req.Params.Name) {
		return
	}
	name := req.Params.Name
	// A tool the project's allow and deny leave out is told so at once: that is the project
	// file's, and waiting for the server would not change it (notServed says which rule).
	if srv, ok := u.sup.Owner(name); ok && !u.known(srv.Name()) && srv.HiddenBy(strings.TrimPrefix(name, srv.Name()+upstream.Separator)) == "" {
		err := u.awaitFirstStart(ctx, srv)
		switch {
		case ctx.Err() != nil:
			// Not the server's timeout: the call was cancelled, or serve is stopping.
			req.Params.Name = carry(fmt.Sprintf("tool '%s' was not called: the call ended while server %s was still starting (cancelled, or mcpctl is stopping)", name, srv.Name()))
			return
		case err == nil && u.served(name):
			return
		case err != nil:
			te := upstream.ToolError(err)
			if te == nil { // Await's only other error is ctx's, handled above; a hook must not panic
				te = &promptlib.Error{Code: promptlib.CodeUpstreamUnavailable, Message: err.Error(), Err: err}
			}
			answer := *te
			answer.Message = fmt.Sprintf("tool '%s' was not called: %s", name, answer.Message)
			answerCall(req, srv.Name(), &answer)
			return
		}
	}
	if msg, ok := u.notServed("tool", name); ok {
		req.Params.Name = carry(msg)
	}
}

// served reports whether a tool name is registered now.
func (u *upstreams) served(name string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.tools[name]
	return ok
}

// known reports whether a server was ready in this session, so that what it offered is known.
func (u *upstreams) known(server string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.offers[server]
	return ok
}

// awaitFirstStart waits, as a call to it would (upstream's Await), for a server that was never
// ready, and once it is, until its lists are registered: all within the server's timeout. It
// returns why the server cannot be called now (an *upstream.UnavailableError), or nil once it
// is ready.
func (u *upstreams) awaitFirstStart(ctx context.Context, srv *upstream.Server) error {
	if srv.State().State == upstream.Starting {
		u.log.Info("upstream: a call waits for its server's first start", "server", srv.Name())
	}
	// One deadline for both waits: Await's own is the same timeout, and a second one started
	// after it could have the call wait twice as long as the project says.
	deadline := time.Now().Add(srv.Timeout())
	if err := srv.Await(ctx); err != nil {
		return err
	}
	// Ready: the sync that follows (OnChange) registers its tools.
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for {
		u.mu.Lock()
		_, known := u.offers[srv.Name()]
		synced := u.synced
		u.mu.Unlock()
		if known {
			return nil
		}
		select {
		case <-synced:
		case <-ctx.Done():
			return nil // not registered in time: the name is looked up as it stands
		}
	}
}

// notServed explains a {server}__ name of a project server that is not served: ok is false
// for a name of no project server.
func (u *upstreams) notServed(kind, name string) (msg string, ok bool) {
	if u == nil {
		return "", false
	}
	srv, ok := u.sup.Owner(name)
	if !ok {
		return "", false
	}
	st := srv.State()
	// The project's allow/deny is the file's, whatever the server's state: a starting or failed
	// server's left-out tool was told to try again.
	if rule := srv.HiddenBy(strings.TrimPrefix(name, st.Name+upstream.Separator)); kind == "tool" && rule != "" {
		return fmt.Sprintf("tool '%s' is not served: the project's servers.%s.%s leaves it out. Use another tool, or ask the user to change the project file if this one is needed.",
			name, st.Name, rule), true
	}
	switch st.State {
	case upstream.Ready:
		msg = fmt.Sprintf("unknown %s '%s': server %s is running and offers no %s of that name", kind, name, st.Name, kind)
		return msg + fmt.Sprintf(". Call %ss/list for its %ss.", kind, kind), true
	case upstream.Starting:
		u.mu.Lock()
		_, ranBefore := u.offers[st.Name]
		u.mu.Unlock()
		if ranBefore {
			// Restarting: what it offered when it last ran is still listed, and this was not.
			return fmt.Sprintf("unknown %s '%s': server %s is restarting, and offered no %s of that name when it last ran. Call %ss/list for its %ss.",
				kind, name, st.Name, kind, kind, kind), true
		}
		msg = fmt.Sprintf("%s '%s' is not known yet: server %s is starting, and its %ss are listed once it is ready", kind, name, st.Name, kind)
		if st.LastError != "" {
			msg += fmt.Sprintf(" (it failed before: %s)", lastFailure(st))
		}
		return msg + fmt.Sprintf(". If it is only slow to start, try again shortly, or have servers.%s.timeoutMs raised in the project file; if it keeps failing, run 'mcpctl get servers' and fix what its last error says.", st.Name), true
	}
	te := upstream.ToolError(srv.Unavailable())
	return fmt.Sprintf("%s: %s '%s' is not known: %s %s", te.Code, kind, name, sentence(te.Message), te.Hint()), true
}

// lastFailure is a server's last error with its last stderr line.
func lastFailure(st upstream.Status) string {
	if st.LastStderr == "" {
		return st.LastError
	}
	return fmt.Sprintf("%s; its last stderr line: %q", st.LastError, st.LastStderr)
}

// linkTimeout bounds how long delivering a linked prompt waits for its upstream resource.
const linkTimeout = 5 * time.Second

// readLinked fetches a linked prompt's content (its url is mcp+{server}:{resource-uri}) from the
// upstream resource. ok is false when the url is no link; a link that cannot be read is dead,
// and err says why.
func (u *upstreams) readLinked(ctx context.Context, url string) (text string, ok bool, err error) {
	rest, found := strings.CutPrefix(url, "mcp+")
	if !found {
		return "", false, nil
	}
	name, uri, found := strings.Cut(rest, ":")
	if !found || name == "" || uri == "" {
		return "", true, errors.New("the link is not mcp+{server}:{resource-uri}")
	}
	if u == nil || u.sup.Server(name) == nil {
		return "", true, errors.New("the project has no server " + name)
	}
	// A server still starting is waited for, but a briefing or a prompt is not held up for
	// long by one link.
	ctx, cancel := context.WithTimeout(ctx, linkTimeout)
	defer cancel()
	res, err := u.sup.Server(name).ReadResource(ctx, uri)
	if err != nil {
		return "", true, err
	}
	var b strings.Builder
	for _, c := range res.Contents {
		if t, isText := c.(mcp.TextResourceContents); isText {
			b.WriteString(t.Text)
		}
	}
	return b.String(), true, nil
}

// states is each upstream's state, for health_check.
func (u *upstreams) states() []upstream.Status {
	if u == nil {
		return nil
	}
	return u.sup.States()
}

// untrustedServers are the servers project p declares but does not start, sorted: none unless
// untrusted says why they are not (Config.Untrusted: a repository's project file nobody has
// trusted).
func untrustedServers(p *gate.Project, untrusted string) []string {
	if untrusted == "" || p == nil {
		return nil
	}
	names := make([]string, 0, len(p.Servers))
	for name := range p.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// untrustedNote is what the initialize instructions add when project p's servers are not
// started, untrusted saying why: without it the model reads a CLAUDE.md that names db__query,
// finds no such tool, and concludes it does not exist, while the reason went only to mcpctl's
// stderr. A function of the project and the reason alone, so a briefing made outside a server
// (Briefer) says the same as a served session.
func untrustedNote(p *gate.Project, untrusted string) string {
	names := untrustedServers(p, untrusted)
	if len(names) == 0 {
		return ""
	}
	prefixes := make([]string, len(names))
	for i, n := range names {
		prefixes[i] = n + upstream.Separator + "*"
	}
	return fmt.Sprintf("\n\nThis project's own MCP servers (%s) are not started, so their tools (%s) are missing: %s. "+
		"Tell the user; once they have run that, reconnecting this MCP server starts them.",
		strings.Join(names, ", "), strings.Join(prefixes, ", "), strings.TrimSuffix(untrusted, "."))
}

// untrustedCall answers a call to a tool of a server the project declares but does not start
// (untrustedServers) as one to a server that is down: an UPSTREAM_UNAVAILABLE result saying why
// and that only the user can start it, instead of "no tool of that name", a malformed request.
func (c *core) untrustedCall(_ context.Context, _ any, req *mcp.CallToolRequest) {
	if req == nil {
		return
	}
	if msg, ok := c.untrustedName("tool", req.Params.Name); ok {
		server, _, _ := strings.Cut(req.Params.Name, upstream.Separator)
		answerCall(req, server, &promptlib.Error{Code: promptlib.CodeUpstreamUnavailable, Message: msg, Advice: untrustedAdvice})
	}
}

// untrustedAdvice is what to do about a name of a server that is not started.
const untrustedAdvice = "Only the user can do that: tell them, and once they have, reconnecting this MCP server starts the servers."

// untrustedName explains a name of a tool or prompt (kind) of a server the project declares but
// does not start: ok is false for any other name. It ends at why; untrustedAdvice says what to
// do.
func (c *core) untrustedName(kind, name string) (msg string, ok bool) {
	if c.cfg.Untrusted == "" || c.cfg.Project == nil {
		return "", false
	}
	server, _, ok := strings.Cut(name, upstream.Separator)
	if !ok {
		return "", false
	}
	if _, declared := c.cfg.Project.Servers[server]; !declared {
		return "", false
	}
	return fmt.Sprintf("%s '%s' is not available: it is a %s of the project's server %s, and the project's servers are not started: %s",
		kind, name, kind, server, strings.TrimSuffix(c.cfg.Untrusted, ".")), true
}
