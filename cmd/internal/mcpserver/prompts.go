package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// promptPageSize is how many prompts or resources one list page holds. Many clients read only
// the first page of a list (the Python and TypeScript SDKs return one page per call, and agents
// built on them often stop there), so a page holds a whole personal library of up to 1,000
// prompts: about 480 KB, 7 ms to make. A larger library is paged, so that its first page is still
// quick to send and read. tools/list (and the few resource templates) are never paged, so mcp-go
// gets no pagination limit: Claude Code, Codex and claude.ai read only the first page of tools,
// and a project whose servers bring hundreds of tools would lose the rest, mcpctl's own among
// them.
const promptPageSize = 1000

// promptSurface is the library as MCP prompts and resources (with templates and completion).
// Lists are served from the view's snapshot, not from mcp-go's registry (quirks.go, 2), and
// list_changed is sent when what a list shows changed.
type promptSurface struct {
	srv  *server.MCPServer
	view *view
	db   libraryReader
	log  *slog.Logger

	up *upstreams // the project's servers' prompts and resources, listed beside the library's
	// untrusted explains a name of a server the project declares but does not start (nil when
	// it starts them all): core.untrustedName.
	untrusted func(kind, name string) (string, bool)

	// listing is the resources/list of the current snapshot, in name order.
	listing atomic.Pointer[resourceList]
	// listedEarly is set when a list was answered before the first load finished: the first
	// load then changes what the client saw, and is announced.
	listedEarly atomic.Bool
}

// newPromptSurface registers the surface with srv and subscribes it to the view. It must run
// before the server serves: it sets server options and hooks.
func newPromptSurface(srv *server.MCPServer, v *view, log *slog.Logger) *promptSurface {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &promptSurface{srv: srv, view: v, db: v.db, log: log}
	s.listing.Store(newResourceList(v.current()))
	server.WithResourceCompletionProvider(idCompleter{s})(srv)
	server.WithPromptCompletionProvider(promptCompleter{s})(srv)
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	wait := func(ctx context.Context) { v.awaitCurrent(ctx) }
	hooks.AddBeforeListPrompts(func(ctx context.Context, _ any, _ *mcp.ListPromptsRequest) { wait(ctx) })
	hooks.AddBeforeListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest) { wait(ctx) })
	hooks.AddBeforeComplete(func(ctx context.Context, _ any, _ *mcp.CompleteRequest) { wait(ctx) })
	hooks.AddBeforeGetPrompt(func(ctx context.Context, _ any, _ *mcp.GetPromptRequest) { wait(ctx) })
	hooks.AddBeforeReadResource(func(ctx context.Context, _ any, _ *mcp.ReadResourceRequest) { wait(ctx) })
	hooks.AddBeforeGetPrompt(s.checkGetPrompt)
	hooks.AddBeforeReadResource(s.checkReadResource)
	hooks.AddAfterListPrompts(s.listPrompts)
	hooks.AddAfterListResources(s.listResources)
	installRouter(srv, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if s.up.servesPrompt(req.Params.Name) {
			return s.up.getPrompt(ctx, req)
		}
		return s.getPrompt(ctx, req)
	})
	srv.AddResourceTemplates(s.resourceTemplates()...)
	srv.AddResource(libraryResource, s.readLibrary)
	v.subscribe(s.publish)
	return s
}

func (s *promptSurface) snap() *snapshot { return s.view.current() }

func (s *promptSurface) loaded() bool {
	select {
	case <-s.view.ready:
		return true
	default:
		return false
	}
}

// listPrompts fills a prompts/list page from the snapshot: the prompts after the cursor's name,
// in name order.
func (s *promptSurface) listPrompts(_ context.Context, _ any, req *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
	if res == nil {
		return
	}
	if !s.loaded() {
		s.listedEarly.Store(true)
	}
	lib, ups := &s.snap().prompts, s.up.promptList()
	after := cursorAfter(req.Params.Cursor)
	i := lib.after(after)
	j := sort.Search(len(ups), func(k int) bool { return ups[k].Name > after })
	res.Prompts = make([]mcp.Prompt, 0, min(promptPageSize, lib.len()-i+len(ups)-j))
	// Both lists are in name order: merge them into one.
	for len(res.Prompts) < promptPageSize && (i < lib.len() || j < len(ups)) {
		if j >= len(ups) || (i < lib.len() && lib.nameAt(i) < ups[j].Name) {
			res.Prompts = append(res.Prompts, lib.listed(i).mcpPrompt())
			i++
		} else {
			res.Prompts = append(res.Prompts, ups[j])
			j++
		}
	}
	res.NextCursor = ""
	if i < lib.len() || j < len(ups) {
		res.NextCursor = cursorOf(res.Prompts[len(res.Prompts)-1].Name)
	}
}

// listResources fills a resources/list page from the listing, as listPrompts does. Unlike
// prompt names, a resource's name is not unique: a project server may give one the name of
// another server's or a library prompt's. So pages are cut by name and then URI, and the
// cursor carries both; by name alone a page could end between two resources of one name and
// the next page skip the second.
func (s *promptSurface) listResources(_ context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	if res == nil {
		return
	}
	if !s.loaded() {
		s.listedEarly.Store(true)
	}
	lib, ups := s.listing.Load(), s.up.resourceList()
	name, uri := resourceCursorAfter(req.Params.Cursor)
	i := lib.after(name, uri)
	j := sort.Search(len(ups), func(k int) bool { return compareResource(ups[k].Name, ups[k].URI, name, uri) > 0 })
	res.Resources = make([]mcp.Resource, 0, min(promptPageSize, lib.len()-i+len(ups)-j))
	// Both lists are in (name, URI) order: merge them into one.
	for len(res.Resources) < promptPageSize && (i < lib.len() || j < len(ups)) {
		if j >= len(ups) || (i < lib.len() && lib.compare(i, ups[j].Name, ups[j].URI) < 0) {
			res.Resources = append(res.Resources, lib.at(i))
			i++
		} else {
			res.Resources = append(res.Resources, ups[j])
			j++
		}
	}
	res.NextCursor = ""
	if i < lib.len() || j < len(ups) {
		last := res.Resources[len(res.Resources)-1]
		res.NextCursor = resourceCursorOf(last.Name, last.URI)
	}
}

// publish serves a new snapshot's lists and tells the client what changed. The first load is
// no change to a client that has not listed yet.
func (s *promptSurface) publish(prev, next *snapshot) {
	first := prev == nil || !prev.loaded
	if !first && sameTable(&prev.prompts, &next.prompts) && sameFolderList(prev.folders, next.folders) {
		// An unchanged reread: the lists are the same, and the listing of 10k prompts need not
		// be made again to find that out.
		s.listing.Store(&resourceList{snap: next, entries: s.listing.Load().entries})
		return
	}
	oldListing := s.listing.Load()
	listing := newResourceList(next)
	s.listing.Store(listing)
	if first && !s.listedEarly.Load() {
		return
	}
	if first || !samePrompts(&prev.prompts, &next.prompts) {
		s.srv.SendNotificationToAllClients(mcp.MethodNotificationPromptsListChanged, nil)
	}
	if first || !sameResources(oldListing, listing) {
		s.srv.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
	}
}

// sameTable reports whether two snapshots share one table of prompts.
func sameTable(a, b *promptTable) bool {
	return a.len() == b.len() && (a.len() == 0 || &a.recs[0] == &b.recs[0])
}

// sameFolderList reports whether two snapshots serve the same folders, as resources show them.
func sameFolderList(a, b []*servedFolder) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameResource(folderResource(a[i].info), folderResource(b[i].info)) {
			return false
		}
	}
	return true
}

func samePrompts(a, b *promptTable) bool {
	if a.len() != b.len() {
		return false
	}
	for i := range a.len() {
		if !a.at(i).sameListing(b.at(i)) {
			return false
		}
	}
	return true
}

func samePrompt(a, b mcp.Prompt) bool {
	if a.Name != b.Name || a.Title != b.Title || a.Description != b.Description || len(a.Arguments) != len(b.Arguments) {
		return false
	}
	for i := range a.Arguments {
		if a.Arguments[i] != b.Arguments[i] {
			return false
		}
	}
	return true
}

// errNotServed is the cause behind a prompt or resource the library no longer has.
var errNotServed = errors.New("not in the library")
