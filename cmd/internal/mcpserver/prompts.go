package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// promptPageSize is how many prompts or resources one list page holds: small enough that the
// first page of a 100k-prompt library is quick to send and read, large enough that a client
// scrolling a normal library needs a page or two.
const promptPageSize = 200

// promptSurface is the library as MCP prompts and resources (with templates and completion).
// It serves the view's snapshots and tells the clients what changed.
type promptSurface struct {
	srv  *server.MCPServer
	view *view
	db   libraryReader
	log  *slog.Logger

	// publishing is true while mcp-go's prompt registry catches up with a new snapshot; only
	// then can the two differ (see visiblePrompts).
	publishing atomic.Bool
}

// newPromptSurface registers the surface with srv and subscribes it to the view. It must run
// before the server serves: it sets server options and hooks.
func newPromptSurface(srv *server.MCPServer, v *view, log *slog.Logger) *promptSurface {
	s := &promptSurface{srv: srv, view: v, db: v.db, log: log}
	server.WithPaginationLimit(promptPageSize)(srv)
	server.WithResourceCompletionProvider(idCompleter{s})(srv)
	server.WithPromptFilter(s.visiblePrompts)(srv)
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	wait := func(ctx context.Context) { v.awaitLoad(ctx) }
	hooks.AddBeforeListPrompts(func(ctx context.Context, _ any, _ *mcp.ListPromptsRequest) { wait(ctx) })
	hooks.AddBeforeListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest) { wait(ctx) })
	hooks.AddBeforeComplete(func(ctx context.Context, _ any, _ *mcp.CompleteRequest) { wait(ctx) })
	hooks.AddBeforeGetPrompt(func(ctx context.Context, _ any, _ *mcp.GetPromptRequest) { wait(ctx) })
	hooks.AddBeforeReadResource(func(ctx context.Context, _ any, _ *mcp.ReadResourceRequest) { wait(ctx) })
	hooks.AddBeforeGetPrompt(s.checkGetPrompt)
	hooks.AddBeforeReadResource(s.checkReadResource)
	srv.AddResourceTemplates(s.resourceTemplates()...)
	srv.AddResource(libraryResource, s.readLibrary)
	v.subscribe(s.publish)
	return s
}

func (s *promptSurface) snap() *snapshot { return s.view.current() }

// publish makes mcp-go's registries match a new snapshot.
func (s *promptSurface) publish(prev, next *snapshot) {
	s.publishing.Store(true)
	s.publishPrompts(prev, next)
	s.publishing.Store(false)
	s.publishResources(prev, next)
}

// publishPrompts registers what was added or changed and removes what went away. Prompts are
// never replaced wholesale (SetPrompts empties the list before refilling it, and a client
// listing in between would see no prompts). mcp-go sends prompts/list_changed itself on
// AddPrompts and DeletePrompts, so an update sends at most two and an unchanged list none.
func (s *promptSurface) publishPrompts(prev, next *snapshot) {
	var add []server.ServerPrompt
	handler := server.PromptHandlerFunc(s.getPrompt) // one value for all, not one closure each
	for _, p := range next.prompts {
		if prev != nil {
			if old := prev.byName[p.name]; old == p || (old != nil && samePrompt(old.prompt, p.prompt)) {
				continue
			}
		}
		add = append(add, server.ServerPrompt{Prompt: p.prompt, Handler: handler})
	}
	var del []string
	if prev != nil {
		for _, p := range prev.prompts {
			if next.byName[p.name] == nil {
				del = append(del, p.name)
			}
		}
	}
	if len(add) > 0 {
		s.srv.AddPrompts(add...)
	}
	if len(del) > 0 {
		s.srv.DeletePrompts(del...)
	}
}

// visiblePrompts shows the registered prompts the current snapshot serves. A change registers
// new prompts before it deletes old ones, and mcp-go notifies on each call; the filter makes the
// list complete and current already at the first notification (a rename never shows both
// names), so a client that re-lists on it sees the change.
func (s *promptSurface) visiblePrompts(_ context.Context, prompts []mcp.Prompt) []mcp.Prompt {
	if !s.publishing.Load() {
		return prompts // the registry is the snapshot: nothing to hide, no lookups to pay
	}
	snap := s.snap()
	out := prompts[:0]
	for _, p := range prompts {
		if snap.byName[p.Name] != nil {
			out = append(out, p)
		}
	}
	return out
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
