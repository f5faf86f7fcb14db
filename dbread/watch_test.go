package dbread

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestChangesOnInsert: a prompt the app inserts is signalled on Changes and moves Version.
func TestChangesOnInsert(t *testing.T) {
	lib := librarytest.New(t, 20)
	db := open(t, lib.DB, Options{})
	ch, unsubscribe := db.Changes()
	defer unsubscribe()
	v0 := db.Version()

	lib.Exec(t, "INSERT INTO prompts (id, title, body, created_at, updated_at) VALUES ('B0000000-0000-4000-8000-000000000001', 'New', 'Fresh body', 1700000000, 1700000000)")
	waitSignal(t, ch, "Changes after the app inserted a prompt")
	if v := db.Version(); v <= v0 {
		t.Errorf("Version after a change = %d, want more than %d", v, v0)
	}
	if _, err := db.Prompt(context.Background(), "b0000000-0000-4000-8000-000000000001"); err != nil {
		t.Errorf("Prompt(new) = %v", err)
	}
}

// TestChangesCoalesce: a subscriber that does not read holds one pending signal, and none after
// unsubscribing.
func TestChangesCoalesce(t *testing.T) {
	lib := librarytest.New(t, 5)
	db := open(t, lib.DB, Options{})
	a, unsubA := db.Changes()
	b, unsubB := db.Changes()
	defer unsubB()
	unsubA()
	v0 := db.Version()
	db.changed()
	db.changed()
	if got := len(b); got != 1 {
		t.Errorf("pending signals after two changes = %d, want 1 (coalesced)", got)
	}
	if got := len(a); got != 0 {
		t.Errorf("unsubscribed channel got %d signals, want 0", got)
	}
	if got := db.Version(); got != v0+2 {
		t.Errorf("Version = %d, want %d", got, v0+2)
	}
}

// TestFileReplaced: a library file renamed over the database is detected, every connection is
// reopened, and reads (lists, gets, search) see the new file's rows.
func TestFileReplaced(t *testing.T) {
	lib := librarytest.New(t, 20)
	db := openReady(t, lib.DB)
	ctx := context.Background()

	next := librarytest.FromLibrary(t, smallLibrary())
	for _, w := range []*librarytest.Library{lib, next} {
		// Empty each WAL: the old -wal and -shm stay beside the new file (SQLite keys them by
		// name), and must not hold frames of the old database.
		w.Exec(t, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if err := next.Writer.Close(); err != nil {
		t.Fatal(err)
	}
	ch, unsubscribe := db.Changes()
	defer unsubscribe()
	if err := os.Rename(next.DB, lib.DB); err != nil {
		t.Fatal(err)
	}
	waitSignal(t, ch, "Changes after the file was replaced")

	got, total, err := db.ListPrompts(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := newestFirst(next.Data.Prompts, func(p promptlib.Prompt) bool { return true })
	if total != len(want) || !slices.Equal(ids(got), want) {
		t.Errorf("after replacement ListPrompts = %v (total %d), want %v", ids(got), total, want)
	}
	if _, err := db.Prompt(ctx, next.Data.Prompts[0].ID); err != nil {
		t.Errorf("Prompt from the new file: %v", err)
	}
	found, _, err := db.Search(ctx, "injection", 10, 0)
	if err != nil || len(found) != 1 || found[0].ID != next.Data.Prompts[0].ID {
		t.Errorf("Search(injection) after replacement = %v, %v; want the new file's prompt", ids(found), err)
	}
}

// TestReplacedByGarbage: a file that is not a database renamed over the library fails reads with
// a clear error (never rows from the wrong file), and a good file renamed over it later is
// picked up.
func TestReplacedByGarbage(t *testing.T) {
	lib := librarytest.New(t, 20)
	db := open(t, lib.DB, Options{})
	ctx := context.Background()
	// An empty WAL: otherwise SQLite would read the old pages from it over the new file.
	lib.Exec(t, "PRAGMA wal_checkpoint(TRUNCATE)")
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not sqlite "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(junk, lib.DB); err != nil {
		t.Fatal(err)
	}
	if err := db.poll(ctx); err == nil {
		t.Errorf("poll after a garbage file replaced the library = nil, want an error")
	}
	if ps, _, err := db.ListPrompts(ctx, ListOptions{}); err == nil || !strings.Contains(err.Error(), "not a database") {
		t.Errorf("ListPrompts on a garbage file = %d prompts, %v; want a 'not a database' error", len(ps), err)
	}

	good := librarytest.FromLibrary(t, smallLibrary())
	good.Exec(t, "PRAGMA wal_checkpoint(TRUNCATE)")
	if err := good.Writer.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(good.DB, lib.DB); err != nil {
		t.Fatal(err)
	}
	if err := db.poll(ctx); err != nil {
		t.Errorf("poll after a good file replaced the garbage = %v", err)
	}
	if _, total, err := db.ListPrompts(ctx, ListOptions{}); err != nil || total != len(good.Data.Prompts) {
		t.Errorf("ListPrompts after recovery = total %d, %v; want %d", total, err, len(good.Data.Prompts))
	}
}
