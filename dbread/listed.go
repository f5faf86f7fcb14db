package dbread

import (
	"context"
	"database/sql"
	"errors"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Listed is a prompt as list and search pages show it: with its body's summary and size, and
// with the body itself unless the page was asked for Brief.
type Listed struct {
	promptlib.Prompt
	Summary      string
	ContentBytes int
}

// listedOf makes a page of prompts read whole; brief drops their bodies.
func listedOf(ps []promptlib.Prompt, brief bool) []Listed {
	out := make([]Listed, len(ps))
	for i, p := range ps {
		out[i] = Listed{Prompt: p, Summary: promptlib.Summary(p.Content), ContentBytes: len(p.Content)}
		if brief {
			out[i].Content = ""
		}
	}
	return out
}

// page reads refs, a page the sidecar ordered: brief, from the sidecar's own copy (no body
// to read, no summary to compute); else whole, from the app's database.
func (db *DB) page(ctx context.Context, refs []docRef, brief bool) ([]Listed, error) {
	if brief {
		return db.side.briefs(ctx, refs)
	}
	ps, err := db.promptsByRowid(ctx, refs)
	return listedOf(ps, false), err
}

// briefColumns are what briefScanner reads from the sidecar's docs.
const briefColumns = "rid, id, title, summary, bytes, folder_id, icon, color, url, created, updated"

// briefScanner reads briefColumns row after row into the same destinations, as promptScanner
// does for the app's database.
type briefScanner struct {
	rowid int64
	l     Listed
	storedFields
	dest []any
}

func newBriefScanner() *briefScanner {
	s := &briefScanner{}
	s.dest = append([]any{&s.rowid, &s.l.ID, &s.l.Title, &s.l.Summary, &s.l.ContentBytes}, s.storedFields.dest()...)
	return s
}

func (s *briefScanner) scan(rows *sql.Rows) (Listed, error) {
	if err := rows.Scan(s.dest...); err != nil {
		return Listed{}, err
	}
	l := s.l
	s.fill(&l.Prompt)
	return l, nil
}

// briefs reads refs from the sidecar's docs, in refs' order.
func (s *sidecar) briefs(ctx context.Context, refs []docRef) ([]Listed, error) {
	rd := s.reader()
	if rd == nil {
		return nil, errors.New("dbread: search index closed")
	}
	sc := newBriefScanner()
	return byRowid(ctx, rd, "SELECT "+briefColumns+" FROM docs", refs, func(rows *sql.Rows) (int64, string, Listed, error) {
		l, err := sc.scan(rows)
		return sc.rowid, l.ID, l, err
	})
}
