package mcpserver

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// libraryReader is what the view reads; *dbread.DB is the real one, unit tests and benchmarks
// use an in-memory library.
type libraryReader interface {
	Fingerprint(ctx context.Context) (dbread.Fingerprint, error)
	EachPromptRow(ctx context.Context, fn func(rowid int64, p promptlib.Prompt) error) error
	EachPromptInBucket(ctx context.Context, lo int64, fn func(rowid int64, p promptlib.Prompt) error) error
	Folders(ctx context.Context) ([]dbread.FolderInfo, error)
	Prompt(ctx context.Context, id string) (promptlib.Prompt, error)
	Folder(ctx context.Context, id string) (promptlib.Folder, error)
	Changes() (<-chan struct{}, func())
	// Poll looks for a change not yet seen (signalling Changes) and returns the version the
	// library is at; Version returns it without looking.
	Poll(ctx context.Context) (uint64, error)
	Version() uint64
}

var _ libraryReader = (*dbread.DB)(nil)

// view is the one follower of the library. After every change it reads what changed — the
// buckets of rowids whose dbread.Fingerprint differs, or every prompt when the session's
// folders changed — and computes, in that one pass, everything the server serves from: the set the session may see
// (the project's folders, mcpctl-system hidden), unique names, summaries, arguments and
// digests, and the gate's documents. Components subscribe to be handed each new snapshot; a
// snapshot is immutable, so handlers read it without locks and never see half an update.
type view struct {
	db      libraryReader
	project *gate.Project // nil: the whole library
	log     *slog.Logger

	snap atomic.Pointer[snapshot]
	// reads counts full reads of the library, so a test can hold the view to one per change;
	// followed counts the builds named from the last table (followNames), so a test knows it
	// compared them with whole ones.
	reads, followed atomic.Int64

	// A change to one prompt of 100k re-parses one body, not all: what a body gave is reused
	// from the last snapshot while its hash is unchanged, and the gate's documents from docs.
	// Touched only by the follower.
	docs map[string]cachedDoc

	subs  []func(prev, next *snapshot)
	ready chan struct{} // closed once the first load has been tried
	// published is closed, and replaced, each time a snapshot is published (awaitCurrent).
	pubMu     sync.Mutex
	published chan struct{}
	following atomic.Bool   // the follower runs: awaitCurrent has someone to wait for
	stopped   chan struct{} // closed when the follower ends: nothing more will be published

	// keep, when set, is the file the view is kept in between runs (persist.go); kept is when
	// it was last written.
	keep, keepDB string
	kept         time.Time
	restored     bool // the snapshot came from keep
	saveLater    bool // the first load ran before serving: the follower keeps it once serving

	// tocOf, when set, makes a prompt's table of contents under the content pipeline in force
	// for briefings ("": none), so the gate can pack a big prompt as its contents.
	tocOf func(ctx context.Context, p promptlib.Prompt) string
}

// snapshot is the library as one session sees it at one moment. Never modified once published.
type snapshot struct {
	prompts promptTable         // the visible prompts, by name
	folders []*servedFolder     // the folders the session sees, in tree order
	all     []dbread.FolderInfo // every folder of the library, for path and id lookups
	scope   scope
	loaded  bool // false only for the empty view before the first load
	// version is the library's (dbread's Version) when the read that made it began: every
	// change up to it is in the snapshot.
	version uint64

	// system holds the gate texts' prompts (mcpctl-system), bodies included: a handful; with
	// the bucket of each.
	system        []promptlib.Prompt
	systemBuckets []uint32
	// sums is the library's fingerprint the snapshot was read at, and scopeKey what its
	// reading depended on besides the prompts (the session's folders and their paths): a
	// reload with the same scopeKey reads only the buckets whose sum changed.
	sums     dbread.Fingerprint
	scopeKey string
	// docs are what the gate ranks, one per visible prompt; nil without a project.
	docs []gate.Doc
}

// prompt finds a visible prompt by its MCP name.
func (s *snapshot) prompt(name string) (servedPrompt, bool) { return s.prompts.byName(name) }

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

// servedFolder is one visible folder.
type servedFolder struct {
	info      dbread.FolderInfo
	lowerPath string
}

// cachedDoc is the gate's view of a prompt, with the hash of what it was built from.
type cachedDoc struct {
	hash uint64
	doc  *gate.Doc
}

func newView(db libraryReader, project *gate.Project, log *slog.Logger) *view {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &view{db: db, project: project, log: log, docs: map[string]cachedDoc{}, ready: make(chan struct{}), published: make(chan struct{}), stopped: make(chan struct{})}
	v.snap.Store(&snapshot{scope: wholeLibrary()})
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
	// A session that must have the library before it serves (a project's) starts from the
	// view kept by its last run when there is one, and reads only what changed since: at 10k
	// prompts restoring the documents and reading a changed bucket take tens of milliseconds,
	// making every document again most of a second.
	if wait && v.keep != "" && v.restore() {
		// As without a kept view, a library the project cannot be served from (its folder
		// gone, say) fails the start.
		if first = v.reload(ctx); first != nil {
			cancel()
			unsubscribe()
			return nil, first
		}
	} else if wait {
		v.saveLater = true // writing the kept view is not worth delaying initialize for
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
		if v.saveLater {
			v.saveLater = false
			v.save(v.current())
		}
		if !wait {
			if v.keep != "" && !v.restored {
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
func (v *view) restore() bool {
	started := time.Now()
	snap, err := loadView(v.keep, v.keepDB)
	if err != nil {
		v.log.Warn("library view: the kept view cannot be read; reading the library", "err", err)
	}
	if snap == nil {
		return false
	}
	if v.project != nil {
		// The kept view is this project's (its file is keyed by the project): its scope and
		// documents come back with it.
		sc, err := v.scopeOf(snap.all)
		if err != nil {
			v.log.Info("library view: the kept view does not fit the project; reading the library", "err", err)
			return false
		}
		snap.scope, snap.scopeKey, snap.folders = sc, scopeKey(sc, snap.all, true), nil
		for _, f := range snap.all {
			if sc.sees(&f.ID) {
				snap.folders = append(snap.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path)})
			}
		}
		for i := range snap.docs {
			d := &snap.docs[i]
			if k, ok := snap.prompts.indexByID(d.ID); ok {
				v.docs[d.ID] = cachedDoc{hash: snap.prompts.recs[k].hash, doc: d}
			}
		}
	} else {
		snap.docs = nil
	}
	snap.version = v.db.Version() // what it lacks, the first read brings, with list_changed
	v.publish(snap)
	v.restored = true
	v.markReady()
	debug.FreeOSMemory() // what decoding it left behind, before the server settles
	v.log.Debug("library view restored", "prompts", snap.prompts.len(), "ms", time.Since(started).Milliseconds())
	return true
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
	if snap.prompts.len() > bigLibrary {
		debug.FreeOSMemory() // what reading every document and summary to write them left behind
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
	v.following.Store(true)
	defer close(v.stopped)
	const firstRetry, maxRetry = 500 * time.Millisecond, 30 * time.Second
	retry := time.NewTimer(firstRetry)
	defer retry.Stop()
	backoff := firstRetry
	signalled := false // a change signal not yet read: the retry of a failed read keeps it
	settle := func(err error) {
		retry.Stop()
		if err == nil || ctx.Err() != nil {
			backoff, signalled = firstRetry, false
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
			signalled = true
			settle(v.read(ctx, true))
		case <-retry.C:
			settle(v.read(ctx, signalled))
		}
	}
}

// currentWait bounds how long a request served from the view waits for the view to catch up
// with the library (awaitCurrent). A read after one change takes milliseconds at 10k prompts,
// and half a second at 100k.
const currentWait = 2 * time.Second

// awaitCurrent holds a request served from the view (prompts/list, prompts/get, resources …)
// until the view holds every change the library had when the request came, at most
// currentWait: dbread's change signal comes after a debounce, and a client that lists prompts
// right after create_prompt succeeded must find the new prompt there, as the tools that read
// the database do. When nothing changed it costs one look at the library's data version.
// Without a follower (not started, or stopped) it only waits for the first load.
func (v *view) awaitCurrent(ctx context.Context) {
	v.awaitLoad(ctx)
	if !v.following.Load() {
		return
	}
	want, err := v.db.Poll(ctx) // a change not seen yet signals the follower now
	if err != nil {
		return // the view stands; the follower logs and retries what fails
	}
	var timer *time.Timer
	for {
		v.pubMu.Lock()
		published := v.published
		v.pubMu.Unlock()
		if v.current().version >= want {
			return
		}
		if timer == nil {
			timer = time.NewTimer(currentWait)
			defer timer.Stop()
		}
		select {
		case <-published:
		case <-v.stopped:
			return
		case <-ctx.Done():
			return
		case <-timer.C:
			v.log.Info("library view: answering before it shows the latest change; list_changed will follow")
			return
		}
	}
}

// publish makes snap the current snapshot, hands it to the subscribers, and wakes awaitCurrent.
func (v *view) publish(snap *snapshot) {
	prev := v.snap.Swap(snap)
	for _, f := range v.subs {
		f(prev, snap)
	}
	v.pubMu.Lock()
	close(v.published)
	v.published = make(chan struct{})
	v.pubMu.Unlock()
}

// bigLibrary is how many prompts make a library big enough that the garbage of reading it is
// handed back to the OS at once, rather than left to a long-lived server.
const bigLibrary = 5000

// reload reads the library once and publishes the snapshot it gives.
func (v *view) reload(ctx context.Context) error { return v.read(ctx, false) }

// read reads what changed in the library since the last snapshot and publishes the snapshot it
// gives. signalled says the library was written since (dbread's change signal), which
// changedBuckets reads more for.
func (v *view) read(ctx context.Context, signalled bool) error {
	started := time.Now()
	v.reads.Add(1)
	version := v.db.Version() // before reading: a change made during the read moves it on
	all, err := v.db.Folders(ctx)
	if err != nil {
		return err
	}
	sc, err := v.scopeOf(all)
	if err != nil {
		return err
	}
	sums, err := v.db.Fingerprint(ctx)
	if err != nil {
		return err
	}
	last := v.current()
	r := reading{v: v, ctx: ctx, sc: sc, prev: &last.prompts, docs: make(map[string]cachedDoc, len(v.docs)), paths: make(map[string]string, len(all))}
	for _, f := range all {
		r.paths[promptlib.Key(f.ID)] = f.Path
	}
	key := scopeKey(sc, all, v.project != nil)
	next := &snapshot{all: all, scope: sc, loaded: true, sums: sums, scopeKey: key, prompts: last.prompts, version: version}
	dirty, whole := changedBuckets(last, sums, key, signalled)
	if whole {
		// Bodies are read a chunk at a time and dropped once digested: at 100k prompts the
		// library is hundreds of megabytes, the view keeps a few hundred bytes a prompt.
		err = v.db.EachPromptRow(ctx, r.visit)
	} else {
		// Only the changed buckets are read; every other prompt is kept as its index in the
		// last snapshot, and so are its document and its system prompts.
		for i := range last.prompts.len() {
			if !dirty[last.prompts.recs[i].bucket] {
				r.seen = append(r.seen, int32(i))
				if c, ok := v.docs[last.prompts.idAt(i)]; ok {
					r.docs[last.prompts.idAt(i)] = c
				}
			}
		}
		for i, b := range last.systemBuckets {
			if !dirty[b] {
				r.system, r.systemBuckets = append(r.system, last.system[i]), append(r.systemBuckets, b)
			}
		}
		kept := len(r.seen)
		r.ids = map[string]bool{}
		for _, b := range sortedBuckets(dirty) {
			if err = v.db.EachPromptInBucket(ctx, int64(b)*dbread.BucketWidth, r.visit); err != nil {
				break
			}
		}
		// A row that moved to another bucket (its rowid changed) while its old bucket's sums
		// stayed is served once, as read now.
		out := make([]int32, 0, len(r.seen))
		for k, i := range r.seen {
			if k >= kept || !r.ids[last.prompts.idAt(int(i))] {
				out = append(out, i)
			}
		}
		r.seen = out
	}
	if err != nil {
		return err
	}
	v.docs = r.docs // drops deleted prompts
	next.system, next.systemBuckets = r.system, r.systemBuckets
	changed := len(r.fresh) > 0 || len(r.seen) != last.prompts.len()
	if changed {
		if next.prompts, err = v.build(ctx, r.seen, r.fresh, &last.prompts); err != nil {
			return err
		}
	}
	for _, f := range all {
		if sc.sees(&f.ID) {
			next.folders = append(next.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path)})
		}
	}
	if v.project != nil && !changed && !r.docsChanged && len(last.docs) == next.prompts.len() {
		next.docs = last.docs // nothing the gate ranks changed: it keeps its index
	} else if v.project != nil {
		// The snapshot's documents, named; the cache then points at them, so each document
		// is held once (the index points at them too).
		next.docs = make([]gate.Doc, 0, next.prompts.len())
		for i := range next.prompts.len() {
			id := next.prompts.idAt(i)
			if c, ok := v.docs[id]; ok {
				d := *c.doc
				d.Name = next.prompts.nameAt(i)
				next.docs = append(next.docs, d)
				v.docs[id] = cachedDoc{hash: c.hash, doc: &next.docs[len(next.docs)-1]}
			}
		}
	}
	v.publish(next)
	if (changed || v.kept.IsZero() && !v.restored) && !v.saveLater {
		v.save(next)
	}
	if r.read > bigLibrary {
		// Reading a big library leaves the heap far above what the view keeps; hand it back
		// to the OS now rather than let a long-lived server sit on it.
		debug.FreeOSMemory()
	}
	v.log.Debug("library view loaded", "prompts", next.prompts.len(), "read", r.read, "changed", len(r.fresh), "whole", whole, "buckets", len(dirty), "signalled", signalled,
		"folders", len(next.folders), "ms", time.Since(started).Milliseconds())
	return nil
}

// reading is one reload's pass over the prompts it reads.
type reading struct {
	v     *view
	ctx   context.Context
	sc    scope
	prev  *promptTable
	paths map[string]string // folder key → path

	read          int                  // prompts read
	seen          []int32              // per visible prompt: its index in prev, or -1-i for fresh[i]
	fresh         []servedPrompt       // new or changed prompts, not yet named
	system        []promptlib.Prompt   // mcpctl-system's prompts
	systemBuckets []uint32             // system's buckets
	docs          map[string]cachedDoc // the gate's documents of the visible prompts, by id
	docsChanged   bool                 // a document was made anew
	ids           map[string]bool      // when reading buckets: the ids read
}

// visit digests one prompt read from the library.
func (r *reading) visit(rowid int64, p promptlib.Prompt) error {
	r.read++
	if r.ids != nil {
		r.ids[p.ID] = true
	}
	bucket := bucketOf(rowid)
	if r.sc.System(p.FolderID) {
		r.system, r.systemBuckets = append(r.system, p), append(r.systemBuckets, bucket)
		return nil
	}
	if !r.sc.sees(p.FolderID) {
		return nil
	}
	h := r.v.hash(p)
	if i, ok := r.prev.indexByID(p.ID); ok && r.prev.recs[i].hash == h && r.prev.recs[i].bucket == bucket {
		r.seen = append(r.seen, int32(i))
	} else {
		sp := servedPrompt{id: p.ID, title: p.Title, hash: h, bucket: bucket, created: p.CreatedAt.UnixMicro(),
			summary: strings.Clone(promptlib.Summary(p.Content)), argSet: encodeArgs(promptlib.Placeholders(p.Content))}
		if p.FolderID != nil {
			sp.folderID = *p.FolderID
		}
		r.fresh = append(r.fresh, sp)
		r.seen = append(r.seen, int32(-len(r.fresh)))
	}
	if r.v.project != nil {
		path := ""
		if p.FolderID != nil {
			path = r.paths[promptlib.Key(*p.FolderID)]
		}
		c, ok := r.v.docs[p.ID]
		if !ok || c.hash != h || c.doc.FolderPath != path {
			// Named later, when every name is known; the name only labels the Doc.
			d := gate.NewDoc(p, "", path)
			if r.v.tocOf != nil {
				d.SetTOC(r.v.tocOf(r.ctx, p))
			}
			c = cachedDoc{hash: h, doc: &d}
			r.docsChanged = true
		}
		r.docs[p.ID] = c
	}
	return nil
}

// bucketOf is the bucket a rowid is filed under: its dbread.Fingerprint bucket's number. A
// rowid beyond what a bucket number holds (the app assigns small ones) is filed under
// noBucket, which makes every reload read the whole library.
func bucketOf(rowid int64) uint32 {
	b := rowid / dbread.BucketWidth
	if rowid < 0 || b >= noBucket {
		return noBucket
	}
	return uint32(b)
}

const noBucket = math.MaxUint32

// changedBuckets says which buckets a reload must read, given the fingerprint and scope key it
// sees now and the last snapshot: whole when the last snapshot cannot be followed bucket by
// bucket (the first read, another scope, a prompt without a bucket). With a change signal, the
// buckets edited in the latest second the last read saw are read again too: a second edit
// within that second leaves the sums as they were. Like the search index, the view relies on
// the app stamping updated_at on every edit: an edit that does not, in a bucket not edited
// lately, is seen when its bucket next changes.
func changedBuckets(last *snapshot, sums dbread.Fingerprint, key string, signalled bool) (dirty map[uint32]bool, whole bool) {
	if !last.loaded || last.sums == nil || last.scopeKey != key {
		return nil, true
	}
	dirty = map[uint32]bool{}
	for lo, s := range sums {
		if !last.sums[lo].SameRows(s) {
			dirty[bucketOf(lo)] = true
		}
	}
	for lo := range last.sums {
		if _, ok := sums[lo]; !ok {
			dirty[bucketOf(lo)] = true
		}
	}
	if signalled {
		latest := math.Inf(-1) // a library may hold any time, the zero time's negative seconds too
		for _, s := range last.sums {
			latest = max(latest, s.Latest)
		}
		for lo, s := range sums {
			if s.Latest >= latest-1 {
				dirty[bucketOf(lo)] = true
			}
		}
	}
	if dirty[noBucket] {
		return nil, true
	}
	for i := range last.prompts.len() {
		if last.prompts.recs[i].bucket == noBucket {
			return nil, true
		}
	}
	return dirty, false
}

func sortedBuckets(set map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(set))
	for b := range set {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// scopeKey is what reading the library depends on besides its prompts: which folders the
// session sees and is kept out of and, for a project (the gate's documents carry them), their
// paths. A plain session sees every prompt but mcpctl-system's, so only that folder counts: a
// folder made or renamed in the app does not make it read 100k prompts again. When the key
// changes, every prompt is read.
func scopeKey(sc scope, all []dbread.FolderInfo, paths bool) string {
	var b strings.Builder
	for _, f := range all {
		switch {
		case sc.System(&f.ID):
			b.WriteString("s")
		case paths && sc.sees(&f.ID):
			b.WriteString("v")
		default:
			continue
		}
		b.WriteString(promptlib.Key(f.ID))
		b.WriteByte(0)
		if paths {
			b.WriteString(f.Path)
			b.WriteByte(0)
		}
	}
	return b.String()
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

// build makes the table of the visible prompts: those seen unchanged are copied from prev,
// fresh ones added, and all of them named. At 100k prompts it takes a while, so it gives up
// when ctx ends: stopping the server must not wait for it.
func (v *view) build(ctx context.Context, seen []int32, fresh []servedPrompt, prev *promptTable) (promptTable, error) {
	entry := func(k int) servedPrompt {
		if i := seen[k]; i >= 0 {
			return prev.at(int(i))
		}
		return fresh[-seen[k]-1]
	}
	// Added in name order, the table needs no sort of its 48-byte records.
	names, order, byID, ok := followNames(seen, fresh, prev)
	if ok {
		v.followed.Add(1)
	} else {
		names = promptlib.NameEach(len(seen), func(k int) (string, string, time.Time) {
			p := entry(k)
			return p.id, p.title, time.UnixMicro(p.created)
		})
		order = make([]int32, len(seen))
		for k := range order {
			order[k] = int32(k)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	}
	size := len(prev.text)
	for _, p := range fresh {
		size += len(p.id) + 2*len(p.title) // the name is about as long as the title
	}
	tb := newTableBuilder(len(seen), &prev.summaries)
	tb.byID = byID
	tb.text.Grow(size)
	for n, k := range order {
		if n%1024 == 0 && ctx.Err() != nil {
			return promptTable{}, ctx.Err()
		}
		sp := entry(int(k))
		sp.name = names[k]
		if err := tb.add(sp, max(seen[k], -1)); err != nil {
			v.log.Warn("library view: prompt left out", "err", err)
		}
	}
	return tb.build(), nil
}

// hash covers everything a servedPrompt is built from but its name (checked apart, as a title
// clash elsewhere can change it), its creation time included: an unchanged prompt keeps the one
// the last table holds, and that decides who keeps a name on a clash. It is the same in every run, so a restart's first read
// reuses what the kept view holds instead of parsing every body again.
func (v *view) hash(p promptlib.Prompt) uint64 {
	h := fnv.New64a()
	for _, s := range []string{p.ID, p.Title, p.Content} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	if p.FolderID != nil {
		io.WriteString(h, *p.FolderID)
	}
	h.Write([]byte{0})
	h.Write(binary.LittleEndian.AppendUint64(nil, uint64(p.CreatedAt.UnixMicro())))
	return h.Sum64()
}
