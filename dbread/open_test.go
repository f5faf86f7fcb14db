package dbread

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// waitLimit bounds every wait for something asynchronous; reaching it fails the test.
const waitLimit = 10 * time.Second

// open opens lib's database with a sidecar in a temp dir (unless opts says otherwise).
func open(tb testing.TB, path string, opts Options) *DB {
	tb.Helper()
	db, err := Open(context.Background(), path, opts)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

// openReady opens path with a sidecar and waits until the index is ready.
func openReady(tb testing.TB, path string) *DB {
	tb.Helper()
	db := open(tb, path, Options{CacheDir: tb.TempDir()})
	waitIndex(tb, db, IndexReady)
	return db
}

// waitIndex waits until SearchIndex reports want.
func waitIndex(tb testing.TB, db *DB, want string) {
	tb.Helper()
	limit := waitLimit
	if _, bench := tb.(*testing.B); bench {
		limit = 5 * time.Minute // a 100k build on a loaded machine
	}
	deadline := time.After(limit)
	for {
		next := db.side.attempt()
		state, err := db.SearchIndex()
		if state == want {
			return
		}
		select {
		case <-next:
		case <-deadline:
			tb.Fatalf("search index state = %q (%v), want %q", state, err, want)
		}
	}
}

// waitSignal waits for one value (or close) on ch.
func waitSignal(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(waitLimit):
		tb.Fatalf("no signal: %s", what)
	}
}

func dirNames(tb testing.TB, dir string) []string {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestReadOnlyDSN(t *testing.T) {
	dsn := readOnlyDSN("/lib dir/prompts?.db", 5*time.Second)
	for _, want := range []string{"file:///lib%20dir/prompts%3F.db?", "mode=ro", "_query_only=1", "_busy_timeout=5000"} {
		if !strings.Contains(dsn, want) {
			t.Errorf("readOnlyDSN = %q, want it to contain %q", dsn, want)
		}
	}
	if strings.Contains(dsn, "immutable") {
		t.Errorf("readOnlyDSN = %q: never immutable on a live database", dsn)
	}
}

// TestReaderCannotWrite runs writes through the reader's own connection: each must fail and
// leave no file behind.
func TestReaderCannotWrite(t *testing.T) {
	lib := librarytest.New(t, 20)
	db := open(t, lib.DB, Options{})
	out := t.TempDir()
	tests := []struct {
		name    string
		stmt    string
		created string // a file the statement would create
	}{
		{"insert", "INSERT INTO folders (id, name, parent_id, position, created_at, updated_at) VALUES ('x', 'x', NULL, 0, 0, 0)", ""},
		{"update", "UPDATE prompts SET title = 'x'", ""},
		{"create table", "CREATE TABLE evil (x)", ""},
		{"attach new file", "ATTACH DATABASE '" + filepath.Join(out, "attached.db") + "' AS evil", filepath.Join(out, "attached.db")},
		{"vacuum into", "VACUUM INTO '" + filepath.Join(out, "copy.db") + "'", filepath.Join(out, "copy.db")},
		{"journal mode", "PRAGMA journal_mode = DELETE", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.execRaw(context.Background(), tt.stmt)
			if tt.name == "journal mode" {
				// A pragma that returns the mode instead of failing must not have changed it.
				var mode string
				if qerr := lib.Writer.QueryRow("PRAGMA journal_mode").Scan(&mode); qerr != nil || mode != "wal" {
					t.Errorf("journal_mode after %q = %q (%v), want wal", tt.stmt, mode, qerr)
				}
				return
			}
			if err == nil {
				t.Errorf("%s through the reader succeeded, want an error", tt.stmt)
			}
			if tt.created != "" {
				if _, serr := os.Stat(tt.created); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("%s created %s (stat: %v)", tt.stmt, tt.created, serr)
				}
			}
		})
	}
	var n int
	if err := lib.Writer.QueryRow("SELECT count(*) FROM folders WHERE id = 'x'").Scan(&n); err != nil || n != 0 {
		t.Errorf("folders with id x = %d (%v), want 0", n, err)
	}
}

// TestReadsLeaveFileUntouched: every read leaves the database byte for byte as it was, and no
// file appears beside it but SQLite's own -wal and -shm.
func TestReadsLeaveFileUntouched(t *testing.T) {
	lib := librarytest.New(t, 200)
	if _, err := lib.Writer.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(lib.DB)
	if err != nil {
		t.Fatal(err)
	}
	namesBefore := dirNames(t, lib.Dir)

	db := openReady(t, lib.DB)
	ctx := context.Background()
	p := lib.Data.Prompts[3]
	if _, err := db.Prompt(ctx, strings.ToLower(p.ID)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ListPrompts(ctx, ListOptions{Limit: 50}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Search(ctx, "review code", 10, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Folders(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AllPrompts(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	after, err := os.ReadFile(lib.DB)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("database file changed by reads (%d bytes before, %d after)", len(before), len(after))
	}
	for _, name := range dirNames(t, lib.Dir) {
		if !slices.Contains(namesBefore, name) && name != "prompts.db-wal" && name != "prompts.db-shm" {
			t.Errorf("reads created %s beside the database", name)
		}
	}
}

func TestOpenMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts.db")
	_, err := Open(context.Background(), path, Options{})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Open(missing) = %v, want ErrNotFound", err)
	}
	if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("Open(missing) created the file (stat: %v)", serr)
	}
}

func TestClosed(t *testing.T) {
	lib := librarytest.New(t, 5)
	db, err := Open(context.Background(), lib.DB, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ch, unsubscribe := db.Changes()
	defer unsubscribe()
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	db.changed() // late signals after Close go nowhere, and do not panic
	select {
	case <-ch:
		t.Errorf("Changes signalled after Close")
	default:
	}
	ctx := context.Background()
	checks := map[string]error{}
	_, checks["Prompt"] = db.Prompt(ctx, lib.Data.Prompts[0].ID)
	_, _, checks["ListPrompts"] = db.ListPrompts(ctx, ListOptions{})
	_, _, checks["Search"] = db.Search(ctx, "review", 10, 0)
	_, _, checks["Search without words"] = db.Search(ctx, "!!", 10, 0)
	_, checks["Folders"] = db.Folders(ctx)
	_, _, checks["Counts"] = db.Counts(ctx)
	for name, err := range checks {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// execRaw runs a statement through a reader connection: the test hook that proves the
// connection cannot write.
func (db *DB) execRaw(ctx context.Context, query string) error {
	pool, release, err := db.acquire()
	if err != nil {
		return err
	}
	defer release()
	_, err = pool.ExecContext(ctx, query)
	return err
}
