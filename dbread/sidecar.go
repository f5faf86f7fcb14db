package dbread

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3" // the sidecar is ours to write: the plain driver
)

// Search index states, as SearchIndex reports them.
const (
	IndexReady       = "ready"
	IndexBuilding    = "building"
	IndexUnavailable = "unavailable"
)

// sidecarFormat is the sidecar's PRAGMA user_version; a file of another format is rebuilt.
const sidecarFormat = 3

// bucketWidth is how many consecutive rowids one change-detection bucket spans.
//
// How the sidecar notices what the app changed, cheaply. The app's database has indexes only on
// id, folder_id and rowid, so no query can ask it "what changed since T". Instead one
// autocommit read computes, for each run of 512 rowids, (count(*), total(updated_at)): one pass
// over the table's pages, with no row crossing into Go (35–50 ms at 100k prompts on a busy
// 2-core machine; most of it is reading the pages, which no cheaper query avoids). Only buckets
// whose fingerprint differs from the last sync are read in full and compared row by row (by a
// hash of id, folder, timestamps, title and body), about a millisecond per bucket. Inserts and
// deletes change the count or the sum; an edit by the app changes updated_at. An edit that
// leaves updated_at as it was (and the bucket's count) goes unnoticed until that bucket changes
// again: the app stamps updated_at on every edit, and so does promptlib.Apply.
const bucketWidth = 512

// sparseBuckets: if rowids spread over more buckets than this (the app deleted most of a huge
// table, or rowids were assigned at random), the per-bucket walk would visit mostly empty
// ranges, so the sums are grouped instead.
const sparseBuckets = 1 << 16

// bucketSum is one bucket's fingerprint.
type bucketSum struct {
	n   int64
	upd float64
}

// ftsTable is the full-text index. It keeps its own copy of titles and bodies (FTS5's content
// table): removing a row from a contentless index needs either the old text or
// contentless_delete=1, and the latter measured three times slower at ranking a broad query.
// Disk is cheap and the cache is rebuildable; memory is not spent either way.
const ftsTable = "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body, tokenize='unicode61 remove_diacritics 2')"

// sidecarSchema: docs maps the app's rowid to what listing and change detection need; results
// are always read from the app's database, never from the sidecar's copy.
const sidecarSchema = ftsTable + ";" + sidecarDocs + docsIndexes + sidecarTables

const sidecarDocs = `
CREATE TABLE IF NOT EXISTS docs (
    rid     INTEGER PRIMARY KEY, -- the app's prompts.rowid
    id      TEXT NOT NULL,       -- as stored by the app
    folder  TEXT NOT NULL,       -- lower(folder_id); '' at the top level
    created REAL NOT NULL,
    sig     INTEGER NOT NULL     -- hash of the row, to tell a changed row from an unchanged one
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
    upd REAL NOT NULL
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

	kickc chan struct{}

	// Owned by run.
	wr       *sql.DB
	buckets  map[int64]bucketSum
	complete bool // the first full build committed
}

func newSidecar(db *DB) *sidecar {
	s := &sidecar{db: db, state: IndexBuilding, done: make(chan struct{}), kickc: make(chan struct{}, 1)}
	if db.opts.CacheDir != "" {
		sum := sha256.Sum256([]byte(db.path))
		s.path = filepath.Join(db.opts.CacheDir, "search", hex.EncodeToString(sum[:12])+".db")
	}
	return s
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

func (e sideFault) Error() string { return "dbread: search index " + e.err.Error() }
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

func (s *sidecar) unavailable(err error) {
	s.db.log.Warn("search index unavailable; searching by LIKE scan", "err", err)
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

// attempt returns a channel closed after the next sync attempt or state change.
func (s *sidecar) attempt() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// run builds the sidecar, then keeps it in step with the library until ctx is cancelled.
func (s *sidecar) run(ctx context.Context) {
	defer s.stopped()
	if s.path == "" {
		s.unavailable(errors.New("dbread: no cache directory"))
		return
	}
	if err := s.open(ctx); err != nil {
		if ctx.Err() == nil {
			s.unavailable(err)
		}
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
		case errors.As(err, new(sideFault)):
			s.unavailable(err)
			return
		case err != nil:
			// The library could not be read (locked, schema changed): try again on the next
			// change, or soon.
			s.db.log.Warn("search index sync failed", "err", translate(err))
			retry = time.After(5 * time.Second)
		case n > 0:
			s.db.log.Debug("search index synced", "rows", n, "took", time.Since(start))
		}
		if !s.waitForWork(ctx, retry, err == nil, v) {
			return
		}
	}
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
func sidecarDSN(path string, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", "5000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "OFF")
	q.Set("_txlock", "immediate")
	if readOnly {
		q.Set("_query_only", "1")
	}
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// open opens (creating, or rebuilding if it is corrupt or of another format) the sidecar and
// loads its change-detection state.
func (s *sidecar) open(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fault(fmt.Errorf("cache directory: %w", err))
	}
	err := s.openFile(ctx)
	if err != nil && ctx.Err() == nil {
		// A damaged or foreign file: start afresh once.
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

func (s *sidecar) openFile(ctx context.Context) error {
	wr, err := sql.Open("sqlite3", sidecarDSN(s.path, false))
	if err != nil {
		return err
	}
	wr.SetMaxOpenConns(1)
	s.wr = wr
	var format int
	if err := wr.QueryRowContext(ctx, "PRAGMA user_version").Scan(&format); err != nil {
		return err
	}
	if format != sidecarFormat {
		// Another format (or a new file): drop everything and start afresh.
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
	rd, err := sql.Open("sqlite3", sidecarDSN(s.path, true))
	if err != nil {
		return err
	}
	rd.SetMaxOpenConns(searchParts + 1)
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
	s.buckets = map[int64]bucketSum{}
	rows, err := s.wr.QueryContext(ctx, "SELECT lo, n, upd FROM buckets")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var lo int64
		var b bucketSum
		if err := rows.Scan(&lo, &b.n, &b.upd); err != nil {
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
		total += int(b.n)
	}
	s.mu.Lock()
	s.rows = total
	s.mu.Unlock()
}

// close is called once run has returned.
func (s *sidecar) close() error { return s.closeFiles() }

// sync brings the sidecar up to date with the library and returns how many rows it rewrote.
// Reading the library is a series of short autocommit reads; everything written goes in one
// sidecar transaction, so a crash or a cancelled build leaves the previous state.
func (s *sidecar) sync(ctx context.Context) (int, error) {
	t0 := time.Now()
	sums, err := s.db.bucketSums(ctx)
	if err != nil {
		return 0, err
	}
	s.db.log.Debug("search index: library fingerprinted", "buckets", len(sums), "took", time.Since(t0))
	var dirty []int64
	for lo, now := range sums {
		if s.buckets[lo] != now {
			dirty = append(dirty, lo)
		}
	}
	for lo := range s.buckets {
		if _, ok := sums[lo]; !ok {
			dirty = append(dirty, lo)
		}
	}
	if len(dirty) == 0 && s.complete {
		return 0, nil
	}
	slices.Sort(dirty)

	tx, err := s.wr.BeginTx(ctx, nil)
	if err != nil {
		return 0, fault(err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if !s.complete {
		if _, err := tx.ExecContext(ctx, "DROP INDEX IF EXISTS docs_newest; DROP INDEX IF EXISTS docs_folder"); err != nil {
			return 0, fault(err)
		}
	}
	w, err := prepareWriter(ctx, tx)
	if err != nil {
		return 0, fault(err)
	}
	defer w.close()
	// Row writes run without cancellation: with a cancellable context the driver runs every
	// statement on a goroutine of its own, which was most of a full build's time. Cancellation is
	// checked between buckets instead, so Close waits for at most one bucket.
	wctx := context.WithoutCancel(ctx)
	n := 0
	for _, lo := range dirty {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		c, err := s.syncBucket(wctx, tx, w, lo)
		if err != nil {
			return 0, err
		}
		n += c
		now := sums[lo]
		if now.n == 0 {
			_, err = w.delBucket.ExecContext(wctx, lo)
		} else {
			_, err = w.putBucket.ExecContext(wctx, lo, now.n, now.upd)
		}
		if err != nil {
			return 0, fault(err)
		}
	}
	w.close()
	if !s.complete {
		if _, err := tx.ExecContext(ctx, docsIndexes+"; INSERT OR REPLACE INTO meta (key, value) VALUES ('complete', '1')"); err != nil {
			return 0, fault(err)
		}
	}
	wrote := time.Now()
	if err := tx.Commit(); err != nil {
		return 0, fault(err)
	}
	s.db.log.Debug("search index commit", "took", time.Since(wrote))
	for _, lo := range dirty {
		if now := sums[lo]; now.n == 0 {
			delete(s.buckets, lo)
		} else {
			s.buckets[lo] = now
		}
	}
	s.complete = true
	s.setRows()
	if n >= 5000 {
		// Many new segments after a large build: merge them so queries read fewer.
		start := time.Now()
		if _, err := s.wr.ExecContext(ctx, "INSERT INTO fts (fts) VALUES ('optimize')"); err != nil {
			s.db.log.Warn("search index optimize", "err", err)
		}
		s.db.log.Debug("search index optimize", "took", time.Since(start))
		// Hand back the build's page cache and FTS buffers (the server must stay small) and the
		// disk its WAL grew to.
		for _, stmt := range []string{"PRAGMA shrink_memory", "PRAGMA wal_checkpoint(TRUNCATE)"} {
			if _, err := s.wr.ExecContext(ctx, stmt); err != nil {
				s.db.log.Debug("search index "+stmt, "err", err)
			}
		}
	}
	return n, nil
}

// sideWriter holds the statements one sync runs per row.
type sideWriter struct {
	putDoc, delDoc, putFTS, delFTS, putBucket, delBucket *sql.Stmt
}

func prepareWriter(ctx context.Context, tx *sql.Tx) (*sideWriter, error) {
	w := &sideWriter{}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.putDoc, "INSERT OR REPLACE INTO docs (rid, id, folder, created, sig) VALUES (?, ?, ?, ?, ?)"},
		{&w.delDoc, "DELETE FROM docs WHERE rid = ?"},
		{&w.putFTS, "INSERT INTO fts (rowid, title, body) VALUES (?, ?, ?)"},
		{&w.delFTS, "DELETE FROM fts WHERE rowid = ?"},
		{&w.putBucket, "INSERT OR REPLACE INTO buckets (lo, n, upd) VALUES (?, ?, ?)"},
		{&w.delBucket, "DELETE FROM buckets WHERE lo = ?"},
	} {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.dst = st
	}
	return w, nil
}

func (w *sideWriter) close() {
	for _, st := range []*sql.Stmt{w.putDoc, w.delDoc, w.putFTS, w.delFTS, w.putBucket, w.delBucket} {
		if st != nil {
			st.Close()
		}
	}
	*w = sideWriter{}
}

// syncBucket compares one bucket's rows in the library with the sidecar's and rewrites those
// that differ. It returns how many rows it wrote or deleted.
func (s *sidecar) syncBucket(ctx context.Context, tx *sql.Tx, w *sideWriter, lo int64) (int, error) {
	known := map[int64]int64{} // rid -> sig
	rows, err := tx.QueryContext(ctx, "SELECT rid, sig FROM docs WHERE rid >= ? AND rid < ?", lo, lo+bucketWidth)
	if err != nil {
		return 0, fault(err)
	}
	for rows.Next() {
		var rid, sig int64
		if err := rows.Scan(&rid, &sig); err != nil {
			rows.Close()
			return 0, fault(err)
		}
		known[rid] = sig
	}
	if err := rows.Close(); err != nil {
		return 0, fault(err)
	}
	n := 0
	err = s.db.bucketRows(ctx, lo, func(r appRow) error {
		sig := r.sig()
		old, had := known[r.rowid]
		delete(known, r.rowid)
		if had && old == sig {
			return nil
		}
		n++
		if had {
			if _, err := w.delFTS.ExecContext(ctx, r.rowid); err != nil {
				return fault(err)
			}
		}
		if _, err := w.putDoc.ExecContext(ctx, r.rowid, r.id, strings.ToLower(r.folder), r.created, sig); err != nil {
			return fault(err)
		}
		if _, err := w.putFTS.ExecContext(ctx, r.rowid, r.title, r.body); err != nil {
			return fault(err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for rid := range known { // gone from the library
		n++
		if _, err := w.delDoc.ExecContext(ctx, rid); err != nil {
			return 0, fault(err)
		}
		if _, err := w.delFTS.ExecContext(ctx, rid); err != nil {
			return 0, fault(err)
		}
	}
	return n, nil
}

// appRow is a prompt as the sidecar needs it.
type appRow struct {
	rowid            int64
	id, folder       string
	title, body      string
	created, updated float64
}

// sig hashes everything the sidecar derives from the row.
func (r *appRow) sig() int64 {
	h := fnv.New64a()
	for _, s := range []string{r.id, r.folder, r.title, r.body} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var b [16]byte
	for i, f := range []float64{r.created, r.updated} {
		bits := math.Float64bits(f)
		for j := range 8 {
			b[i*8+j] = byte(bits >> (8 * j))
		}
	}
	h.Write(b[:])
	return int64(h.Sum64())
}

// numeric reads a stored timestamp as float seconds.
func numeric(v any) float64 {
	var u unixTime
	if err := u.Scan(v); err != nil || u.t.IsZero() {
		return 0
	}
	return float64(u.t.UnixNano()) / 1e9
}

// bucketSums fingerprints the prompts table per bucket of rowids (see bucketWidth).
func (db *DB) bucketSums(ctx context.Context) (map[int64]bucketSum, error) {
	pool, release, err := db.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	var lo, hi sql.NullInt64
	if err := pool.QueryRowContext(ctx, "SELECT min(rowid), max(rowid) FROM prompts").Scan(&lo, &hi); err != nil {
		return nil, err
	}
	sums := map[int64]bucketSum{}
	if !lo.Valid {
		return sums, nil
	}
	first := lo.Int64 &^ (bucketWidth - 1)
	var query string
	var args []any
	if (hi.Int64-first)/bucketWidth > sparseBuckets || hi.Int64 > math.MaxInt64-2*bucketWidth {
		query = "SELECT (rowid >> 9) << 9 AS lo, count(*), total(updated_at) FROM prompts GROUP BY 1"
	} else {
		// One range scan per bucket, in rowid order: no sort, nothing crosses into Go but the
		// sums.
		query = `WITH RECURSIVE b(lo) AS (SELECT ? UNION ALL SELECT lo + 512 FROM b WHERE lo + 512 <= ?)
SELECT lo,
  (SELECT count(*) FROM prompts WHERE rowid >= lo AND rowid < lo + 512),
  (SELECT total(updated_at) FROM prompts WHERE rowid >= lo AND rowid < lo + 512)
FROM b`
		args = []any{first, hi.Int64}
	}
	rows, err := pool.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var lo int64
		var b bucketSum
		if err := rows.Scan(&lo, &b.n, &b.upd); err != nil {
			return nil, err
		}
		if b.n > 0 {
			sums[lo] = b
		}
	}
	return sums, rows.Err()
}

// bucketRows streams the bucket's rows from the library to fn. The read lasts as long as fn
// takes for at most bucketWidth rows: a few milliseconds.
func (db *DB) bucketRows(ctx context.Context, lo int64, fn func(appRow) error) error {
	pool, release, err := db.acquire()
	if err != nil {
		return err
	}
	defer release()
	rows, err := pool.QueryContext(ctx, "SELECT rowid, id, title, body, folder_id, created_at, updated_at FROM prompts WHERE rowid >= ? AND rowid < ?", lo, lo+bucketWidth)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r appRow
		var folder sql.NullString
		var created, updated any
		if err := rows.Scan(&r.rowid, &r.id, &r.title, &r.body, &folder, &created, &updated); err != nil {
			return err
		}
		r.folder = folder.String
		r.created, r.updated = numeric(created), numeric(updated)
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// reader returns the sidecar's read pool, or nil.
func (s *sidecar) reader() *sql.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rd
}

// tieSlack is how many rows past the page search ranks, to see the end of a run of equal
// scores at the page's edge.
const tieSlack = 64

// parallelFrom is the library size from which search ranks rowid ranges in parallel, one per
// reader connection: ranking is per match and CPU-bound (about 0.7 µs a match), and a word found
// in half of 100k prompts took 30–40 ms on one core.
const parallelFrom = 20_000

// searchParts is how many rowid ranges a large library's search ranks at once.
var searchParts = min(runtime.NumCPU(), 2)

// ranked is one match with what ordering needs.
type ranked struct {
	docRef
	score, created float64
}

// search runs a MATCH expression (from matchExpr) and returns a page of rowids, ranked, and the
// number of matches.
//
// Order is bm25, then created DESC, then id. The tie-break needs docs for every row it
// compares, and a lookup per match was a third of the time of a broad query, so the index first
// ranks by bm25 alone and keeps offset+limit+tieSlack rows (per rowid range, ranges ranked in
// parallel in a large library); only those are joined and ordered fully. That is exact unless a
// run of equal scores crosses the edge of the kept rows, in which case the full query runs.
func (s *sidecar) search(ctx context.Context, expr string, limit, offset int) ([]docRef, int, error) {
	s.mu.Lock()
	rd, rows := s.rd, s.rows
	s.mu.Unlock()
	if rd == nil {
		return nil, 0, errors.New("dbread: search index closed")
	}
	keep := offset + limit + tieSlack
	parts := 1
	if rows >= parallelFrom {
		parts = searchParts
	}
	bounds, err := s.rowidBounds(ctx, rd, parts)
	if err != nil {
		return nil, 0, err
	}
	results := make([][]ranked, len(bounds))
	errs := make([]error, len(bounds))
	var wg sync.WaitGroup
	for i, b := range bounds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = rankRange(ctx, rd, expr, b, keep)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	var all []ranked
	complete := true // every match was ranked
	for _, r := range results {
		all = append(all, r...)
		complete = complete && len(r) < keep
	}
	slices.SortFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.created, a.created); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	page := func(total int) ([]docRef, int, error) {
		end := min(offset+limit, len(all))
		refs := make([]docRef, 0, max(end-offset, 0))
		for _, r := range all[min(offset, end):end] {
			refs = append(refs, r.docRef)
		}
		return refs, total, nil
	}
	if complete {
		return page(len(all))
	}
	var total int
	if err := rd.QueryRowContext(ctx, "SELECT count(*) FROM fts WHERE fts MATCH ?", expr).Scan(&total); err != nil {
		return nil, 0, err
	}
	// Exact if, in every range that was cut short, the cut came after a score worse than the
	// page's last: then no row left out could belong on the page.
	edge := all[min(offset+limit, len(all))-1].score
	exact := true
	for _, r := range results {
		if len(r) == keep && r[len(r)-1].score <= edge {
			exact = false
		}
	}
	if exact {
		return page(total)
	}
	q, err := rd.QueryContext(ctx, "SELECT d.rid, d.id FROM fts CROSS JOIN docs AS d ON d.rid = fts.rowid WHERE fts MATCH ? ORDER BY "+
		rankExpr+", d.created DESC, d.id LIMIT ? OFFSET ?", expr, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	refs, err := scanRefs(q)
	return refs, total, err
}

// rowidRange is a half-open range of rowids.
type rowidRange struct{ lo, hi int64 }

// rowidBounds splits the indexed rowids into n ranges of about equal size.
func (s *sidecar) rowidBounds(ctx context.Context, rd *sql.DB, n int) ([]rowidRange, error) {
	if n <= 1 {
		return []rowidRange{{math.MinInt64, math.MaxInt64}}, nil
	}
	var lo, hi sql.NullInt64
	if err := rd.QueryRowContext(ctx, "SELECT min(rid), max(rid) FROM docs").Scan(&lo, &hi); err != nil {
		return nil, err
	}
	if !lo.Valid {
		return []rowidRange{{math.MinInt64, math.MaxInt64}}, nil
	}
	out := make([]rowidRange, n)
	step := (hi.Int64-lo.Int64)/int64(n) + 1
	for i := range out {
		out[i] = rowidRange{lo.Int64 + int64(i)*step, lo.Int64 + int64(i+1)*step}
	}
	out[0].lo, out[n-1].hi = math.MinInt64, math.MaxInt64
	return out, nil
}

// rankRange returns the keep best-ranked matches with rowids in b, in full order.
func rankRange(ctx context.Context, rd *sql.DB, expr string, b rowidRange, keep int) ([]ranked, error) {
	rows, err := rd.QueryContext(ctx, `WITH top AS (
  SELECT rowid AS rid, `+rankExpr+` AS score FROM fts
  WHERE fts MATCH ? AND rowid >= ? AND rowid < ? ORDER BY score LIMIT ?)
SELECT top.rid, d.id, top.score, d.created FROM top JOIN docs AS d ON d.rid = top.rid
ORDER BY top.score, d.created DESC, d.id`, expr, b.lo, b.hi, keep)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.rowid, &r.id, &r.score, &r.created); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// list returns a page of rowids in listing order and the number of prompts under the filter.
func (s *sidecar) list(ctx context.Context, opts ListOptions) ([]docRef, int, error) {
	rd := s.reader()
	if rd == nil {
		return nil, 0, errors.New("dbread: search index closed")
	}
	where, args := "", []any(nil)
	switch {
	case opts.FolderID != "":
		where, args = " WHERE folder = ?", []any{strings.ToLower(opts.FolderID)}
	case opts.Root:
		where, args = " WHERE folder = ''", nil
	}
	var total int
	if where == "" {
		s.mu.Lock()
		total = s.rows
		s.mu.Unlock()
	} else if err := rd.QueryRowContext(ctx, "SELECT count(*) FROM docs"+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := rd.QueryContext(ctx, "SELECT rid, id FROM docs"+where+" ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
		append(args, opts.Limit, opts.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	refs, err := scanRefs(rows)
	return refs, total, err
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
