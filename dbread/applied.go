package dbread

import (
	"context"

	"github.com/mcpctl/mcpctl/promptlib"
)

// AppliedResponse is the answer mcpctl's queue processor recorded for operation id as it
// applied it, in the same transaction (applied_ops, DESIGN §4 step 3): what became of a write
// when its response file is not there, not yet written (a full disk stopped it) or already
// collected. ok is false when none is recorded, and always for a library only the Prompteka app
// has applied writes to: it keeps no such table.
func (db *DB) AppliedResponse(ctx context.Context, id string) (r promptlib.Response, ok bool, err error) {
	pool, release, err := db.acquire()
	if err != nil {
		return r, false, db.wrap("read applied operations", err)
	}
	defer release()
	var n int
	if err := pool.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'applied_ops'`).Scan(&n); err != nil || n == 0 {
		return r, false, db.wrap("read applied operations", err)
	}
	r, ok, err = promptlib.RecordedAnswer(ctx, pool, id)
	return r, ok, db.wrap("read applied operations", err)
}
