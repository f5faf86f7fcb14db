package dbread

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// requiredColumns are the columns the reader names in its queries, per table. The check is by
// column (PRAGMA table_info), not by schema_version: the app may add tables and columns freely,
// and only a missing or renamed column we use is an incompatibility.
var requiredColumns = []struct {
	table   string
	columns []string
}{
	{"folders", []string{"id", "name", "parent_id", "position", "created_at", "updated_at"}},
	{"prompts", []string{"id", "title", "body", "folder_id", "icon", "color", "url", "created_at", "updated_at"}},
}

// rowQueryer is a pool or a pinned connection.
type rowQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// checkSchema returns an error wrapping ErrSchema that names the first missing table or column.
func checkSchema(ctx context.Context, q rowQueryer) error {
	for _, t := range requiredColumns {
		have, err := tableColumns(ctx, q, t.table)
		if err != nil {
			return err
		}
		if len(have) == 0 {
			return because(ErrSchema, fmt.Sprintf("no table %q", t.table))
		}
		var missing []string
		for _, c := range t.columns {
			if !have[c] {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			return because(ErrSchema, fmt.Sprintf("table %q has no column %s", t.table, strings.Join(quoteAll(missing), ", ")))
		}
	}
	return nil
}

// tableColumns returns the lower-cased column names of table (none if it does not exist).
func tableColumns(ctx context.Context, q rowQueryer, table string) (map[string]bool, error) {
	// table_info's arguments cannot be bound; table is one of our constants, never input.
	rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info('"+table+"')")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		have[strings.ToLower(name)] = true
	}
	return have, rows.Err()
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
