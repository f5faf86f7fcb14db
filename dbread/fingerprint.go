package dbread

import (
	"context"

	"github.com/mcpctl/mcpctl/promptlib"
)

// BucketWidth is how many consecutive rowids one bucket of a Fingerprint spans.
const BucketWidth = bucketWidth

// A Fingerprint tells a reader that keeps what it derived from the library, bucket by bucket,
// which buckets it must read again: those whose sum differs from the last fingerprint, or that
// appeared or vanished. Computing one reads no prompt into Go (35–50 ms at 100k prompts); an
// edit touches one bucket, so a reader follows a change to 100k prompts by reading 512. It sees
// what the sidecar sees: an edit that keeps a bucket's count and updated_at goes unnoticed
// (bucketWidth says why that is safe with the app).
type Fingerprint map[int64]BucketSum

// BucketSum is one bucket's fingerprint: how many prompts it holds, and the sum and the latest
// of their updated_at.
type BucketSum struct {
	N       int64
	Updated float64
	// Latest tells a reader which buckets an edit may have touched without changing the sums:
	// updated_at has whole seconds, so a second edit of a prompt within the second of the first
	// leaves both sums as they were. A reader re-reads the buckets edited in the latest second
	// it has seen.
	Latest float64
}

// SameRows reports whether two sums describe the same rows, as far as count and sum tell.
func (b BucketSum) SameRows(o BucketSum) bool { return b.N == o.N && b.Updated == o.Updated }

// Fingerprint fingerprints the library's prompts; the keys are each bucket's first rowid, a
// multiple of BucketWidth.
func (db *DB) Fingerprint(ctx context.Context) (Fingerprint, error) {
	sums, err := db.bucketSums(ctx)
	return sums, db.wrap("fingerprint", err)
}

// EachPromptInBucket calls fn with every prompt, and its rowid, of the bucket that starts at lo,
// in rowid order, in one short read. A timestamp that is not Unix seconds reads as the zero time
// (newWalkScanner).
func (db *DB) EachPromptInBucket(ctx context.Context, lo int64, fn func(rowid int64, p promptlib.Prompt) error) error {
	const op = "prompts of a bucket"
	pool, release, err := db.acquire()
	if err != nil {
		return db.wrap(op, err)
	}
	defer release()
	rows, err := pool.QueryContext(ctx, "SELECT rowid, "+promptColumns+" FROM prompts WHERE rowid >= ? AND rowid < ? ORDER BY rowid", lo, lo+BucketWidth)
	if err != nil {
		return db.wrap(op, err)
	}
	defer rows.Close()
	var rowid int64
	sc := newWalkScanner(&rowid)
	for rows.Next() {
		p, err := sc.scan(rows)
		if err != nil {
			return db.wrap(op, err)
		}
		if err := fn(rowid, p); err != nil {
			return err
		}
	}
	return db.wrap(op, rows.Err())
}
