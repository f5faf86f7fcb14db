package cmd

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"runtime/debug"
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
	EachPrompt(ctx context.Context, fn func(promptlib.Prompt) error) error
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
	if d.gate != nil {
		// A project serves its folders only. The gate follows library changes on its own
		// goroutine, so right after a change of the project's folders the two may disagree
		// until the next change; folders moving in and out of a project is rare.
		s.inScope = d.gate.inScope
	}
	// Caches built from the library subscribe here, before start, to be rebuilt after each
	// change; the gate's prompt index will: s.OnChange(func(*librarySnapshot) { ... }).
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
	// publishing is true while mcp-go's prompt registry catches up with a new snapshot; only
	// then can the two differ (see visiblePrompts).
	publishing atomic.Bool

	// cache keeps each served prompt by id with a hash of what it was built from, so a change
	// to one prompt of 100k re-parses one body, not all, and unchanged prompts keep their
	// pointer (publishing compares pointers first). Touched only by the updater goroutine.
	cache map[string]cachedPrompt
	seed  maphash.Seed

	// inScope, when set, narrows the served library to a project's folders (see servedLibrary).
	inScope func(folderID *string) bool

	// ready is closed when the first load of the library has been tried.
	ready chan struct{}

	// onChange runs after every new snapshot is published, on the updater goroutine. Caches
	// built from the library register here to be invalidated (the gate's prompt index will).
	onChange []func(*librarySnapshot)
}

func newPromptSurface(srv *server.MCPServer, db libraryReader, log *slog.Logger) *promptSurface {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &promptSurface{srv: srv, db: db, log: log, cache: map[string]cachedPrompt{}, seed: maphash.MakeSeed(), ready: make(chan struct{})}
	// Until the first load, the library looks empty.
	s.snap.Store(&librarySnapshot{byName: map[string]*servedPrompt{}, byID: map[string]*servedPrompt{}})
	return s
}

// awaitLoad holds a prompts or resources request until the first load of the library is done,
// at most initialLoadWait: the first prompts/list of a session shows the whole library.
func (s *promptSurface) awaitLoad(ctx context.Context) {
	select {
	case <-s.ready:
		return
	default:
	}
	timer := time.NewTimer(initialLoadWait)
	defer timer.Stop()
	select {
	case <-s.ready:
	case <-ctx.Done():
	case <-timer.C:
		s.log.Info("prompt surface: library still loading; its prompts will follow with list_changed")
	}
}

// OnChange adds f to the functions run after each library change. Call before start.
func (s *promptSurface) OnChange(f func(*librarySnapshot)) { s.onChange = append(s.onChange, f) }

// bigReload is how many newly digested prompts make a reload big enough to return its garbage
// to the OS at once.
const bigReload = 5000

// initialLoadWait bounds how long a prompts or resources request waits for the first load of
// the library. Serving starts at once, so initialize is answered in milliseconds at any library
// size; a normal library has loaded before the client's first prompts/list, and a huge one
// finishes in the background and is announced through list_changed.
const initialLoadWait = time.Second

// start registers everything with the server, loads the library and starts the updater. It
// must run before the server starts serving: it sets server options and hooks.
func (s *promptSurface) start(ctx context.Context) (stop func(), err error) {
	s.configure()

	// Subscribe before the first load, so a change made while loading is not lost.
	changes, unsubscribe := s.db.Changes()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer unsubscribe()
		err := s.reload(ctx)
		close(s.ready)
		s.follow(ctx, changes, err)
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
	hooks.AddBeforeListPrompts(func(ctx context.Context, _ any, _ *mcp.ListPromptsRequest) { s.awaitLoad(ctx) })
	hooks.AddBeforeListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest) { s.awaitLoad(ctx) })
	hooks.AddBeforeComplete(func(ctx context.Context, _ any, _ *mcp.CompleteRequest) { s.awaitLoad(ctx) })
	hooks.AddBeforeGetPrompt(func(ctx context.Context, _ any, _ *mcp.GetPromptRequest) { s.awaitLoad(ctx) })
	hooks.AddBeforeReadResource(func(ctx context.Context, _ any, _ *mcp.ReadResourceRequest) { s.awaitLoad(ctx) })
	hooks.AddBeforeGetPrompt(s.checkGetPrompt)
	hooks.AddBeforeReadResource(s.checkReadResource)
	s.srv.AddResourceTemplates(s.resourceTemplates()...)
	s.srv.AddResource(libraryResource, s.readLibrary)
}

// follow rebuilds the surface after each library change until ctx ends. dbread already
// debounces a burst of edits into one signal; a signal that arrives while a reload runs waits
// in the channel and is served by one more reload, so a burst costs a handful of reloads and
// notifications, never one per edit. A failed reload (the app holding a lock, say) keeps the
// old snapshot and is retried with backoff, so the surface does not wait for the next edit
// to catch up. failed is the result of the load before follow started.
func (s *promptSurface) follow(ctx context.Context, changes <-chan struct{}, failed error) {
	const firstRetry, maxRetry = 500 * time.Millisecond, 30 * time.Second
	retry := time.NewTimer(firstRetry)
	defer retry.Stop()
	backoff := firstRetry
	settle := func(err error) {
		retry.Stop()
		if err == nil || ctx.Err() != nil {
			backoff = firstRetry
			return
		}
		s.log.Error("prompt surface: reading the library failed; serving the last good view", "err", err, "retryIn", backoff.String())
		retry.Reset(backoff)
		backoff = min(2*backoff, maxRetry)
	}
	settle(failed)
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
			settle(s.reload(ctx))
		case <-retry.C:
			settle(s.reload(ctx))
		}
	}
}

// reload reads the library, publishes a new snapshot and tells the server (and so the
// clients) what changed.
func (s *promptSurface) reload(ctx context.Context) error {
	started := time.Now()
	// Bodies are read a chunk at a time and dropped once digested: at 100k prompts the library
	// is hundreds of megabytes, the surface keeps a few hundred bytes a prompt.
	var prompts []promptlib.Prompt
	digests := make(map[string]bodyDigest)
	fresh := 0
	err := s.db.EachPrompt(ctx, func(p promptlib.Prompt) error {
		dg := bodyDigest{hash: s.hash(p)}
		if c, ok := s.cache[p.ID]; !ok || c.hash != dg.hash {
			dg.summary, dg.args, dg.fresh = strings.Clone(promptlib.Summary(p.Content)), detach(promptlib.Placeholders(p.Content)), true
		}
		if dg.fresh {
			fresh++
		}
		digests[p.ID] = dg
		p.Content = ""
		prompts = append(prompts, p)
		return nil
	})
	if err != nil {
		return err
	}
	folders, err := s.db.Folders(ctx)
	if err != nil {
		return err
	}
	next, err := s.build(ctx, prompts, digests, folders)
	if err != nil {
		return err
	}
	s.publishing.Store(true)
	prev := s.snap.Swap(next)
	s.publishPrompts(prev, next)
	s.publishing.Store(false)
	s.publishResources(prev, next)
	for _, f := range s.onChange {
		f(next)
	}
	if fresh > bigReload {
		// A big load leaves the heap far above what the surface keeps; hand it back to the OS
		// now rather than let a long-lived server sit on it.
		debug.FreeOSMemory()
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
}

// servedFolder is one folder as a resource.
type servedFolder struct {
	info      dbread.FolderInfo
	lowerPath string
	resource  mcp.Resource
}

// cachedPrompt is a served prompt with the hash of what it was built from.
type cachedPrompt struct {
	hash uint64
	sp   *servedPrompt
}

// build makes the snapshot of a library read whole. At 100k prompts the first build takes
// seconds, so it gives up when ctx ends: stopping the server must not wait for it.
func (s *promptSurface) build(ctx context.Context, all []promptlib.Prompt, digests map[string]bodyDigest, allFolders []dbread.FolderInfo) (*librarySnapshot, error) {
	prompts, folders := servedLibrary(all, allFolders, s.inScope)
	names := promptlib.Names(prompts)
	snap := &librarySnapshot{
		prompts: make([]*servedPrompt, 0, len(prompts)),
		byName:  make(map[string]*servedPrompt, len(prompts)),
		byID:    make(map[string]*servedPrompt, len(prompts)),
		folders: make([]*servedFolder, 0, len(folders)),
	}
	cache := make(map[string]cachedPrompt, len(prompts))
	for i, p := range prompts {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dg := digests[p.ID]
		c, ok := s.cache[p.ID]
		switch {
		case !ok || dg.fresh:
			c = cachedPrompt{hash: dg.hash, sp: newServedPrompt(p, names[p.ID], dg.summary, dg.args)}
		case c.sp.name != names[p.ID]: // a clash elsewhere renamed it; its body is unchanged
			c = cachedPrompt{hash: dg.hash, sp: c.sp.renamed(names[p.ID])}
		}
		cache[p.ID] = c
		snap.prompts = append(snap.prompts, c.sp)
		snap.byName[c.sp.name] = c.sp
		snap.byID[strings.ToLower(p.ID)] = c.sp
	}
	s.cache = cache // drops deleted prompts
	sort.Slice(snap.prompts, func(i, j int) bool { return snap.prompts[i].name < snap.prompts[j].name })
	for _, f := range folders {
		snap.folders = append(snap.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path), resource: folderResource(f)})
	}
	return snap, nil
}

// hash covers everything a servedPrompt is built from but its name (checked apart, as a title
// clash elsewhere can change it).
func (s *promptSurface) hash(p promptlib.Prompt) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(p.ID)
	h.WriteByte(0)
	h.WriteString(p.Title)
	h.WriteByte(0)
	h.WriteString(p.Content)
	h.WriteByte(0)
	if p.FolderID != nil {
		h.WriteString(*p.FolderID)
	}
	return h.Sum64()
}

// bodyDigest is what the surface derives from a prompt's body: its hash, and for a prompt not
// already cached (fresh), the summary and the arguments.
type bodyDigest struct {
	hash    uint64
	fresh   bool
	summary string
	args    []promptlib.Placeholder
}

// detach copies the strings of args that point into a body (names, defaults, headings), so the
// surface never keeps a whole 100 KB body alive through a 5-byte argument name.
func detach(args []promptlib.Placeholder) []promptlib.Placeholder {
	for i := range args {
		args[i].Name, args[i].Default = strings.Clone(args[i].Name), strings.Clone(args[i].Default)
		for j := range args[i].Uses {
			args[i].Uses[j].Heading = strings.Clone(args[i].Uses[j].Heading)
		}
	}
	return args
}

// renamed is sp under another name (a title clash elsewhere moved it), sharing what the body
// gave it.
func (sp *servedPrompt) renamed(name string) *servedPrompt {
	c := *sp
	c.name = name
	c.prompt.Name = name
	return &c
}

func newServedPrompt(p promptlib.Prompt, name, summary string, args []promptlib.Placeholder) *servedPrompt {
	sp := &servedPrompt{id: p.ID, name: name, title: p.Title, lowerTitle: strings.ToLower(p.Title), prompt: mcpPrompt(name, p.Title, summary, args)}
	if p.FolderID != nil {
		sp.folderID = *p.FolderID
	}
	// Checking arguments needs no more than names, required flags and defaults; the uses are
	// in the argument descriptions already.
	sp.args = make([]promptlib.Placeholder, len(args))
	for i, a := range args {
		sp.args[i] = promptlib.Placeholder{Name: a.Name, Required: a.Required, Default: a.Default, HasDefault: a.HasDefault}
	}
	return sp
}

// publishPrompts registers what was added or changed and removes what went away. Prompts are
// never replaced wholesale (SetPrompts empties the list before refilling it, and a client
// listing in between would see no prompts). mcp-go sends prompts/list_changed itself on
// AddPrompts and DeletePrompts, so an update sends at most two and an unchanged list none.
func (s *promptSurface) publishPrompts(prev, next *librarySnapshot) {
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
