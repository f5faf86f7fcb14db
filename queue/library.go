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
func OpenStore(path string) (*sql.DB, error) {
	dsn := (&url.URL{Scheme: "file", Path: path,
		RawQuery: "_busy_timeout=5000&_journal_mode=WAL&_synchronous=FULL&_txlock=immediate&_foreign_keys=0"}).String()
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
