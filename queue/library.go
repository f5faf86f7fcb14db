package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "github.com/mattn/go-sqlite3" // the processor and library creation write through SQLite

	"github.com/mcpctl/mcpctl/promptlib"
)

// File and directory names inside a library directory.
const (
	DBName     = "prompts.db"
	QueueName  = "import-queue"
	MarkerName = "mcpctl-library.json"
)

// Queue subdirectories the processor uses.
var subdirs = []string{"processing", "processed", "failed"}

// Marker is the content of MarkerName: its presence says mcpctl, not the app, processes the
// library's queue.
type Marker struct {
	Processor string    `json:"processor"` // always "mcpctl"
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"createdAt"`
}

// ErrLibraryExists is returned by CreateLibrary when dir already holds a database.
var ErrLibraryExists = errors.New("queue: a library already exists there")

// CreateLibrary makes a standalone library in dir: prompts.db in WAL mode with the Prompteka
// schema plus applied_ops, filled with lib; the queue directories with mode 0700; and the marker
// file. It refuses to touch a directory that already holds a prompts.db. The marker is written
// last, so a crash midway leaves no half library that claims to be ready.
func CreateLibrary(ctx context.Context, dir string, lib promptlib.Library) error {
	dbPath := filepath.Join(dir, DBName)
	if _, err := os.Lstat(dbPath); err == nil {
		return fmt.Errorf("queue: create library %s: %w", dir, ErrLibraryExists)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("queue: create library: %w", err)
	}
	q := filepath.Join(dir, QueueName)
	for _, d := range append([]string{q}, subdirs...) {
		if d != q {
			d = filepath.Join(q, d)
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("queue: create library: %w", err)
		}
	}
	db, err := OpenStore(dbPath)
	if err != nil {
		return err
	}
	if err := promptlib.Create(ctx, db, lib); err != nil {
		db.Close()
		return fmt.Errorf("queue: create library %s: %w", dir, err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("queue: create library: %w", err)
	}
	m, _ := json.MarshalIndent(Marker{Processor: "mcpctl", Version: 1, CreatedAt: time.Now().UTC()}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, MarkerName), append(m, '\n'), 0o600); err != nil {
		return fmt.Errorf("queue: create library: %w", err)
	}
	return nil
}

// IsStandalone reports whether dir carries the mcpctl marker, i.e. mcpctl processes its queue.
func IsStandalone(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, MarkerName))
	return err == nil
}

// OpenStore opens a library database read-write in WAL mode, as the app does: the processor's
// (and library creation's) connection. One connection, so transactions serialise in-process and
// BEGIN IMMEDIATE takes the write lock up front.
func OpenStore(path string) (*sql.DB, error) { return OpenStoreTimeout(path, DefaultBusyTimeout) }

// DefaultBusyTimeout is how long the processor waits for another writer's lock (the app's, or
// a second process's) before an operation fails with DATABASE_LOCKED.
const DefaultBusyTimeout = 5 * time.Second

// OpenStoreTimeout is OpenStore with the SQLite busy timeout busy (DefaultBusyTimeout when zero
// or less): a setting, like the reader's, so that tests of the locked library need not wait 5 s.
func OpenStoreTimeout(path string, busy time.Duration) (*sql.DB, error) {
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_txlock", "immediate")
	q.Set("_foreign_keys", "0")
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("queue: open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("queue: open store %s: %w", path, err)
	}
	return db, nil
}
