package dbread

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3" // the sidecar is ours to write: the plain driver

	"github.com/mcpctl/mcpctl/promptlib"
)

// Search index states, as SearchIndex reports them.
const (
	IndexReady       = "ready"
	IndexBuilding    = "building"
	IndexUnavailable = "unavailable"
)

// sidecarFormat is the sidecar's PRAGMA user_version: its layout's version, and that of the
// summaries docs keeps. A file of another format is rebuilt.
const sidecarFormat = 5<<8 | promptlib.SummaryVersion

const _ = uint8(promptlib.SummaryVersion) // it must fit the low byte of the formats

// ftsTable is the full-text index. It keeps its own copy of titles and bodies (FTS5's content
// table): removing a row from a contentless index needs either the old text or
// contentless_delete=1, and the latter measured three times slower at ranking a broad query.
// Disk is cheap and the cache is rebuildable; memory is not spent either way.
const ftsTable = "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body, tokenize='unicode61 remove_diacritics 2')"

// sidecarSchema: docs maps the app's rowid to what listing and change detection need, and
// holds what a brief listing shows (everything but the body: its summary and size instead), so
// that a page of list_prompts or search_prompts without bodies is read from the sidecar alone.
// The sidecar is used only when it reflects the library's current version, so the copy is as
// fresh as a read of the app's database would be (up to bucketWidth's note on edits that keep
// updated_at). Bodies are always read from the app's database.
const sidecarSchema = ftsTable + ";" + sidecarDocs + docsIndexes + sidecarTables

const sidecarDocs = `
CREATE TABLE IF NOT EXISTS docs (
    rid       INTEGER PRIMARY KEY, -- the app's prompts.rowid
    id        TEXT NOT NULL,       -- as stored by the app
    folder    TEXT NOT NULL,       -- lower(folder_id); '' at the top level
    created,                       -- created_at as the app stored it (no type: kept verbatim)
    sig       INTEGER NOT NULL,    -- hash of the row, to tell a changed row from an unchanged one
    title     TEXT NOT NULL,
    summary   TEXT NOT NULL,       -- promptlib.Summary of the body
    bytes     INTEGER NOT NULL,    -- the body's size in bytes
    folder_id TEXT,                -- the rest as stored by the app
    icon      TEXT,
    color     TEXT,
    url       TEXT,
    updated                        -- as created
);
`

// docsIndexes order lists. A full build drops them and creates them at the end: inserting in
// rowid order and sorting once is much cheaper than keeping them ordered row by row.
const docsIndexes = `
CREATE INDEX IF NOT EXISTS docs_newest ON docs (created DESC, id DESC);
CREATE INDEX IF NOT EXISTS docs_folder ON docs (folder, created DESC, id DESC);
`

const sidecarTables = `
CREATE TABLE IF NOT EXISTS buckets (
    lo  INTEGER PRIMARY KEY,
    n   INTEGER NOT NULL,
    upd REAL NOT NULL,
    latest REAL NOT NULL -- BucketSum.Latest
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`

// Title hits weigh more than body hits in bm25.
const rankExpr = "bm25(fts, 5.0, 1.0)"

// sidecar is the search index and listing order, in a database of our own under
// Options.CacheDir. One goroutine (run) writes it; Search and ListPrompts read it when it is
// current.
type sidecar struct {
	db   *DB
	path string // "" without a cache directory

	mu           sync.Mutex
	state        string
	reason       error
	rd           *sql.DB
	synced       uint64 // the library Version the sidecar reflects, when hasSynced
	hasSynced    bool
	attempted    uint64 // the Version of the last sync attempt, when hasAttempted
	hasAttempted bool
	done         chan struct{} // closed after each sync attempt, then replaced
	rows         int           // prompts in docs as of the last sync: counting 100k index entries took ms
	head         *head         // the newest prompts, brief (newest)

	kickc chan struct{}

	// Owned by run.
	wr       *sql.DB
	buckets  map[int64]BucketSum
	complete bool      // the first full build committed
	lastRead time.Time // when the last good sync fingerprinted the library
}

func newSidecar(db *DB) *sidecar {
	s := &sidecar{db: db, state: IndexBuilding, done: make(chan struct{}), kickc: make(chan struct{}, 1)}
	if db.opts.CacheDir != "" {
		s.path = sidecarPath(db.opts.CacheDir, db.path)
	}
	return s
}

// sidecarPath is where the index of the library at dbPath (absolute) lives. The name is
// predictable, which is why openFile trusts nothing it finds there.
func sidecarPath(cacheDir, dbPath string) string {
	sum := sha256.Sum256([]byte(dbPath))
	return filepath.Join(cacheDir, "search", hex.EncodeToString(sum[:12])+".db")
}

// SearchIndex reports the sidecar's state: "ready", "building" or "unavailable" (with the reason).
// While it is not ready, Search answers through a LIKE scan and ListPrompts from the app's
// database directly.
func (db *DB) SearchIndex() (state string, err error) {
	s := db.side
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.reason
}

// sideFault marks an error of the sidecar itself (as opposed to reading the library): it makes
// the sidecar unavailable.
type sideFault struct{ err error }

func (e sideFault) Error() string {
	return "dbread: search index: " + strings.TrimPrefix(e.err.Error(), "dbread: ")
}
func (e sideFault) Unwrap() error { return e.err }

func fault(err error) error {
	if err == nil {
		return nil
	}
	return sideFault{err}
}

func (s *sidecar) kick() {
	select {
	case s.kickc <- struct{}{}:
	default:
	}
}

// unavailable marks the sidecar unusable, for good or, with retry > 0, until it is tried again.
func (s *sidecar) unavailable(err error, retry time.Duration) {
	if retry > 0 {
		s.db.log.Warn("search index unavailable for now; searching by LIKE scan", "err", err, "retry_in", retry.String())
	} else {
		s.db.log.Warn("search index unavailable; searching by LIKE scan", "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.reason = IndexUnavailable, err
	close(s.done)
	s.done = make(chan struct{})
}

// stopped marks the sidecar closed and wakes anyone waiting for a sync that will not come.
func (s *sidecar) stopped() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != IndexUnavailable {
		s.state, s.reason = IndexUnavailable, ErrClosed
	}
	close(s.done)
	s.done = make(chan struct{})
}

// bigSync is the number of rows a sync must have written for its garbage to be freed at once.
const bigSync = 10_000

// run builds the sidecar, then keeps it in step with the library until ctx is cancelled.
func (s *sidecar) run(ctx context.Context) {
	defer s.stopped()
	if s.path == "" {
		s.unavailable(errors.New("dbread: no cache directory"), 0)
		return
	}
	if !s.openRetrying(ctx) {
		return
	}
	for {
		v := s.db.Version()
		start := time.Now()
		n, err := s.sync(ctx)
		if ctx.Err() != nil {
			return
		}
		s.finish(v, err)
		var retry <-chan time.Time
		switch {
		case errors.As(err, new(sideFault)) && !passing(err):
			s.unavailable(err, 0)
			return
		case err != nil:
			// The library could not be read (locked, schema changed), or the index could not be
			// written for now (another server holds it, the disk is full): try again on the next
			// change, or soon. Until then the version is not synced, and reads of it answer from
			// the library.
			s.db.log.Warn("search index sync failed", "err", translate(err))
			retry = time.After(s.db.opts.sideRetry)
		case n > 0:
			s.db.log.Debug("search index synced", "rows", n, "took", time.Since(start))
		}
		if n > bigSync {
			// A build reads every prompt. On a server idle after it, no collection would come
			// to free what the build left (at 100k prompts the heap stayed at 70 MB, 30 of
			// them garbage): hand it back to the OS now.
			debug.FreeOSMemory()
		}
		if !s.waitForWork(ctx, retry, err == nil, v) {
			return
		}
	}
}

// openRetrying opens the sidecar, trying again while it fails for a reason that passes (another
// server holds its lock while it builds, a full disk, no file descriptors left), with searches
// answered by LIKE scan meanwhile. A file that is damaged was rebuilt by open; one that cannot
// be made usable leaves the sidecar unavailable. It reports false when the sidecar is not open.
func (s *sidecar) openRetrying(ctx context.Context) bool {
	for wait := s.db.opts.sideRetry; ; wait = min(2*wait, maxSideRetry) {
		err := s.open(ctx)
		switch {
		case err == nil:
			s.mu.Lock()
			if s.state == IndexUnavailable { // an earlier attempt failed; open left it unready
				s.state, s.reason = IndexBuilding, nil
			}
			s.mu.Unlock()
			return true
		case ctx.Err() != nil:
			return false
		case !passing(err):
			s.unavailable(err, 0)
			return false
		}
		s.unavailable(err, wait)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
	}
}

// passing reports whether a sidecar error says nothing about the file, and may pass: a lock
// another server holds past the busy timeout, a full disk, an I/O error, no memory or file
// descriptors. The file is kept and tried again; rebuilding it would delete another server's
// index under it.
//
// Its errnos answer this question only; queue's unreadable and upstream's commandError keep
// lists of their own on purpose. All three count a system short of file descriptors, memory or
// processes (EMFILE, ENFILE, ENOMEM, EAGAIN) as passing. An I/O error (EIO) passes here as
// SQLite's does, and as it does for the queue's read of an operation. A full disk (ENOSPC) is
// only here: an index build writes, where that read and an exec do not.
func passing(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrFull, sqlite3.ErrNomem, sqlite3.ErrCantOpen, sqlite3.ErrIoErr:
			return true
		}
		return false
	}
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOSPC, syscall.ENOMEM, syscall.EAGAIN, syscall.EIO} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// waitForWork blocks until a change asks for a sync (or the retry fires) and reports false when
// ctx ends. A request for a version the last good sync already covered (the change was seen by
// the sync that was running when it was signalled) is dropped: it would be a useless pass over
// the library.
func (s *sidecar) waitForWork(ctx context.Context, retry <-chan time.Time, synced bool, v uint64) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-retry:
			return true
		case <-s.kickc:
			if !synced || s.db.Version() != v {
				return true
			}
		}
	}
}

// finish records a sync attempt at version v and wakes those waiting in current.
func (s *sidecar) finish(v uint64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempted, s.hasAttempted = v, true
	if err == nil {
		s.synced, s.hasSynced = v, true
		s.state, s.reason = IndexReady, nil
	}
	close(s.done)
	s.done = make(chan struct{})
}

// current reports whether the sidecar reflects the library as it is now. It first polls for a
// change (so the app's last commit counts), then, if the sidecar is behind, waits for the
// incremental sync at most Options.syncWait: a caller that gets false answers from the app's
// database instead. An error is one the caller would meet there too (the library is locked or
// closed), so that a lock costs one busy timeout, not two.
func (s *sidecar) current(ctx context.Context) (bool, error) {
	if err := s.db.poll(ctx); err != nil {
		if t := translate(err); errors.Is(t, ErrLocked) || errors.Is(t, ErrClosed) || ctx.Err() != nil {
			return false, err
		}
		s.db.log.Debug("change check failed", "err", translate(err))
		return false, nil
	}
	want := s.db.Version()
	var timer *time.Timer
	for {
		s.mu.Lock()
		state, synced, done := s.state, s.hasSynced && s.synced >= want, s.done
		tried := s.hasAttempted && s.attempted >= want
		s.mu.Unlock()
		switch {
		case state != IndexReady:
			return false, nil
		case synced:
			return true, nil
		case tried: // the sync at this version failed
			return false, nil
		}
		if timer == nil {
			// No kick: the change that moved Version already asked run for a sync, and a second
			// request would only cost a useless pass over the library.
			timer = time.NewTimer(s.db.opts.syncWait)
			defer timer.Stop()
		}
		select {
		case <-done:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, nil
		}
	}
}

// sidecarDSN opens the sidecar read-write. synchronous=OFF: it is a cache, rebuilt if lost.
// busy is how long a statement waits for another server's lock on it.
func sidecarDSN(path string, readOnly bool, busy time.Duration) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "OFF")
	q.Set("_txlock", "immediate")
	if readOnly {
		q.Set("_query_only", "1")
		q.Set("_stmt_cache_size", stmtCacheSize)
		q.Set("_mutex", "no") // as for the library's readers (readOnlyDSN)
	}
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// open opens (creating, or rebuilding if it is corrupt or of another format) the sidecar and
// loads its change-detection state.
func (s *sidecar) open(ctx context.Context) error {
	if err := prepareSidecarDirs(s.db.opts.CacheDir, s.path); err != nil {
		return fault(err)
	}
	err := s.openFile(ctx)
	if noFTS5(err) {
		s.closeFiles()
		return fault(ErrNoFTS5) // the file is fine: no build of ours could read it
	}
	if err != nil && ctx.Err() == nil && !passing(err) {
		// A damaged file of ours: start afresh once.
		s.db.log.Warn("search index file unusable; rebuilding it", "path", s.path, "err", err)
		s.closeFiles()
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if rerr := os.Remove(s.path + suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				return fault(fmt.Errorf("%w (and it cannot be removed: %v)", err, rerr))
			}
		}
		err = s.openFile(ctx)
	}
	if err != nil {
		s.closeFiles()
		return fault(err)
	}
	return nil
}

// noFTS5 reports whether err is SQLite's answer to an FTS5 table where FTS5 is not compiled in.
func noFTS5(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such module: fts5")
}

// openFile hands SQLite only a regular file of ours carrying sidecarAppID (see ownSidecar):
// a planted link or a foreign database at the path is removed or deleted, never written
// through, so the sidecar can never alter the app's database or anyone else's file.
func (s *sidecar) openFile(ctx context.Context) error {
	created, err := ownSidecar(s.path)
	if err != nil {
		return err
	}
	if created {
		s.db.log.Debug("search index file created", "path", s.path)
	}
	wr, err := sql.Open("sqlite3", sidecarDSN(s.path, false, s.db.opts.sideBusy))
	if err != nil {
		return err
	}
	wr.SetMaxOpenConns(1)
	s.wr = wr
	var format int
	if err := wr.QueryRowContext(ctx, "PRAGMA user_version").Scan(&format); err != nil {
		return err
	}
	var app int32
	if err := wr.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return err
	}
	if uint32(app) != sidecarAppID {
		// ownSidecar checked the header, but the file may have been swapped since: alter nothing.
		return fmt.Errorf("%s does not carry mcpctl's marker", s.path)
	}
	if format != sidecarFormat {
		// Another format of ours (or a new file): drop our tables and start afresh.
		for _, stmt := range []string{"DROP TABLE IF EXISTS fts", "DROP TABLE IF EXISTS docs",
			"DROP TABLE IF EXISTS buckets", "DROP TABLE IF EXISTS meta"} {
			if _, err := wr.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
	}
	if _, err := wr.ExecContext(ctx, sidecarSchema); err != nil {
		return err
	}
	if _, err := wr.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", sidecarFormat)); err != nil {
		return err
	}
	// FTS5 writes a new segment each time its pending terms exceed hashsize (1 MB by default)
	// and merges segments as they pile up: at 100k prompts a 4 MB buffer made the build about
	// twice as fast (8 MB barely faster again, for a higher peak). Memory only while a sync
	// writes.
	if _, err := wr.ExecContext(ctx, "INSERT INTO fts (fts, rank) VALUES ('hashsize', 4194304)"); err != nil {
		return err
	}
	if err := s.load(ctx); err != nil {
		return err
	}
	rd, err := sql.Open("sqlite3", sidecarDSN(s.path, true, s.db.opts.sideBusy))
	if err != nil {
		return err
	}
	rd.SetMaxOpenConns(2)
	if err := rd.PingContext(ctx); err != nil {
		rd.Close()
		return err
	}
	s.setRows()
	s.mu.Lock()
	s.rd = rd
	if s.complete {
		// Usable at once: the first sync brings it up to date and current() waits for it.
		s.state = IndexReady
	}
	s.mu.Unlock()
	return nil
}

// load reads the bucket fingerprints and whether a full build has completed.
func (s *sidecar) load(ctx context.Context) error {
	var v sql.NullString
	err := s.wr.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'complete'").Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	s.complete = v.String == "1"
	s.buckets = map[int64]BucketSum{}
	rows, err := s.wr.QueryContext(ctx, "SELECT lo, n, upd, latest FROM buckets")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var lo int64
		var b BucketSum
		if err := rows.Scan(&lo, &b.N, &b.Updated, &b.Latest); err != nil {
			return err
		}
		s.buckets[lo] = b
	}
	return rows.Err()
}

func (s *sidecar) closeFiles() error {
	var errs []error
	s.mu.Lock()
	rd := s.rd
	s.rd = nil
	s.mu.Unlock()
	if rd != nil {
		errs = append(errs, rd.Close())
	}
	if s.wr != nil {
		errs = append(errs, s.wr.Close())
		s.wr = nil
	}
	return errors.Join(errs...)
}

// setRows publishes the number of prompts in docs, the sum of the bucket counts.
func (s *sidecar) setRows() {
	total := 0
	for _, b := range s.buckets {
		total += int(b.N)
	}
	s.mu.Lock()
	s.rows = total
	s.mu.Unlock()
}

// close is called once run has returned.
func (s *sidecar) close() error { return s.closeFiles() }

// reader returns the sidecar's read pool, or nil.
func (s *sidecar) reader() *sql.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rd
}

// tieSlack is how many rows past the page search ranks, to see the end of a run of equal
// scores at the page's edge.
const tieSlack = 64

// search runs a MATCH expression (from matchExpr) and returns a page of rowids, ranked, and the
// number of matches.
//
// Order is bm25, then created DESC, then id. The tie-break needs docs for every row it
// compares, and a lookup per match was a third of the time of a broad query, so the index first
// ranks by bm25 alone and keeps offset+limit+tieSlack rows; only those are joined and ordered
// fully. That is exact unless a run of equal scores crosses the edge of the kept rows, in which
// case the full query runs.
func (s *sidecar) search(ctx context.Context, expr string, inFolders []string, limit, offset int) ([]docRef, int, error) {
	rd := s.reader()
	if rd == nil {
		return nil, 0, errors.New("dbread: search index closed")
	}
	s.mu.Lock()
	library := s.rows
	s.mu.Unlock()
	// A project's scope narrows the matches to its folders' prompts, as a filter on the matches.
	// (Given the scope's rowids as a constraint, SQLite ran the MATCH once per rowid, each a new
	// FTS5 query that recomputed bm25's IDF: 13 s for two words in half of a 100k library.)
	// Listing the scope's rowids costs 0.5 µs each, every query; looking up each match's folder
	// costs about 1 µs a match. So a query with few matches in the whole library looks them up,
	// and one with many lists the scope.
	scope, scopeArgs := "", []any(nil)
	if inFolders != nil {
		var all int
		if err := rd.QueryRowContext(ctx, "SELECT count(*) FROM fts WHERE fts MATCH ?", expr).Scan(&all); err != nil {
			return nil, 0, err
		}
		if all == 0 {
			return []docRef{}, 0, nil
		}
		scope = scopeRowids
		if all <= broadAt(library) {
			scope = scopeLookup
		}
		scopeArgs = []any{jsonList(inFolders)}
	}
	// A query that matches most of the library would rank every match (bm25 over 100k rows is
	// most of 150 ms): count first, and above broadMatches rank only what bm25 can tell apart.
	var total int
	if err := rd.QueryRowContext(ctx, "SELECT count(*) FROM fts WHERE fts MATCH ?"+scope, append([]any{expr}, scopeArgs...)...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total > broadAt(library) {
		refs, err := s.searchBroad(ctx, rd, expr, scope, scopeArgs, limit, offset)
		return refs, total, err
	}
	keep := offset + limit + tieSlack
	rows, err := rd.QueryContext(ctx, `WITH top AS (
  SELECT rowid AS rid, `+rankExpr+` AS score FROM fts WHERE fts MATCH ?`+scope+` ORDER BY score LIMIT ?)
SELECT top.rid, d.id, top.score FROM top JOIN docs AS d ON d.rid = top.rid ORDER BY top.score, d.created DESC, d.id`,
		append(append([]any{expr}, scopeArgs...), keep)...)
	if err != nil {
		return nil, 0, err
	}
	var refs []docRef
	var scores []float64
	err = func() error {
		defer rows.Close()
		for rows.Next() {
			var r docRef
			var score float64
			if err := rows.Scan(&r.rowid, &r.id, &score); err != nil {
				return err
			}
			refs, scores = append(refs, r), append(scores, score)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, 0, err
	}
	if len(refs) < keep {
		// Every match was ranked: the page is exact.
		return refs[min(offset, len(refs)):min(offset+limit, len(refs))], len(refs), nil
	}
	if end := offset + limit; scores[len(scores)-1] > scores[end-1] {
		return refs[offset:end], total, nil
	}
	rows, err = rd.QueryContext(ctx, "SELECT d.rid, d.id FROM fts CROSS JOIN docs AS d ON d.rid = fts.rowid WHERE fts MATCH ?"+scope+" ORDER BY "+
		rankExpr+", d.created DESC, d.id LIMIT ? OFFSET ?", append(append([]any{expr}, scopeArgs...), limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	refs, err = scanRefs(rows)
	return refs, total, err
}

// A scope as a filter on a search's matches, its folders' ids the one argument: the rowids of
// their prompts (listed once per query; the + keeps them from FTS5 as a constraint), or each
// match's folder looked up.
const (
	scopeRowids = " AND +fts.rowid IN (SELECT rid FROM docs WHERE folder IN (SELECT value FROM json_each(?)))"
	scopeLookup = " AND (SELECT folder FROM docs WHERE rid = fts.rowid) IN (SELECT value FROM json_each(?))"
)

// broadAt is the most matches a search of a library of that many prompts ranks; past it the
// search is broad: more than broadMatches, or more than commonMatches that are also more than
// half the library.
func broadAt(library int) int { return min(broadMatches, max(commonMatches, library/2)) }

// broadMatches is the most matches a search ranks by bm25. Above it the words are common in the
// library (a word in most prompts), bm25 scores differ little, and ranking them all costs more
// than the order is worth.
const broadMatches = 2000

// commonMatches: a search with more matches than this that match more than half the library is
// paged as a broad one too. Every word of it is then in more than half the prompts, where FTS5
// clamps bm25's IDF to almost zero: the score still puts title hits first (as the broad order
// does) but otherwise only prefers short prompts and repeated words, and ranking a thousand
// matches to get that cost a millisecond a call (a word in 99% of a 1k library: 1.05 ms of
// search per call). Below it ranking is cheap and a small library keeps the full order.
const commonMatches = 250

// searchBroad pages a query with more than broadAt matches: prompts with the words in their
// title first (ranked by bm25 when they are few enough, else newest first), then the others,
// newest first. Both orders come straight from the index; total stays exact.
func (s *sidecar) searchBroad(ctx context.Context, rd *sql.DB, expr, scope string, scopeArgs []any, limit, offset int) ([]docRef, error) {
	inTitle := "{title} : (" + expr + ")"
	var titled int
	if err := rd.QueryRowContext(ctx, "SELECT count(*) FROM fts WHERE fts MATCH ?"+scope, append([]any{inTitle}, scopeArgs...)...).Scan(&titled); err != nil {
		return nil, err
	}
	order := "fts.rowid DESC"
	if titled <= broadMatches {
		order = rankExpr + ", fts.rowid DESC"
	}
	page := func(match, order string, limit, offset int) ([]docRef, error) {
		rows, err := rd.QueryContext(ctx, "SELECT d.rid, d.id FROM fts CROSS JOIN docs AS d ON d.rid = fts.rowid WHERE fts MATCH ?"+scope+
			" ORDER BY "+order+" LIMIT ? OFFSET ?", append(append([]any{match}, scopeArgs...), limit, offset)...)
		if err != nil {
			return nil, err
		}
		return scanRefs(rows)
	}
	var refs []docRef
	if offset < titled {
		head, err := page(inTitle, order, limit, offset)
		if err != nil {
			return nil, err
		}
		refs = head
	}
	if rest := limit - len(refs); rest > 0 {
		tail, err := page("("+expr+") NOT "+inTitle, "fts.rowid DESC", rest, max(0, offset-titled))
		if err != nil {
			return nil, err
		}
		refs = append(refs, tail...)
	}
	return refs, nil
}

// list returns a page of rowids in listing order and the number of prompts under the filter.
func (s *sidecar) list(ctx context.Context, opts ListOptions) ([]docRef, int, error) {
	rows, total, err := s.listRows(ctx, "rid, id", opts)
	if err != nil {
		return nil, 0, err
	}
	refs, err := scanRefs(rows)
	return refs, total, err
}

// listBriefs is list's page read whole from docs: one query where list and briefs are two.
func (s *sidecar) listBriefs(ctx context.Context, opts ListOptions) ([]Listed, int, error) {
	if opts.FolderID == "" && !opts.Root && opts.InFolders == nil {
		if h := s.newest(ctx); h != nil && h.serves(opts) {
			return h.page(opts), h.total, nil
		}
	}
	rows, total, err := s.listRows(ctx, briefColumns, opts)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := make([]Listed, 0, min(opts.Limit, total))
	sc := newBriefScanner()
	for rows.Next() {
		l, err := sc.scan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, l)
	}
	return out, total, rows.Err()
}

// listRows queries cols of a page of docs in listing order, and counts the prompts under the
// filter.
func (s *sidecar) listRows(ctx context.Context, cols string, opts ListOptions) (*sql.Rows, int, error) {
	rd := s.reader()
	if rd == nil {
		return nil, 0, errors.New("dbread: search index closed")
	}
	var conds []string
	var args []any
	switch {
	case opts.FolderID != "":
		conds, args = append(conds, "folder = ?"), []any{strings.ToLower(opts.FolderID)}
	case opts.Root:
		conds = append(conds, "folder = ''")
	}
	if opts.InFolders != nil {
		conds = append(conds, "folder IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(opts.InFolders))
	}
	where := whereClause(conds)
	var total int
	if where == "" {
		s.mu.Lock()
		total = s.rows
		s.mu.Unlock()
	} else if err := rd.QueryRowContext(ctx, "SELECT count(*) FROM docs"+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := rd.QueryContext(ctx, "SELECT "+cols+" FROM docs"+where+" ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
		append(args, opts.Limit, opts.Offset)...)
	return rows, total, err
}

func scanRefs(rows *sql.Rows) ([]docRef, error) {
	defer rows.Close()
	var refs []docRef
	for rows.Next() {
		var r docRef
		if err := rows.Scan(&r.rowid, &r.id); err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	return refs, rows.Err()
}
