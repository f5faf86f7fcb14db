package mcpserver

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
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
	tools     map[string]string // served tool name → its server
	resources map[string]bool   // registered resource URIs
	templates map[string]bool   // registered template URIs
	prompts   []mcp.Prompt      // the upstreams' prompts, by name
	listing   []mcp.Resource    // the upstreams' resources, by name
}

// newUpstreams starts the project's servers in the background: initialize never waits for them.
func newUpstreams(ctx context.Context, c *core, opts upstream.Options) *upstreams {
	u := &upstreams{core: c, tools: map[string]string{}, resources: map[string]bool{}, templates: map[string]bool{}}
	u.sup = upstream.New(c.cfg.Project.Servers, opts)
	u.sup.OnChange(u.sync)
	u.sup.Start(ctx)
	return u
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

	var add []server.ServerTool
	seen := map[string]string{}
	for _, t := range u.sup.Tools() {
		seen[t.Tool.Name] = t.Server
		tl := t.Tool
		if u.pipe != nil && u.pipe.transforms(t.Server+"/"+t.Own, t.Server) {
			// A transformed result carries no structuredContent, so promise none.
			tl.OutputSchema, tl.RawOutputSchema = mcp.ToolOutputSchema{}, nil
		}
		add = append(add, server.ServerTool{Tool: tl, Handler: u.callTool})
	}
	var del []string
	for name, srv := range u.tools {
		if _, ok := seen[name]; ok {
			continue
		}
		// A server that died or is restarting keeps its tools listed: a call answers
		// UPSTREAM_UNAVAILABLE naming it, rather than "no such tool".
		if s := u.sup.Server(srv); s != nil && (s.State().State == upstream.Failed || s.State().State == upstream.Starting) {
			seen[name] = srv
			continue
		}
		del = append(del, name)
	}
	if len(del) > 0 {
		u.srv.DeleteTools(del...)
	}
	if len(add) > 0 {
		u.srv.AddTools(add...)
	}
	u.tools = seen

	var prompts []mcp.Prompt
	for _, p := range u.sup.Prompts() {
		prompts = append(prompts, p.Prompt)
	}
	sort.Slice(prompts, func(i, j int) bool { return prompts[i].Name < prompts[j].Name })
	if !sameUpstreamPrompts(u.prompts, prompts) {
		u.prompts = prompts
		u.srv.SendNotificationToAllClients(mcp.MethodNotificationPromptsListChanged, nil)
	}

	// Resources and templates are added and deleted in one call each: mcp-go sends
	// resources/list_changed per call, and a server's resources arrive together.
	var listing []mcp.Resource
	var addRes []server.ServerResource
	uris := map[string]bool{}
	for _, r := range u.sup.Resources() {
		uris[r.Resource.URI] = true
		listing = append(listing, r.Resource)
		if !u.resources[r.Resource.URI] {
			addRes = append(addRes, server.ServerResource{Resource: r.Resource, Handler: u.readResource})
		}
	}
	var delRes []string
	for uri := range u.resources {
		if !uris[uri] {
			delRes = append(delRes, uri)
		}
	}
	if len(delRes) > 0 {
		u.srv.DeleteResources(delRes...)
	}
	if len(addRes) > 0 {
		u.srv.AddResources(addRes...)
	}
	u.resources = uris
	sort.Slice(listing, func(i, j int) bool { return listing[i].Name < listing[j].Name })
	u.listing = listing
	var addTmpl []server.ServerResourceTemplate
	for _, t := range u.sup.ResourceTemplates() {
		uri := t.Template.URITemplate.Raw()
		if !u.templates[uri] {
			u.templates[uri] = true
			addTmpl = append(addTmpl, server.ServerResourceTemplate{Template: t.Template, Handler: u.readResource})
		}
	}
	if len(addTmpl) > 0 {
		u.srv.AddResourceTemplates(addTmpl...)
	}
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

// source names a served upstream tool's server and its own name there.
func (u *upstreams) source(served string) (server, own string, ok bool) {
	for _, t := range u.sup.Tools() {
		if t.Tool.Name == served {
			return t.Server, t.Own, true
		}
	}
	return "", "", false
}

// callTool forwards a call to its server. An upstream's own error result passes through as it
// is; a server that is not there, or that breaks the protocol, is an isError result naming it.
func (u *upstreams) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	rec := callFrom(ctx)
	if srv, ok := u.sup.Owner(req.Params.Name); ok {
		rec.mu.Lock()
		rec.upstream = srv.Name()
		rec.mu.Unlock()
	}
	var progress upstream.ProgressFunc
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		token := req.Params.Meta.ProgressToken
		progress = func(p, total float64, message string) {
			params := map[string]any{"progressToken": token, "progress": p}
			if total > 0 {
				params["total"] = total
			}
			if message != "" {
				params["message"] = message
			}
			_ = u.srv.SendNotificationToClient(ctx, "notifications/progress", params)
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
		rec.setCode("UPSTREAM_TOOL_ERROR")
	}
	return res, nil
}

func (u *upstreams) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	srv, ok := u.sup.ResourceOwner(req.Params.URI)
	if ok {
		rec := callFrom(ctx)
		rec.mu.Lock()
		rec.upstream = srv.Name()
		rec.mu.Unlock()
	}
	res, err := u.sup.ReadResource(ctx, req.Params.URI)
	if err != nil {
		if te := upstream.ToolError(err); te != nil {
			return nil, errors.New(te.Message + " " + te.Hint())
		}
		return nil, err
	}
	return res.Contents, nil
}

// getPrompt serves an upstream's prompt.
func (u *upstreams) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	res, err := u.sup.GetPrompt(ctx, req.Params.Name, req.Params.Arguments)
	if err != nil {
		if te := upstream.ToolError(err); te != nil {
			return nil, errors.New(te.Message + " " + te.Hint())
		}
		return nil, err
	}
	return res, nil
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
