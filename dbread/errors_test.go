package dbread

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

func TestTranslate(t *testing.T) {
	tests := []struct {
		name string
		in   error
		want error // sentinel, or nil for "no sentinel"
		text string
	}{
		{"no rows", sql.ErrNoRows, ErrNotFound, "not found"},
		{"busy", sqlite3.Error{Code: sqlite3.ErrBusy}, ErrLocked, "locked"},
		{"locked", sqlite3.Error{Code: sqlite3.ErrLocked}, ErrLocked, "locked"},
		{"wrapped busy", fmt.Errorf("query: %w", sqlite3.Error{Code: sqlite3.ErrBusy}), ErrLocked, "locked"},
		{"conn done", sql.ErrConnDone, ErrClosed, "closed"},
		{"canceled", context.Canceled, context.Canceled, "canceled"},
		{"other driver error", sqlite3.Error{Code: sqlite3.ErrCorrupt}, nil, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := translate(tt.in)
			if tt.want != nil && !errors.Is(got, tt.want) {
				t.Errorf("translate(%v) = %v, want %v", tt.in, got, tt.want)
			}
			if !strings.Contains(got.Error(), tt.text) {
				t.Errorf("translate(%v) = %q, want it to mention %q", tt.in, got, tt.text)
			}
			if se := (sqlite3.Error{}); errors.As(got, &se) {
				t.Errorf("translate(%v) = %v still carries the driver's error type", tt.in, got)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	err := (&DB{path: "/lib/prompts.db"}).wrap("get prompt", sql.ErrNoRows)
	if got, want := err.Error(), "dbread: get prompt /lib/prompts.db: dbread: not found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Op != "get prompt" || e.Path != "/lib/prompts.db" {
		t.Errorf("errors.As(*Error) = %+v, want Op and Path set", e)
	}
}

// TestLocked: the app holds an exclusive lock; a read waits the busy timeout, then fails with
// ErrLocked.
func TestLocked(t *testing.T) {
	lib := librarytest.New(t, 10)
	// In WAL mode readers never wait for a writer; an exclusive lock exists in rollback-journal
	// mode (or WAL with locking_mode=EXCLUSIVE), which is what an app doing maintenance holds.
	lib.Exec(t, "PRAGMA journal_mode = DELETE")
	db := open(t, lib.DB, Options{BusyTimeout: 50 * time.Millisecond})

	lib.Exec(t, "PRAGMA locking_mode = EXCLUSIVE")
	lib.Exec(t, "UPDATE prompts SET updated_at = updated_at + 1 WHERE rowid = 1") // takes and keeps the lock
	t.Cleanup(func() {
		lib.Exec(t, "PRAGMA locking_mode = NORMAL")
		lib.Exec(t, "SELECT count(*) FROM prompts") // releases the lock
	})

	ctx := context.Background()
	_, err := db.Prompt(ctx, lib.Data.Prompts[0].ID)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Prompt while locked = %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), "locked by the app") {
		t.Errorf("error %q does not say the app holds the lock", err)
	}
	_, _, err = db.ListPrompts(ctx, ListOptions{})
	if !errors.Is(err, ErrLocked) {
		t.Errorf("ListPrompts while locked = %v, want ErrLocked", err)
	}
	_, _, err = db.Search(ctx, "review", 10, 0)
	if !errors.Is(err, ErrLocked) {
		t.Errorf("Search while locked = %v, want ErrLocked", err)
	}
}
