// Package dbread reads the prompt library's SQLite database without ever writing it: a read-only
// connection that cannot create, attach or vacuum into files, a schema check by column, a search
// sidecar index kept beside (never inside) the app's database, and change detection.
package dbread

// THIS FILE IS A STUB that fixes the exported API; the dbread owner replaces it with the real
// implementation split into files by concept (open.go, schema.go, prompts.go, folders.go,
// search.go, sidecar.go, watch.go, errors.go ...). Keep these exported names and signatures.

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Sentinel errors; driver errors are translated to these at the package edge.
var (
	ErrNotFound = errors.New("dbread: not found")
	ErrLocked   = errors.New("dbread: library is locked by the app")
	ErrSchema   = errors.New("dbread: library schema is not compatible")
	ErrClosed   = errors.New("dbread: closed")
)

// Error carries the operation and path with a cause (one of the sentinels where it applies).
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string { return "dbread: " + e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Options configure Open.
type Options struct {
	// CacheDir holds the search sidecar ($XDG_CACHE_HOME/mcpctl); "" means no sidecar: search
	// answers through the LIKE scan.
	CacheDir string
	Logger   *slog.Logger
}

// DB is an open library. Safe for concurrent use.
type DB struct{}

// Open opens the library database at path read-only and checks its schema. Heavy work (the
// sidecar build) happens in the background; Open returns quickly at any library size.
func Open(ctx context.Context, path string, opts Options) (*DB, error) { panic("stub") }

// Close stops the watcher and sidecar work and closes every connection.
func (db *DB) Close() error { panic("stub") }

// Path is the database file.
func (db *DB) Path() string { panic("stub") }

// FolderInfo is a folder with its place in the tree.
type FolderInfo struct {
	promptlib.Folder
	Path        string // names from the top, joined by " / "
	ChildCount  int
	PromptCount int
}

// Folders returns every folder in tree order (parents before children, siblings by position,
// then name).
func (db *DB) Folders(ctx context.Context) ([]FolderInfo, error) { panic("stub") }

// Folder returns one folder by id (either case). ErrNotFound if absent.
func (db *DB) Folder(ctx context.Context, id string) (promptlib.Folder, error) { panic("stub") }

// ListOptions select a page of prompts, newest first (created_at, then id).
type ListOptions struct {
	FolderID string // only prompts directly in this folder ("" = no folder filter)
	Root     bool   // only prompts at the top level (FolderID must be "")
	Limit    int
	Offset   int
}

// ListPrompts returns a page and the total number of prompts matching the filter.
func (db *DB) ListPrompts(ctx context.Context, opts ListOptions) ([]promptlib.Prompt, int, error) {
	panic("stub")
}

// Prompt returns one prompt by id (either case). ErrNotFound if absent.
func (db *DB) Prompt(ctx context.Context, id string) (promptlib.Prompt, error) { panic("stub") }

// Search returns prompts holding every word of query (plain text, never query syntax), ranked by
// relevance then newest, and the total number of matches.
func (db *DB) Search(ctx context.Context, query string, limit, offset int) ([]promptlib.Prompt, int, error) {
	panic("stub")
}

// AllPrompts returns every prompt with its content, for the prompt index and MCP prompts.
func (db *DB) AllPrompts(ctx context.Context) ([]promptlib.Prompt, error) { panic("stub") }

// Counts returns how many prompts and folders the library holds.
func (db *DB) Counts(ctx context.Context) (prompts, folders int, err error) { panic("stub") }

// SearchIndex reports the sidecar's state: "ready", "building" or "unavailable" (with the reason).
func (db *DB) SearchIndex() (state string, err error) { panic("stub") }

// Changes returns a channel that receives a value (coalesced) after each detected change of the
// library, debounced ~250 ms, and a function that unsubscribes. Caches key off Version.
func (db *DB) Changes() (<-chan struct{}, func()) { panic("stub") }

// Version increases with every detected change of the library.
func (db *DB) Version() uint64 { panic("stub") }
