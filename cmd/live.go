package cmd

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// libraryReader is what the prompt surface reads; *dbread.DB is the real one, tests and
// benchmarks use an in-memory library.
type libraryReader interface {
	AllPrompts(ctx context.Context) ([]promptlib.Prompt, error)
	Folders(ctx context.Context) ([]dbread.FolderInfo, error)
	Prompt(ctx context.Context, id string) (promptlib.Prompt, error)
	Folder(ctx context.Context, id string) (promptlib.Folder, error)
	Changes() (<-chan struct{}, func())
}

var _ libraryReader = (*dbread.DB)(nil)

// promptPageSize is how many prompts or resources one list page holds: small enough that the
// first page of a 100k-prompt library is quick to send and read, large enough that a client
// scrolling a normal library needs a page or two.
const promptPageSize = 200

// startPromptSurface registers the library's prompts as MCP prompts, its prompts and folders as
// resources (with templates and completion), and starts the live updater that follows library
// changes. stop ends the updater and waits for it.
func startPromptSurface(ctx context.Context, d *deps) (stop func(), err error) {
	s := newPromptSurface(d.srv, d.db, d.log)
	return s.start(ctx)
}

// promptSurface is the library as MCP prompts and resources. The current view is an immutable
// snapshot swapped atomically, so handlers never lock and never see half an update; only the
// updater goroutine builds snapshots.
type promptSurface struct {
	srv *server.MCPServer
	db  libraryReader
	log *slog.Logger

	snap atomic.Pointer[librarySnapshot]

	// derived caches each prompt's summary and arguments by a hash of its title and content, so
	// a change to one prompt of 100k re-parses one body, not all. Touched only by whoever
	// builds snapshots (start, then the updater goroutine).
	derived map[string]derivedPrompt
	seed    maphash.Seed

	// onChange runs after every new snapshot is published, on the updater goroutine. Caches
	// built from the library register here to be invalidated (the gate's prompt index will).
	onChange []func(*librarySnapshot)
}

func newPromptSurface(srv *server.MCPServer, db libraryReader, log *slog.Logger) *promptSurface {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &promptSurface{srv: srv, db: db, log: log, derived: map[string]derivedPrompt{}, seed: maphash.MakeSeed()}
}

// OnChange adds f to the functions run after each library change. Call before start.
func (s *promptSurface) OnChange(f func(*librarySnapshot)) { s.onChange = append(s.onChange, f) }

// start loads the library, registers everything with the server and starts the updater.
// It must run before the server starts serving: it sets server options and hooks.
func (s *promptSurface) start(ctx context.Context) (stop func(), err error) {
	// Subscribe before the first load, so a change made while loading is not lost.
	changes, unsubscribe := s.db.Changes()
	if err := s.reload(ctx); err != nil {
		unsubscribe()
		return nil, err
	}
	s.configure()

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer unsubscribe()
		s.follow(ctx, changes)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}, nil
}

// configure sets what the server needs beyond the prompts and resources themselves. Options
// are applied to the built server (a ServerOption is a func on it) because they need the
// surface; this is safe only before serving starts.
func (s *promptSurface) configure() {
	server.WithPaginationLimit(promptPageSize)(s.srv)
	server.WithResourceCompletionProvider(idCompleter{s})(s.srv)
	server.WithPromptFilter(s.visiblePrompts)(s.srv)
	hooks := s.srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s.srv)
	}
	hooks.AddBeforeGetPrompt(s.checkGetPrompt)
	hooks.AddBeforeReadResource(s.checkReadResource)
	s.srv.AddResourceTemplates(s.resourceTemplates()...)
}

// follow rebuilds the surface after each library change until ctx ends. dbread already
// debounces a burst of edits into one signal; a signal that arrives while a reload runs waits
// in the channel and is served by one more reload, so a burst costs a handful of reloads and
// notifications, never one per edit.
func (s *promptSurface) follow(ctx context.Context, changes <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
			if err := s.reload(ctx); err != nil && ctx.Err() == nil {
				// The old snapshot stays; the next change retries.
				s.log.Error("prompt surface: reload after a library change", "err", err)
			}
		}
	}
}

// reload reads the library, publishes a new snapshot and tells the server (and so the
// clients) what changed.
func (s *promptSurface) reload(ctx context.Context) error {
	started := time.Now()
	prompts, err := s.db.AllPrompts(ctx)
	if err != nil {
		return err
	}
	folders, err := s.db.Folders(ctx)
	if err != nil {
		return err
	}
	next := s.build(prompts, folders)
	prev := s.snap.Swap(next)
	s.publishPrompts(prev, next)
	s.publishResources(prev, next)
	for _, f := range s.onChange {
		f(next)
	}
	s.log.Debug("prompt surface loaded", "prompts", len(next.prompts), "folders", len(next.folders),
		"ms", time.Since(started).Milliseconds())
	return nil
}

// librarySnapshot is the served part of the library at one moment. Never modified once
// published.
type librarySnapshot struct {
	prompts []*servedPrompt // by name
	byName  map[string]*servedPrompt
	byID    map[string]*servedPrompt // by lower-case id
	folders []*servedFolder          // tree order
}

// servedPrompt is one library prompt as an MCP prompt and resource.
type servedPrompt struct {
	id, name, title string
	lowerTitle      string
	folderID        string // "" at the top level
	args            []promptlib.Placeholder
	prompt          mcp.Prompt
	resource        mcp.Resource
}

// servedFolder is one folder as a resource.
type servedFolder struct {
	info      dbread.FolderInfo
	lowerPath string
	resource  mcp.Resource
}

type derivedPrompt struct {
	hash    uint64
	summary string
	args    []promptlib.Placeholder
}

func (s *promptSurface) build(all []promptlib.Prompt, allFolders []dbread.FolderInfo) *librarySnapshot {
	prompts, folders := servedLibrary(all, allFolders)
	names := promptlib.Names(prompts)
	snap := &librarySnapshot{
		prompts: make([]*servedPrompt, 0, len(prompts)),
		byName:  make(map[string]*servedPrompt, len(prompts)),
		byID:    make(map[string]*servedPrompt, len(prompts)),
		folders: make([]*servedFolder, 0, len(folders)),
	}
	derived := make(map[string]derivedPrompt, len(prompts))
	for _, p := range prompts {
		dp := s.derive(p)
		derived[p.ID] = dp
		sp := &servedPrompt{id: p.ID, name: names[p.ID], title: p.Title, lowerTitle: strings.ToLower(p.Title), args: dp.args}
		if p.FolderID != nil {
			sp.folderID = *p.FolderID
		}
		sp.prompt = mcpPrompt(sp.name, p.Title, dp.summary, dp.args)
		sp.resource = promptResource(sp.name, p, dp.summary)
		snap.prompts = append(snap.prompts, sp)
		snap.byName[sp.name] = sp
		snap.byID[strings.ToLower(p.ID)] = sp
	}
	s.derived = derived // drops deleted prompts
	sort.Slice(snap.prompts, func(i, j int) bool { return snap.prompts[i].name < snap.prompts[j].name })
	for _, f := range folders {
		snap.folders = append(snap.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path), resource: folderResource(f)})
	}
	return snap
}

func (s *promptSurface) derive(p promptlib.Prompt) derivedPrompt {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(p.Title)
	h.WriteByte(0)
	h.WriteString(p.Content)
	sum := h.Sum64()
	if dp, ok := s.derived[p.ID]; ok && dp.hash == sum {
		return dp
	}
	return derivedPrompt{hash: sum, summary: promptlib.Summary(p.Content), args: promptlib.Placeholders(p.Content)}
}

// publishPrompts registers what was added or changed and removes what went away. Prompts are
// never replaced wholesale (SetPrompts empties the list before refilling it, and a client
// listing in between would see no prompts). mcp-go sends prompts/list_changed itself on
// AddPrompts and DeletePrompts, so an update sends at most two and an unchanged list none.
func (s *promptSurface) publishPrompts(prev, next *librarySnapshot) {
	var add []server.ServerPrompt
	for _, p := range next.prompts {
		if prev != nil {
			if old := prev.byName[p.name]; old != nil && samePrompt(old.prompt, p.prompt) {
				continue
			}
		}
		add = append(add, server.ServerPrompt{Prompt: p.prompt, Handler: s.getPrompt})
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
	snap := s.snap.Load()
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
