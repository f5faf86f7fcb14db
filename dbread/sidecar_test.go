package dbread

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

func sidecarFile(tb testing.TB, db *DB) string {
	tb.Helper()
	if db.side.path == "" {
		tb.Fatal("no sidecar path")
	}
	return db.side.path
}

func TestSidecarUnavailable(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	blocker := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(blocker, []byte("a file where the cache directory should be"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cacheDir string
		reason   string
	}{
		{"no cache directory", "", "no cache directory"},
		{"cache directory cannot be created", blocker, "cache directory"},
		{"cache directory below a file", filepath.Join(blocker, "mcpctl"), "cache directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := open(t, lib.DB, Options{CacheDir: tt.cacheDir})
			waitIndex(t, db, IndexUnavailable)
			_, err := db.SearchIndex()
			if err == nil || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("SearchIndex reason = %v, want it to mention %q", err, tt.reason)
			}
			got, total, err := db.Search(context.Background(), "audit injection", 10, 0)
			if err != nil || total != 1 || len(got) != 1 {
				t.Errorf("Search without index = %v (total %d, %v), want the one match", ids(got), total, err)
			}
		})
	}
}

// TestSidecarReadOnlyDir needs a user whom permissions stop (root writes anyway).
func TestSidecarReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions; TestSidecarUnavailable covers the failure")
	}
	lib := librarytest.FromLibrary(t, smallLibrary())
	cache := t.TempDir()
	if err := os.Chmod(cache, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(cache, 0o700) })
	db := open(t, lib.DB, Options{CacheDir: cache})
	waitIndex(t, db, IndexUnavailable)
	if _, _, err := db.Search(context.Background(), "audit", 10, 0); err != nil {
		t.Errorf("Search with a read-only cache = %v, want the LIKE scan's answer", err)
	}
}

// builtSidecar builds the index of the library at db in cache, closes it, and returns its file.
func builtSidecar(t *testing.T, db, cache string) string {
	t.Helper()
	first := open(t, db, Options{CacheDir: cache})
	waitIndex(t, first, IndexReady)
	path := sidecarFile(t, first)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSidecarCorrupt: a damaged sidecar file is rebuilt, never a failed search.
func TestSidecarCorrupt(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	cache := t.TempDir()
	path := builtSidecar(t, lib.DB, cache)
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	db := open(t, lib.DB, Options{CacheDir: cache})
	waitIndex(t, db, IndexReady)
	got, _, err := db.Search(context.Background(), "audit injection", 10, 0)
	if err != nil || len(got) != 1 {
		t.Errorf("Search after rebuilding a corrupt index = %v, %v; want one match", ids(got), err)
	}
}

// TestSidecarOfAnotherFormatIsRebuilt: an index written by an older mcpctl (here: docs without
// the listing's columns, format 3) is dropped and built again, and brief pages come from it.
func TestSidecarOfAnotherFormatIsRebuilt(t *testing.T) {
	lib := librarytest.New(t, 100)
	cache := t.TempDir()
	path := builtSidecar(t, lib.DB, cache)
	old, err := sql.Open("sqlite3", sidecarDSN(path, false, defaultBusyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`DROP TABLE docs;
CREATE TABLE docs (rid INTEGER PRIMARY KEY, id TEXT NOT NULL, folder TEXT NOT NULL, created REAL NOT NULL, sig INTEGER NOT NULL);
PRAGMA user_version = 3`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db := open(t, lib.DB, Options{CacheDir: cache})
	waitIndex(t, db, IndexReady)
	page, total, err := db.ListPrompts(context.Background(), ListOptions{Limit: 10, Brief: true})
	if err != nil || total != 100 || len(page) != 10 || page[0].Summary == "" {
		t.Fatalf("brief page after the upgrade: %d of %d, %v", len(page), total, err)
	}
	if n := db.fallbacks.Load(); n != 0 {
		t.Errorf("%d pages answered without the index", n)
	}
}

// TestSidecarReused: a second Open finds the index ready at once and brings it up to date with
// what changed while it was closed.
func TestSidecarReused(t *testing.T) {
	lib := librarytest.New(t, 100)
	cache := t.TempDir()
	first := open(t, lib.DB, Options{CacheDir: cache})
	waitIndex(t, first, IndexReady)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	lib.Exec(t, "INSERT INTO prompts (id, title, body, created_at, updated_at) VALUES ('D0000000-0000-4000-8000-000000000001', 'Narwhal', 'Tusk', 1700000000, 1700000000)")

	db := open(t, lib.DB, Options{CacheDir: cache})
	if state, _ := db.SearchIndex(); state == IndexUnavailable {
		t.Fatalf("SearchIndex after reopening = %s", state)
	}
	waitIndex(t, db, IndexReady)
	got, _, err := db.Search(context.Background(), "narwhal", 10, 0)
	if err != nil || len(got) != 1 {
		t.Errorf("Search(narwhal) after reopening = %v, %v; want the prompt added while closed", ids(got), err)
	}
}

// TestSearchTies: when many prompts score the same, order falls to newest first then id, across
// pages, also where a run of equal scores crosses the rows the index ranks first.
func TestSearchTies(t *testing.T) {
	lib := promptlib.Library{}
	for i := range 200 {
		lib.Prompts = append(lib.Prompts, promptlib.Prompt{
			ID:        fmt.Sprintf("E0000000-0000-4000-8000-%012d", i),
			Title:     "Same title",
			Content:   "Same body",
			CreatedAt: promptlib.FromUnix(float64(1700000000 + i%50)), // ties in created_at too
			UpdatedAt: promptlib.FromUnix(1700000000),
		})
	}
	l := librarytest.FromLibrary(t, lib)
	want := newestFirst(lib.Prompts, func(promptlib.Prompt) bool { return true })
	// Search breaks ties in created_at by id ascending (ListPrompts by id descending).
	byCreated := map[string]int64{}
	for _, p := range lib.Prompts {
		byCreated[p.ID] = p.CreatedAt.Unix()
	}
	slices.SortFunc(want, func(a, b string) int {
		if c := cmp.Compare(byCreated[b], byCreated[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	modes := map[string]*DB{"sidecar": openReady(t, l.DB), "like": open(t, l.DB, Options{})}
	for mode, db := range modes {
		for _, page := range []struct{ limit, offset int }{{10, 0}, {10, 20}, {50, 140}, {10, 195}} {
			got, total, err := db.Search(context.Background(), "same", page.limit, page.offset)
			if err != nil {
				t.Fatal(err)
			}
			w := want[page.offset:min(page.offset+page.limit, len(want))]
			if total != 200 || !slices.Equal(ids(got), w) {
				t.Errorf("%s: Search(same, %d, %d) = %v (total %d), want %v (total 200)", mode, page.limit, page.offset, ids(got), total, w)
			}
		}
	}
}

// fileSums reads path and its -wal and -shm (missing files read as "").
func fileSums(tb testing.TB, path string) map[string]string {
	tb.Helper()
	sums := map[string]string{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil && !os.IsNotExist(err) {
			tb.Fatal(err)
		}
		sums[suffix] = string(b)
	}
	return sums
}

// TestSidecarPlantedSymlink: a symlink at the index's (predictable) path, to an unrelated SQLite
// file or to the served prompts.db itself, is removed, never followed: the target (with its WAL)
// stays byte-identical, and search still works from a fresh index of ours.
func TestSidecarPlantedSymlink(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	other := librarytest.FromLibrary(t, smallLibrary())
	tests := []struct {
		name   string
		target string
	}{
		{"an unrelated SQLite file", other.DB},
		{"the served prompts.db", lib.DB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Keep a WAL beside the target, as a running app does, so a write through the link
			// that lands in the WAL is seen.
			w, err := librarytest.OpenWriter(tt.target)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.Exec("PRAGMA wal_autocheckpoint = 0"); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Exec("UPDATE prompts SET updated_at = updated_at"); err != nil {
				t.Fatal(err)
			}
			before := fileSums(t, tt.target)
			if before["-wal"] == "" {
				t.Fatal("fixture: target has no WAL")
			}
			cache := t.TempDir()
			abs, err := filepath.Abs(lib.DB)
			if err != nil {
				t.Fatal(err)
			}
			path := sidecarPath(cache, abs)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Symlink(tt.target+suffix, path+suffix); err != nil {
					t.Fatal(err)
				}
			}

			db := open(t, lib.DB, Options{CacheDir: cache})
			waitIndex(t, db, IndexReady)
			got, _, err := db.Search(context.Background(), "audit injection", 10, 0)
			if err != nil || len(got) != 1 {
				t.Errorf("Search = %v, %v; want one match", ids(got), err)
			}
			if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("index path after Open: %v, %v; want a regular file of ours", fi, err)
			}
			after := fileSums(t, tt.target)
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if before[suffix] != after[suffix] {
					t.Errorf("target%s changed through the planted link (%d bytes before, %d after)", suffix, len(before[suffix]), len(after[suffix]))
				}
			}
		})
	}
}

// TestSidecarForeignFile: a database without mcpctl's marker at the index's path is deleted and
// recreated, never altered through (its tables are not dropped in place); a hard link to
// another file is unlinked, the file itself untouched.
func TestSidecarForeignFile(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	abs, err := filepath.Abs(lib.DB)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, path string) (check func(t *testing.T))
	}{
		{"a foreign database", func(t *testing.T, path string) func(*testing.T) {
			src := librarytest.FromLibrary(t, smallLibrary())
			b, err := os.ReadFile(src.DB)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T) {
				var app int32
				w, err := librarytest.OpenWriter(path)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				if err := w.QueryRow("PRAGMA application_id").Scan(&app); err != nil || uint32(app) != sidecarAppID {
					t.Errorf("application_id = %#x, %v; want a fresh file of ours (%#x)", app, err, sidecarAppID)
				}
			}
		}},
		{"a hard link to the served database", func(t *testing.T, path string) func(*testing.T) {
			before := fileSums(t, lib.DB)
			if err := os.Link(lib.DB, path); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
			return func(t *testing.T) {
				if after := fileSums(t, lib.DB); after[""] != before[""] || after["-wal"] != before["-wal"] {
					t.Error("prompts.db changed through a hard link at the index path")
				}
				// What the index wrote may sit in a WAL named after the link, unseen in
				// prompts.db's bytes: the index must simply not be that file.
				a, errA := os.Stat(path)
				b, errB := os.Stat(lib.DB)
				if errA != nil || errB != nil || os.SameFile(a, b) {
					t.Errorf("index file is prompts.db itself (%v, %v)", errA, errB)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			path := sidecarPath(cache, abs)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			check := tt.plant(t, path)
			db, err := Open(context.Background(), lib.DB, Options{CacheDir: cache})
			if err != nil {
				t.Fatal(err)
			}
			waitIndex(t, db, IndexReady)
			if got, _, err := db.Search(context.Background(), "audit injection", 10, 0); err != nil || len(got) != 1 {
				t.Errorf("Search = %v, %v; want one match", ids(got), err)
			}
			// Closing checkpoints the index's WAL into its main file: a write through a link
			// shows only then.
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			check(t)
		})
	}
}

// TestSidecarCacheDirOthersCanWrite: a cache directory others can write (where anyone could plant
// a link) is refused with the reason; search answers by LIKE scan.
func TestSidecarCacheDirOthersCanWrite(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	for _, mode := range []os.FileMode{0o777, 0o770, 0o722} {
		t.Run(fmt.Sprintf("%#o", mode), func(t *testing.T) {
			cache := t.TempDir()
			search := filepath.Join(cache, "search")
			if err := os.Mkdir(search, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(search, mode); err != nil {
				t.Fatal(err)
			}
			db := open(t, lib.DB, Options{CacheDir: cache})
			waitIndex(t, db, IndexUnavailable)
			if _, err := db.SearchIndex(); err == nil || !strings.Contains(err.Error(), "others can write") {
				t.Errorf("SearchIndex reason = %v, want it to say others can write the directory", err)
			}
			if got, _, err := db.Search(context.Background(), "audit injection", 10, 0); err != nil || len(got) != 1 {
				t.Errorf("Search = %v, %v; want the LIKE scan's one match", ids(got), err)
			}
		})
	}
}

// A binary built without the sqlite_fts5 tag cannot make the index: that is said as such, with
// the fix, and the index file (fine for a build that has FTS5) is not taken for damaged.
func TestNoFTS5(t *testing.T) {
	if !noFTS5(errors.New("no such module: fts5")) || noFTS5(errors.New("file is not a database")) || noFTS5(nil) {
		t.Error("noFTS5 tells the missing module from other errors")
	}
	if got := fault(ErrNoFTS5).Error(); !strings.HasPrefix(got, "dbread: search index: this mcpctl was built without") ||
		!strings.Contains(got, "-tags sqlite_fts5") {
		t.Errorf("message %q", got)
	}
}

// attempt returns a channel closed after the next sync attempt or state change.
func (s *sidecar) attempt() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// lockSidecar holds the write lock of the sidecar file at path from another connection, as a
// second server building its index does, until the returned function is called.
func lockSidecar(t *testing.T, path string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", sidecarDSN(path, false, defaultBusyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// waitSynced waits until the sidecar has tried a sync at the library's version now, and, with
// ok, until one succeeded.
func waitSynced(t *testing.T, db *DB, ok bool) {
	t.Helper()
	v, err := db.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(waitLimit)
	for {
		next := db.side.attempt()
		db.side.mu.Lock()
		done := db.side.hasAttempted && db.side.attempted >= v && (!ok || db.side.hasSynced && db.side.synced >= v)
		db.side.mu.Unlock()
		if done {
			return
		}
		select {
		case <-next:
		case <-deadline:
			state, err := db.SearchIndex()
			t.Fatalf("no sync (succeeded: %v) at version %d within %s; index %s (%v)", ok, v, waitLimit, state, err)
		}
	}
}

// Another server holds the index's lock past the busy timeout (it is building a large library):
// the index is kept, not deleted and rebuilt under that server, searches answer from the
// library meanwhile, and the index is used once the lock is gone.
func TestSidecarLockedAtOpenIsKept(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	cache := t.TempDir()
	path := builtSidecar(t, lib.DB, cache)
	before := inode(t, path)
	release := lockSidecar(t, path)

	db := open(t, lib.DB, Options{CacheDir: cache, sideBusy: 20 * time.Millisecond, sideRetry: 20 * time.Millisecond})
	waitIndex(t, db, IndexUnavailable)
	if _, err := db.SearchIndex(); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("SearchIndex reason = %v, want the lock", err)
	}
	if got, total, err := db.Search(context.Background(), "audit injection", 10, 0); err != nil || total != 1 {
		t.Errorf("Search while the index is locked = %v (total %d, %v), want the one match", ids(got), total, err)
	}
	release()
	waitIndex(t, db, IndexReady)
	if after := inode(t, path); after != before {
		t.Errorf("the index file was replaced (inode %d, was %d): another server's index was deleted under it", after, before)
	}
}

// A sync that finds the index locked by another server tries again; it does not give the index
// up for the rest of the process.
func TestSidecarLockedAtSyncIsRetried(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	cache := t.TempDir()
	db := open(t, lib.DB, Options{CacheDir: cache, sideBusy: 20 * time.Millisecond, sideRetry: 20 * time.Millisecond})
	waitIndex(t, db, IndexReady)
	release := lockSidecar(t, sidecarFile(t, db))

	lib.Exec(t, "INSERT INTO prompts (id, title, body, created_at, updated_at) VALUES ('D0000000-0000-4000-8000-000000000001', 'Narwhal', 'Tusk', 1700000000, 1700000000)")
	waitSynced(t, db, false)
	if got, total, err := db.Search(context.Background(), "narwhal", 10, 0); err != nil || total != 1 {
		t.Errorf("Search while the index is locked = %v (total %d, %v), want the prompt just added", ids(got), total, err)
	}
	release()
	waitSynced(t, db, true)
	if state, err := db.SearchIndex(); state != IndexReady {
		t.Errorf("index %s (%v) after the lock is gone, want ready", state, err)
	}
}

// An error that says nothing about the index file passes: the file is kept and tried again, not
// deleted as damaged under another server that may be using it. I/O errors pass whether SQLite
// or the file system reports them.
func TestPassing(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{sqlite3.Error{Code: sqlite3.ErrBusy}, true},
		{sqlite3.Error{Code: sqlite3.ErrIoErr}, true},
		{sqlite3.Error{Code: sqlite3.ErrCorrupt}, false},
		{sqlite3.Error{Code: sqlite3.ErrNotADB}, false},
		{&os.PathError{Op: "open", Path: "search.db", Err: syscall.EMFILE}, true},
		{&os.PathError{Op: "write", Path: "search.db", Err: syscall.ENOSPC}, true},
		{&os.PathError{Op: "open", Path: "search.db", Err: syscall.EIO}, true},
		{&os.PathError{Op: "open", Path: "search.db", Err: syscall.ELOOP}, false},
		{errors.New("search.db does not carry mcpctl's marker"), false},
	} {
		if got := passing(c.err); got != c.want {
			t.Errorf("passing(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
