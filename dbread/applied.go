package dbread

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	// The processor records ids in lower case; an older version kept the spelling given.
	var stored string
	err = pool.QueryRowContext(ctx, `SELECT response FROM applied_ops WHERE op_id IN (?, ?)`, strings.ToLower(id), id).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, db.wrap("read applied operations", err)
	}
	if err := json.Unmarshal([]byte(stored), &r); err != nil {
		return r, false, fmt.Errorf("dbread: the recorded answer of operation %s is not JSON: %w", id, err)
	}
	return r, true, nil
}
