// Package dbread reads the prompt library's SQLite database without ever writing it: a read-only
// connection that cannot create, attach or vacuum into files, a schema check by column, a search
// sidecar index kept beside (never inside) the app's database, and change detection.
//
// Every call is a short autocommit read: no read transaction is ever held open between calls,
// so the app's checkpoints are never starved.
package dbread

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Options configure Open.
type Options struct {
	// CacheDir holds the search sidecar ($XDG_CACHE_HOME/mcpctl); "" means no sidecar: search
	// answers through the LIKE scan and lists through direct queries.
	CacheDir string
	Logger   *slog.Logger
	// BusyTimeout is how long a read waits for a lock the app holds before failing with
	// ErrLocked; 0 means 5 s.
	BusyTimeout time.Duration

	// syncWait bounds how long a Search or ListPrompts call waits for the sidecar to catch up
	// with a change before answering from the app's database directly; 0 means defaultSyncWait.
	syncWait time.Duration
	// sideBusy is how long the sidecar waits for another server's lock on it; 0 means
	// defaultBusyTimeout. sideRetry is the first wait before a failed open or sync of the
	// sidecar is tried again; 0 means defaultSideRetry.
	sideBusy, sideRetry time.Duration
}

const (
	defaultBusyTimeout = 5 * time.Second
	defaultSyncWait    = 500 * time.Millisecond
	defaultSideRetry   = 5 * time.Second
	// maxSideRetry bounds the wait between attempts to open a sidecar that keeps failing for a
	// reason that may pass (a cache directory made unwritable): a warning every 5 minutes.
	maxSideRetry = 5 * time.Minute
	// maxConns bounds the read connections to the app's database, the pinned one included:
	// each holds a page cache, and the server must stay small.
	maxConns = 4
)

// readOnlyDriver is go-sqlite3 with ATTACH disabled on every connection. Attaching is the one
// way a read-only connection could still create or write a file (ATTACH of a new name, and
// VACUUM INTO, which attaches internally).
const readOnlyDriver = "sqlite3_dbread_ro"

var registerOnce sync.Once

func registerDriver() {
	registerOnce.Do(func() {
		sql.Register(readOnlyDriver, &sqlite3.SQLiteDriver{
			ConnectHook: func(c *sqlite3.SQLiteConn) error {
				c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
				if got := c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, -1); got != 0 {
					return fmt.Errorf("dbread: cannot disable ATTACH (limit is %d)", got)
				}
				return nil
			},
		})
	})
}

// stmtCacheSize is how many prepared statements each connection keeps.
const stmtCacheSize = "16"

// readOnlyDSN is the URI that opens path read-only. The "file:" scheme matters: a plain path
// with mode=ro is silently opened read-write by the driver. Never immutable=1: the app writes
// this file while we read it.
func readOnlyDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	// 1 MB of page cache per connection (SQLite's default is 2 MB): reads here are point
	// lookups and short pages, and the server must stay small.
	q.Set("_cache_size", "-1024")
	// The same few queries run on every call: keeping them prepared saves SQLite's parse and plan
	// (a quarter of a get_prompt's time in the library).
	q.Set("_stmt_cache_size", stmtCacheSize)
	// database/sql already serialises every call on a connection (and sqlite3_interrupt, its one
	// call from another goroutine, is safe in any mode), so SQLite's own per-connection mutex,
	// taken on every column read, is pure cost: a tenth of reading a page of 100 prompts.
	q.Set("_mutex", "no")
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// DB is an open library. Safe for concurrent use.
type DB struct {
	path string // absolute
	opts Options
	log  *slog.Logger

	// mu guards lib and closed. A read holds mu.RLock for the length of one short query, so
	// that a reopen (mu.Lock) never closes a pool under a running query.
	mu     sync.RWMutex
	lib    *library
	closed bool

	// pollMu serialises poll: the pinned connection, the file identity and reopening. Lock
	// order: pollMu before mu.
	pollMu     sync.Mutex
	badIdent   fileIdent // a replacement that failed to open; not retried on every poll
	schemaGood bool      // the last schema check passed (for logging transitions only)

	version atomic.Uint64
	subsMu  sync.Mutex
	subs    map[*subscriber]struct{}

	// sums is the last fingerprint (bucketSums), read at Version sumsAt of the file sumsOf.
	sumsMu sync.Mutex
	sums   map[int64]BucketSum
	sumsAt uint64
	sumsOf *library

	side   *sidecar
	cancel context.CancelFunc
	// fallbacks counts answers not served by the sidecar (LIKE scans, direct lists): tests use it
	// to tell which path answered.
	fallbacks atomic.Int64
	// damaged is set when a read found the library file damaged (ErrDamaged): Check then runs
	// SQLite's quick_check, which is too slow to run on every health check (0.9 s at 100k
	// prompts), and clears it when the file checks out (replaced or repaired).
	damaged atomic.Bool
	wg      sync.WaitGroup
}

// library is one opened database file: a pool of read connections and one pinned connection
// whose PRAGMA data_version tells whether another connection committed.
type library struct {
	pool        *sql.DB
	pin         *sql.Conn
	ident       fileIdent
	dataVersion int64
}

func (l *library) close() error {
	err := l.pin.Close()
	return errors.Join(err, l.pool.Close())
}

// fileIdent is a file's device and inode: a different identity at the same path means the file
// was replaced (by rename) and every connection must be reopened.
type fileIdent struct{ dev, ino uint64 }

func statIdent(path string) (fileIdent, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileIdent{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileIdent{}, fmt.Errorf("dbread: no device and inode for %s", path)
	}
	return fileIdent{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil //nolint:unconvert // types differ by platform
}

// Open opens the library database at path read-only and checks its schema (ErrSchema names a
// missing table or column; ErrNotFound if there is no file, which Open never creates). Heavy
// work (the sidecar build) happens in the background; Open returns quickly at any library size.
// The DB owns two goroutines, the change watcher and the sidecar indexer, until Close.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = defaultBusyTimeout
	}
	if opts.sideBusy <= 0 {
		opts.sideBusy = defaultBusyTimeout
	}
	if opts.sideRetry <= 0 {
		opts.sideRetry = defaultSideRetry
	}
	if opts.syncWait <= 0 {
		opts.syncWait = defaultSyncWait
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{Op: "open", Path: path, Err: err}
	}
	db := &DB{path: abs, opts: opts, log: opts.Logger.With("component", "dbread"), subs: map[*subscriber]struct{}{}}
	if _, err := os.Stat(abs); err != nil {
		// mode=ro never creates the file; say plainly that it is missing.
		if errors.Is(err, os.ErrNotExist) {
			return nil, db.wrap("open", because(ErrNotFound, "no database file"))
		}
		return nil, db.wrap("open", err)
	}
	registerDriver()
	lib, err := db.openLibrary(ctx)
	if err != nil {
		return nil, db.wrap("open", err)
	}
	if err := checkSchema(ctx, lib.pin); err != nil {
		lib.close() //nolint:errcheck // the schema error is the one to report
		return nil, db.wrap("open", err)
	}
	db.lib = lib
	db.schemaGood = true

	wctx, cancel := context.WithCancel(context.Background())
	db.cancel = cancel
	db.side = newSidecar(db)
	w := db.newWatcher()
	db.wg.Add(2)
	go func() { defer db.wg.Done(); db.watch(wctx, w) }()
	go func() { defer db.wg.Done(); db.side.run(wctx) }()
	return db, nil
}

// openLibrary opens a pool on the file now at db.path and pins one connection.
func (db *DB) openLibrary(ctx context.Context) (*library, error) {
	ident, err := statIdent(db.path)
	if err != nil {
		return nil, err
	}
	pool, err := sql.Open(readOnlyDriver, readOnlyDSN(db.path, db.opts.BusyTimeout))
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(maxConns)
	pool.SetMaxIdleConns(maxConns)
	pool.SetConnMaxIdleTime(time.Minute)
	pin, err := pool.Conn(ctx)
	if err != nil {
		pool.Close()
		return nil, err
	}
	lib := &library{pool: pool, pin: pin, ident: ident}
	// Reading the schema table makes SQLite read the header: a file that is not a database
	// fails here, not at the first query.
	var tables int
	if err := pin.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		lib.close() //nolint:errcheck // the query error is the one to report
		return nil, err
	}
	if err := pin.QueryRowContext(ctx, "PRAGMA data_version").Scan(&lib.dataVersion); err != nil {
		lib.close() //nolint:errcheck // the query error is the one to report
		return nil, err
	}
	return lib, nil
}

// Close stops the watcher and sidecar work and closes every connection. Channels returned by
// Changes receive nothing more; they are not closed, so that a loop selecting on one does not
// spin (stop it with its own context). Close is idempotent.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.closed = true
	db.mu.Unlock()

	db.cancel()
	db.wg.Wait()

	db.subsMu.Lock()
	db.subs = nil
	db.subsMu.Unlock()

	db.pollMu.Lock()
	defer db.pollMu.Unlock()
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.wrap("close", errors.Join(db.side.close(), db.lib.close()))
}

// Path is the database file (absolute).
func (db *DB) Path() string { return db.path }

// acquire returns the current pool for one read; the caller calls release when its rows are
// closed.
func (db *DB) acquire() (pool *sql.DB, release func(), err error) {
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return nil, nil, ErrClosed
	}
	return db.lib.pool, db.mu.RUnlock, nil
}

func (db *DB) isClosed() bool {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.closed
}
