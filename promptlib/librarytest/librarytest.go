// Package librarytest makes real Prompteka-schema libraries for tests: a SQLite database in WAL
// mode in a temporary directory, filled with promptlib.Sample, and a second read-write
// connection that plays the app writing while the code under test reads.
package librarytest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the real SQLite, never a fake

	"github.com/mcpctl/mcpctl/promptlib"
)

// Library is a library on disk with an open writer connection (closed by t.Cleanup).
type Library struct {
	Dir    string // the library directory
	DB     string // prompts.db
	Queue  string // import-queue/, mode 0700
	Writer *sql.DB
	Data   promptlib.Library // what was written
}

// New writes a library of n sample prompts (promptlib.Sample with seed 1) in a new temp dir.
func New(tb testing.TB, n int) *Library {
	tb.Helper()
	return FromLibrary(tb, promptlib.Sample(n, 1))
}

// FromLibrary writes lib into a new library in a temp dir.
func FromLibrary(tb testing.TB, lib promptlib.Library) *Library {
	tb.Helper()
	dir := tb.TempDir()
	l := &Library{Dir: dir, DB: filepath.Join(dir, "prompts.db"), Queue: filepath.Join(dir, "import-queue"), Data: lib}
	if err := os.Mkdir(l.Queue, 0o700); err != nil {
		tb.Fatal(err)
	}
	db, err := OpenWriter(l.DB)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := promptlib.Create(context.Background(), db, lib); err != nil {
		tb.Fatal(err)
	}
	l.Writer = db
	return l
}

// OpenWriter opens path read-write in WAL mode, as the app does. One connection, so that
// PRAGMAs and transactions behave as in a single writer process.
func OpenWriter(path string) (*sql.DB, error) {
	dsn := (&url.URL{Scheme: "file", Path: path,
		RawQuery: "_busy_timeout=5000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"}).String()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Exec runs a statement on the writer, failing the test on error.
func (l *Library) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if _, err := l.Writer.Exec(query, args...); err != nil {
		tb.Fatalf("librarytest: %s: %v", query, err)
	}
}
