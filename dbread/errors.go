package dbread

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// Sentinel errors; driver errors are translated to these at the package edge, so callers test
// with errors.Is and never see the SQLite driver's types.
var (
	ErrNotFound = errors.New("dbread: not found")
	ErrLocked   = errors.New("dbread: library is locked by the app")
	ErrSchema   = errors.New("dbread: library schema is not compatible")
	ErrClosed   = errors.New("dbread: closed")
	// ErrDamaged means SQLite found the library file malformed, or not a database at all.
	ErrDamaged = errors.New("dbread: the library file is damaged")
	// ErrNoFTS5 means this binary's SQLite has no full-text search: it was built without the
	// sqlite_fts5 tag. Search then scans the library.
	ErrNoFTS5 = errors.New("dbread: this mcpctl was built without SQLite's full-text search (FTS5), so search scans the library; rebuild it with 'go build -tags sqlite_fts5' (make build does)")
)

// Error carries the operation and path with a cause (one of the sentinels where it applies).
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string { return "dbread: " + e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// causeError is a sentinel with the words that explain it ("no such column: title"), so that
// errors.Is matches the sentinel while the message still says what happened.
type causeError struct {
	kind   error
	detail string
}

func (e *causeError) Error() string { return e.kind.Error() + ": " + e.detail }
func (e *causeError) Unwrap() error { return e.kind }

// Detail is what SQLite said, without the package's words.
func (e *causeError) Detail() string { return e.detail }

// because returns kind explained by detail.
func because(kind error, detail string) error { return &causeError{kind: kind, detail: detail} }

// wrap translates err and names the operation and the library path. An *Error passes through
// unchanged so that an inner operation's name is kept.
func (db *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if e := (*Error)(nil); errors.As(err, &e) {
		return err
	}
	t := translate(err)
	if errors.Is(t, ErrDamaged) {
		db.damaged.Store(true) // Check looks closer from now on
	}
	return &Error{Op: op, Path: db.path, Err: t}
}

// translate maps database/sql and SQLite errors to the package's sentinels. A driver error that
// has no sentinel keeps its message but not its type.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, ErrNotFound), errors.Is(err, ErrLocked), errors.Is(err, ErrSchema), errors.Is(err, ErrClosed), errors.Is(err, ErrDamaged):
		return err
	case errors.Is(err, sql.ErrConnDone), err.Error() == "sql: database is closed":
		return ErrClosed
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		msg := se.Error()
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return because(ErrLocked, msg)
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return because(ErrDamaged, msg)
		case sqlite3.ErrError:
			if isSchemaMessage(msg) {
				return because(ErrSchema, msg)
			}
		}
		return errors.New(msg)
	}
	return err
}

// isSchemaMessage reports whether SQLite's message says a table or column the reader names is
// gone: the app changed its schema under us.
func isSchemaMessage(msg string) bool {
	return strings.HasPrefix(msg, "no such table") || strings.HasPrefix(msg, "no such column") ||
		strings.Contains(msg, "has no column named")
}
