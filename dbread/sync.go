package dbread

import (
	"context"
	"database/sql"
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// bucketWidth is how many consecutive rowids one change-detection bucket spans.
//
// How the sidecar notices what the app changed, cheaply. The app's database has indexes only on
// id, folder_id and rowid, so no query can ask it "what changed since T". Instead one
// autocommit read computes, for each run of 512 rowids, (count(*), total(updated_at)): one pass
// over the table's pages, with no row crossing into Go (35–50 ms at 100k prompts on a busy
// 2-core machine; most of it is reading the pages, which no cheaper query avoids). Only buckets
// whose fingerprint differs from the last sync are read in full and compared row by row (by a
// hash of every column the sidecar keeps), about a millisecond per bucket. Inserts and deletes
// change the count or the sum; an edit by the app changes updated_at. updated_at has whole
// seconds, so a second edit within the second of the first leaves the sums as they were: the
// buckets edited in the latest second the last sync saw are read again (BucketSum.Latest),
// until a sync has read the library two seconds after that second. An edit that leaves updated_at as it was, in a bucket not edited lately,
// goes unnoticed until that bucket changes again: the app stamps updated_at on every edit, and
// so does promptlib.Apply.
const bucketWidth = 512 // the SQL in bucketSums spells it 512 and >> 9

// sparseBuckets: if rowids spread over more buckets than this (the app deleted most of a huge
// table, or rowids were assigned at random), the per-bucket walk would visit mostly empty
// ranges, so the sums are grouped instead.
const sparseBuckets = 1 << 16

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
	latest := math.Inf(-1) // a library may hold any time, the zero time's negative seconds too
	for _, b := range s.buckets {
		latest = max(latest, b.Latest)
	}
	// The buckets edited in the latest second the last sync saw may hold a second edit of that
	// second, which left their sums as they were: they are read again, unless the last sync read
	// the library well after that second, when every edit stamped with it had committed.
	recheck := s.complete && (s.lastRead.IsZero() || float64(s.lastRead.Unix()) < latest+2)
	var dirty []int64
	for lo, now := range sums {
		if !s.buckets[lo].SameRows(now) || recheck && now.Latest >= latest-1 {
			dirty = append(dirty, lo)
		}
	}
	for lo := range s.buckets {
		if _, ok := sums[lo]; !ok {
			dirty = append(dirty, lo)
		}
	}
	if len(dirty) == 0 && s.complete {
		s.lastRead = t0
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
	n, sumsChanged := 0, 0
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
		switch last, had := s.buckets[lo]; {
		case now.N == 0 && had:
			_, err = w.delBucket.ExecContext(wctx, lo)
		case now.N != 0 && (!had || last != now):
			_, err = w.putBucket.ExecContext(wctx, lo, now.N, now.Updated, now.Latest)
		default:
			continue
		}
		sumsChanged++
		if err != nil {
			return 0, fault(err)
		}
	}
	w.close()
	if n == 0 && sumsChanged == 0 && s.complete {
		// Only read again, and nothing differed: no commit (Rollback, deferred).
		s.lastRead = t0
		return 0, nil
	}
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
		if now := sums[lo]; now.N == 0 {
			delete(s.buckets, lo)
		} else {
			s.buckets[lo] = now
		}
	}
	s.complete = true
	s.lastRead = t0
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
		{&w.putDoc, "INSERT OR REPLACE INTO docs (rid, id, folder, created, sig, title, summary, bytes, folder_id, icon, color, url, updated)" +
			" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
		{&w.delDoc, "DELETE FROM docs WHERE rid = ?"},
		{&w.putFTS, "INSERT INTO fts (rowid, title, body) VALUES (?, ?, ?)"},
		{&w.delFTS, "DELETE FROM fts WHERE rowid = ?"},
		{&w.putBucket, "INSERT OR REPLACE INTO buckets (lo, n, upd, latest) VALUES (?, ?, ?, ?)"},
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
		if _, err := w.putDoc.ExecContext(ctx, r.rowid, r.id, strings.ToLower(r.folder.String), r.created, sig,
			r.title, promptlib.Summary(r.body), len(r.body), r.folder, r.icon, r.color, r.url, r.updated); err != nil {
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

// appRow is a prompt as the sidecar needs it: what it indexes and what a brief listing shows.
// Timestamps are kept as stored (NULL, integer or real seconds, or whatever else the app
// wrote), so that a listing read from the sidecar shows what one read from the app's database
// shows, and fails where that one fails.
type appRow struct {
	rowid                    int64
	id, title, body          string
	folder, icon, color, url sql.NullString
	created, updated         any
}

// sig hashes everything the sidecar derives from the row.
func (r *appRow) sig() int64 {
	h := fnv.New64a()
	for _, s := range []string{r.id, r.title, r.body} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	// A NULL and an empty string differ: the marker byte says which.
	for _, s := range []sql.NullString{r.folder, r.icon, r.color, r.url} {
		if s.Valid {
			h.Write([]byte(s.String))
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
	}
	for _, v := range []any{r.created, r.updated} {
		var b [9]byte
		switch x := v.(type) {
		case int64:
			b[0] = 1
			binary.LittleEndian.PutUint64(b[1:], uint64(x))
		case float64:
			b[0] = 2
			binary.LittleEndian.PutUint64(b[1:], math.Float64bits(x))
		case string:
			b[0] = 3
			h.Write([]byte(x))
		case []byte:
			b[0] = 4
			h.Write(x)
		}
		h.Write(b[:])
	}
	return int64(h.Sum64())
}

// bucketSums fingerprints the prompts table per bucket of rowids (see bucketWidth). The view
// of the server and the search index both follow every change, each with a fingerprint, and
// at 100k prompts one reads the whole table (35–50 ms): so one is shared by every caller at the
// same Version of the same file, after a poll, so that it still reflects every write committed
// before the call. Callers must not change it.
func (db *DB) bucketSums(ctx context.Context) (map[int64]BucketSum, error) {
	if err := db.poll(ctx); err != nil {
		return nil, err
	}
	db.sumsMu.Lock()
	defer db.sumsMu.Unlock()
	db.mu.RLock()
	lib := db.lib
	db.mu.RUnlock()
	version := db.Version() // before reading: a change made meanwhile moves it on
	if db.sums != nil && db.sumsAt == version && db.sumsOf == lib {
		return db.sums, nil
	}
	sums, err := db.readBucketSums(ctx)
	if err != nil {
		return nil, err
	}
	db.sums, db.sumsAt, db.sumsOf = sums, version, lib
	return sums, nil
}

func (db *DB) readBucketSums(ctx context.Context) (map[int64]BucketSum, error) {
	pool, release, err := db.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	var lo, hi sql.NullInt64
	if err := pool.QueryRowContext(ctx, "SELECT min(rowid), max(rowid) FROM prompts").Scan(&lo, &hi); err != nil {
		return nil, err
	}
	sums := map[int64]BucketSum{}
	if !lo.Valid {
		return sums, nil
	}
	first := lo.Int64 &^ (bucketWidth - 1)
	var query string
	var args []any
	if (hi.Int64-first)/bucketWidth > sparseBuckets || hi.Int64 > math.MaxInt64-2*bucketWidth {
		query = "SELECT (rowid >> 9) << 9 AS lo, count(*), total(updated_at), coalesce(max(CAST(updated_at AS REAL)), 0) FROM prompts GROUP BY 1"
	} else {
		// One range scan per bucket, in rowid order: no sort, nothing crosses into Go but the
		// sums.
		query = `WITH RECURSIVE b(lo) AS (SELECT ? UNION ALL SELECT lo + 512 FROM b WHERE lo + 512 <= ?)
SELECT lo,
  (SELECT count(*) FROM prompts WHERE rowid >= lo AND rowid < lo + 512),
  (SELECT total(updated_at) FROM prompts WHERE rowid >= lo AND rowid < lo + 512),
  (SELECT coalesce(max(CAST(updated_at AS REAL)), 0) FROM prompts WHERE rowid >= lo AND rowid < lo + 512)
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
		var b BucketSum
		if err := rows.Scan(&lo, &b.N, &b.Updated, &b.Latest); err != nil {
			return nil, err
		}
		if b.N > 0 {
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
	rows, err := pool.QueryContext(ctx, "SELECT rowid, id, title, body, folder_id, icon, color, url, created_at, updated_at"+
		" FROM prompts WHERE rowid >= ? AND rowid < ?", lo, lo+bucketWidth)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r appRow
		if err := rows.Scan(&r.rowid, &r.id, &r.title, &r.body, &r.folder, &r.icon, &r.color, &r.url, &r.created, &r.updated); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}
