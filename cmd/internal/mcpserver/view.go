package mcpserver

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

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// libraryReader is what the view reads; *dbread.DB is the real one, unit tests and benchmarks
// use an in-memory library.
type libraryReader interface {
	EachPrompt(ctx context.Context, fn func(promptlib.Prompt) error) error
	Folders(ctx context.Context) ([]dbread.FolderInfo, error)
	Prompt(ctx context.Context, id string) (promptlib.Prompt, error)
	Folder(ctx context.Context, id string) (promptlib.Folder, error)
	Changes() (<-chan struct{}, func())
}

var _ libraryReader = (*dbread.DB)(nil)

// view is the one follower of the library. After every change it reads each prompt once and
// computes, in that one pass, everything the server serves from: the set the session may see
// (the project's folders, mcpctl-system hidden), unique names, summaries, arguments and
// digests, and the gate's documents. Components subscribe to be handed each new snapshot; a
// snapshot is immutable, so handlers read it without locks and never see half an update.
type view struct {
	db      libraryReader
	project *gate.Project // nil: the whole library
	log     *slog.Logger

	snap atomic.Pointer[snapshot]
	// reads counts full reads of the library, so a test can hold the view to one per change.
	reads atomic.Int64

	// cache keeps what each prompt's body gave, by id, with a hash of what it was built from:
	// a change to one prompt of 100k re-parses one body, not all. Touched only by the follower.
	cache map[string]cachedPrompt
	seed  maphash.Seed

	subs  []func(prev, next *snapshot)
	ready chan struct{} // closed once the first load has been tried

	// keep, when set, is the file the view is kept in between runs (persist.go); kept is when
	// it was last written.
	keep, keepDB string
	kept         time.Time

	// tocBytes, when set, sizes a prompt's table of contents under the content pipeline in
	// force for briefings (0: none), so the gate can pack a big prompt as its contents.
	tocBytes func(ctx context.Context, p promptlib.Prompt) int
}

// snapshot is the library as one session sees it at one moment. Never modified once published.
type snapshot struct {
	prompts []*servedPrompt          // by name
	byName  map[string]*servedPrompt // by MCP prompt name
	byID    map[string]*servedPrompt // by promptlib.Key(id)
	folders []*servedFolder          // the folders the session sees, in tree order
	all     []dbread.FolderInfo      // every folder of the library, for path and id lookups
	scope   scope
	loaded  bool // false only for the empty view before the first load

	// system holds the gate texts' prompts (mcpctl-system), bodies included: a handful.
	system []promptlib.Prompt
	// docs are what the gate ranks, one per visible prompt; nil without a project.
	docs []gate.Doc
}

// scope is the part of the library a session sees: gate.Scope (the one home of that rule), and
// what the tools may read besides.
type scope struct{ *gate.Scope }

// reads reports whether the session's tools may read a folder (nil: the top level): the
// project's folders, or the whole library. The mcpctl-system folder stays readable by id and by
// the library tools when no project folder narrows the session (it is the user's library, and
// how gate texts are edited without the app).
func (s scope) reads(folderID *string) bool {
	if s.Folders() == nil {
		return true
	}
	return folderID != nil && s.Sees(folderID)
}

// sees reports whether a folder's prompts are served as slash commands, resources and gate
// prompts.
func (s scope) sees(folderID *string) bool { return s.Sees(folderID) }

// ids lists the folders the session reads, nil for the whole library.
func (s scope) ids() []string { return s.Folders() }

func wholeLibrary() scope {
	sc, _ := gate.NewScope(nil, gate.NoProject()) // a project without a folder cannot fail
	return scope{sc}
}

// servedPrompt is one visible library prompt, as an MCP prompt and resource.
type servedPrompt struct {
	id, name, title string
	lowerTitle      string
	folderID        string // "" at the top level
	summary         string
	bytes           int
	args            []promptlib.Placeholder // names, required flags and defaults
	prompt          mcp.Prompt              // as prompts/list shows it
}

// servedFolder is one visible folder.
type servedFolder struct {
	info      dbread.FolderInfo
	lowerPath string
}

// cachedPrompt is what a prompt's body gave, with the hash of what it was built from.
type cachedPrompt struct {
	hash uint64
	sp   *servedPrompt
	doc  *gate.Doc // the gate's view of it, with a project
}

func newView(db libraryReader, project *gate.Project, log *slog.Logger) *view {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &view{db: db, project: project, log: log, cache: map[string]cachedPrompt{}, seed: maphash.MakeSeed(), ready: make(chan struct{})}
	v.snap.Store(&snapshot{byName: map[string]*servedPrompt{}, byID: map[string]*servedPrompt{}, scope: wholeLibrary()})
	return v
}

// subscribe adds f to the functions handed each new snapshot, on the follower goroutine, in
// the order subscribed. Call before start.
func (v *view) subscribe(f func(prev, next *snapshot)) { v.subs = append(v.subs, f) }

func (v *view) current() *snapshot { return v.snap.Load() }

// start loads the library and follows it until stop. With wait set the first load happens
// before start returns (a project's initialize instructions carry its index), and its error is
// returned; otherwise it runs in the background and ready closes when it is done.
func (v *view) start(ctx context.Context, wait bool) (stop func(), err error) {
	// Subscribe before the first load, so a change made while loading is not lost.
	changes, unsubscribe := v.db.Changes()
	ctx, cancel := context.WithCancel(ctx)
	var first error
	if wait {
		if first = v.reload(ctx); first != nil {
			cancel()
			unsubscribe()
			close(v.ready)
			return nil, first
		}
		close(v.ready)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer unsubscribe()
		var err error
		if !wait {
			if v.keep != "" {
				v.restore() // off the serving path: initialize never waits for it
			}
			err = v.reload(ctx)
			v.markReady()
		}
		v.follow(ctx, changes, err)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}, nil
}

// markReady closes ready once.
func (v *view) markReady() {
	select {
	case <-v.ready:
	default:
		close(v.ready)
	}
}

// restore serves the view kept by the last run, if any, until the first read of the library
// replaces it: the first prompts/list of a restart is whole at once, whatever the library's size.
func (v *view) restore() {
	pv, err := loadView(v.keep, v.keepDB)
	if err != nil {
		v.log.Warn("library view: the kept view cannot be read; reading the library", "err", err)
	}
	if pv == nil {
		return
	}
	snap := pv.restore()
	prev := v.snap.Swap(snap)
	for _, f := range v.subs {
		f(prev, snap)
	}
	v.markReady()
	v.log.Debug("library view restored", "prompts", len(snap.prompts))
}

// keepEvery bounds how often the view is written to its file (at 100k prompts a write is 45 MB
// and a second of work): a burst of edits costs one write, and a restart soon after an edit
// starts from a view the first read corrects, with list_changed.
const keepEvery = time.Minute

// save writes the view to its file after a read, at most every keepEvery.
func (v *view) save(snap *snapshot) {
	if v.keep == "" || time.Since(v.kept) < keepEvery {
		return
	}
	v.kept = time.Now()
	if err := saveView(v.keep, v.keepDB, snap); err != nil {
		v.log.Warn("library view: not kept for the next start", "err", err)
	}
}

// initialLoadWait bounds how long a request that needs the library waits for the first load
// (or the kept view of the last run: 1.5 s at 100k prompts on two cores). Serving starts at
// once, so initialize is answered in milliseconds at any library size; a list that waited in
// vain is answered with what there is, and list_changed follows.
const initialLoadWait = 3 * time.Second

// awaitLoad holds a request until the first load of the library is done, at most
// initialLoadWait.
func (v *view) awaitLoad(ctx context.Context) {
	select {
	case <-v.ready:
		return
	default:
	}
	timer := time.NewTimer(initialLoadWait)
	defer timer.Stop()
	select {
	case <-v.ready:
	case <-ctx.Done():
	case <-timer.C:
		v.log.Info("library view: still loading; its prompts will follow with list_changed")
	}
}

// follow reloads after each library change until ctx ends. dbread debounces a burst of edits
// into one signal; a signal that arrives while a reload runs waits in the channel and is served
// by one more reload. A failed reload (the app holding a lock, say) keeps the old snapshot and
// is retried with backoff. failed is the result of the load before follow started.
func (v *view) follow(ctx context.Context, changes <-chan struct{}, failed error) {
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
		v.log.Error("library view: reading the library failed; serving the last good view", "err", err, "retryIn", backoff.String())
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
			settle(v.reload(ctx))
		case <-retry.C:
			settle(v.reload(ctx))
		}
	}
}

// bigReload is how many newly digested prompts make a reload big enough to return its garbage
// to the OS at once.
const bigReload = 5000

// reload reads the library once and publishes the snapshot it gives.
func (v *view) reload(ctx context.Context) error {
	started := time.Now()
	v.reads.Add(1)
	all, err := v.db.Folders(ctx)
	if err != nil {
		return err
	}
	sc, err := v.scopeOf(all)
	if err != nil {
		return err
	}
	// Bodies are read a chunk at a time and dropped once digested: at 100k prompts the library
	// is hundreds of megabytes, the view keeps a few hundred bytes a prompt.
	var visible []promptlib.Prompt
	digests := make(map[string]bodyDigest)
	var system []promptlib.Prompt
	paths := make(map[string]string, len(all))
	for _, f := range all {
		paths[promptlib.Key(f.ID)] = f.Path
	}
	fresh := 0
	err = v.db.EachPrompt(ctx, func(p promptlib.Prompt) error {
		if sc.System(p.FolderID) {
			system = append(system, p)
			return nil
		}
		if !sc.sees(p.FolderID) {
			return nil
		}
		dg := bodyDigest{hash: v.hash(p), bytes: len(p.Content)}
		c, ok := v.cache[p.ID]
		if !ok || c.hash != dg.hash {
			dg.summary, dg.args, dg.fresh = strings.Clone(promptlib.Summary(p.Content)), detach(promptlib.Placeholders(p.Content)), true
			fresh++
		}
		if v.project != nil {
			path := ""
			if p.FolderID != nil {
				path = paths[promptlib.Key(*p.FolderID)]
			}
			if dg.fresh || c.doc == nil || c.doc.FolderPath != path {
				// Named later, when every name is known; the name only labels the Doc.
				d := gate.NewDoc(p, "", path)
				if v.tocBytes != nil {
					d.TOCBytes = v.tocBytes(ctx, p)
				}
				dg.doc = &d
			} else {
				dg.doc = c.doc
			}
		}
		digests[p.ID] = dg
		p.Content = ""
		visible = append(visible, p)
		return nil
	})
	if err != nil {
		return err
	}
	next, err := v.build(ctx, visible, digests, all, sc)
	if err != nil {
		return err
	}
	next.system = system
	prev := v.snap.Swap(next)
	for _, f := range v.subs {
		f(prev, next)
	}
	v.save(next)
	if fresh > bigReload {
		// A big load leaves the heap far above what the view keeps; hand it back to the OS
		// now rather than let a long-lived server sit on it.
		debug.FreeOSMemory()
	}
	v.log.Debug("library view loaded", "prompts", len(next.prompts), "folders", len(next.folders), "ms", time.Since(started).Milliseconds())
	return nil
}

// scopeOf decides which folders the session sees. A project's folder is resolved by its path
// or name; once found, its id is kept, so the session follows the folder through a rename (made
// in the app) instead of losing its project.
func (v *view) scopeOf(all []dbread.FolderInfo) (scope, error) {
	folders := folderList(all)
	if v.project == nil {
		sc, err := gate.NewScope(folders, gate.NoProject())
		return scope{sc}, err
	}
	sc, err := gate.NewScope(folders, *v.project)
	if err != nil {
		prev := v.current().scope
		if !errors.Is(err, gate.ErrNoFolder) || prev.Root() == "" || !hasFolder(all, prev.Root()) {
			return scope{}, err
		}
		v.log.Info("project folder renamed or moved; following it by id", "project", v.project.Name, "folder", prev.Root())
		p := *v.project
		p.Folder = prev.Root()
		if sc, err = gate.NewScope(folders, p); err != nil {
			return scope{}, err
		}
	}
	return scope{sc}, nil
}

func folderList(all []dbread.FolderInfo) []promptlib.Folder {
	folders := make([]promptlib.Folder, len(all))
	for i, f := range all {
		folders[i] = f.Folder
	}
	return folders
}

func hasFolder(all []dbread.FolderInfo, id string) bool {
	for _, f := range all {
		if promptlib.Key(f.ID) == promptlib.Key(id) {
			return true
		}
	}
	return false
}

// build makes the snapshot of the visible prompts. At 100k prompts the first build takes
// seconds, so it gives up when ctx ends: stopping the server must not wait for it.
func (v *view) build(ctx context.Context, prompts []promptlib.Prompt, digests map[string]bodyDigest, all []dbread.FolderInfo, sc scope) (*snapshot, error) {
	names := promptlib.Names(prompts)
	snap := &snapshot{
		prompts: make([]*servedPrompt, 0, len(prompts)),
		byName:  make(map[string]*servedPrompt, len(prompts)),
		byID:    make(map[string]*servedPrompt, len(prompts)),
		all:     all,
		scope:   sc,
		loaded:  true,
	}
	cache := make(map[string]cachedPrompt, len(prompts))
	for i, p := range prompts {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dg := digests[p.ID]
		c, ok := v.cache[p.ID]
		switch {
		case !ok || dg.fresh:
			c = cachedPrompt{hash: dg.hash, sp: newServedPrompt(p, names[p.ID], dg)}
		case c.sp.name != names[p.ID]: // a clash elsewhere renamed it; its body is unchanged
			renamed := *c.sp
			renamed.name, renamed.prompt.Name = names[p.ID], names[p.ID]
			c = cachedPrompt{hash: dg.hash, sp: &renamed}
		}
		if dg.doc != nil {
			if dg.doc.Name != c.sp.name {
				named := *dg.doc
				named.Name = c.sp.name
				dg.doc = &named
			}
			c.doc = dg.doc
			snap.docs = append(snap.docs, *dg.doc)
		}
		cache[p.ID] = c
		snap.prompts = append(snap.prompts, c.sp)
		snap.byName[c.sp.name] = c.sp
		snap.byID[promptlib.Key(p.ID)] = c.sp
	}
	v.cache = cache // drops deleted prompts
	sort.Slice(snap.prompts, func(i, j int) bool { return snap.prompts[i].name < snap.prompts[j].name })
	for _, f := range all {
		if sc.sees(&f.ID) {
			snap.folders = append(snap.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path)})
		}
	}
	return snap, nil
}

// hash covers everything a servedPrompt is built from but its name (checked apart, as a title
// clash elsewhere can change it).
func (v *view) hash(p promptlib.Prompt) uint64 {
	var h maphash.Hash
	h.SetSeed(v.seed)
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

// bodyDigest is what the view derives from a prompt's body: its hash and size, and for a prompt
// not already cached (fresh), the summary and the arguments.
type bodyDigest struct {
	doc     *gate.Doc
	hash    uint64
	bytes   int
	fresh   bool
	summary string
	args    []promptlib.Placeholder
}

// detach copies the strings of args that point into a body (names, defaults, headings), so the
// view never keeps a whole 100 KB body alive through a 5-byte argument name.
func detach(args []promptlib.Placeholder) []promptlib.Placeholder {
	for i := range args {
		args[i].Name, args[i].Default = strings.Clone(args[i].Name), strings.Clone(args[i].Default)
		for j := range args[i].Uses {
			args[i].Uses[j].Heading = strings.Clone(args[i].Uses[j].Heading)
		}
	}
	return args
}

func newServedPrompt(p promptlib.Prompt, name string, dg bodyDigest) *servedPrompt {
	sp := &servedPrompt{id: p.ID, name: name, title: p.Title, lowerTitle: strings.ToLower(p.Title), summary: dg.summary, bytes: dg.bytes,
		prompt: mcpPrompt(name, p.Title, dg.summary, dg.args)}
	if p.FolderID != nil {
		sp.folderID = *p.FolderID
	}
	// Checking arguments needs no more than names, required flags and defaults.
	sp.args = make([]promptlib.Placeholder, len(dg.args))
	for i, a := range dg.args {
		sp.args[i] = promptlib.Placeholder{Name: a.Name, Required: a.Required, Default: a.Default, HasDefault: a.HasDefault}
	}
	return sp
}
