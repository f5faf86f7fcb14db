package promptlib

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// RecordedAnswer is the answer the queue's processor recorded in applied_ops (StandaloneSQL) as
// it applied operation id, read through q: the processor's transaction, or a read-only
// connection. Ids are recorded under Key, as the queue compares them without case; a record an
// older version made under the spelling given is found too. ok is false when none is recorded.
func RecordedAnswer(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, id string) (r Response, ok bool, err error) {
	var stored string
	err = q.QueryRowContext(ctx, `SELECT response FROM applied_ops WHERE op_id IN (?, ?)`, Key(id), id).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, fmt.Errorf("applied_ops: %w", err)
	}
	if err := json.Unmarshal([]byte(stored), &r); err != nil {
		return r, false, fmt.Errorf("the recorded answer of operation %s is not JSON: %w", id, err)
	}
	return r, true, nil
}
