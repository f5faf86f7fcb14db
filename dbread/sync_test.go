package dbread

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestSidecarFollowsTheApp: what the app inserts, edits, moves and deletes is seen by the next
// Search and ListPrompts call, with no wait in the test.
func TestSidecarFollowsTheApp(t *testing.T) {
	lib := librarytest.New(t, 600) // more than one bucket of rowids
	db := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, db, IndexReady)
	ctx := context.Background()
	search := func(q string) []string {
		t.Helper()
		got, _, err := db.Search(ctx, q, 10, 0)
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		return ids(got)
	}
	const newID = "C0000000-0000-4000-8000-000000000001"

	lib.Exec(t, "INSERT INTO prompts (id, title, body, folder_id, created_at, updated_at) VALUES (?, 'Zebra crossing', 'Stripes everywhere', NULL, 1900000000, 1900000000)", newID)
	if got := search("zebra stripes"); !slices.Equal(got, []string{newID}) {
		t.Errorf("after insert Search(zebra stripes) = %v, want [%s]", got, newID)
	}
	page, total, err := db.ListPrompts(ctx, ListOptions{Limit: 1})
	if err != nil || total != 601 || len(page) != 1 || page[0].ID != newID {
		t.Errorf("after insert ListPrompts = %v (total %d, %v), want the new prompt first of 601", ids(page), total, err)
	}

	edited := lib.Data.Prompts[300].ID
	lib.Exec(t, "UPDATE prompts SET title = 'Quokka habits', updated_at = updated_at + 10 WHERE id = ?", edited)
	if got := search("quokka"); !slices.Equal(got, []string{edited}) {
		t.Errorf("after edit Search(quokka) = %v, want [%s]", got, edited)
	}

	folder := lib.Data.Folders[0].ID
	lib.Exec(t, "UPDATE prompts SET folder_id = ?, updated_at = updated_at + 10 WHERE id = ?", folder, newID)
	page, _, err = db.ListPrompts(ctx, ListOptions{FolderID: strings.ToLower(folder), Limit: 1})
	if err != nil || len(page) != 1 || page[0].ID != newID {
		t.Errorf("after move ListPrompts(folder) = %v (%v), want the moved prompt first", ids(page), err)
	}

	lib.Exec(t, "DELETE FROM prompts WHERE id = ?", newID)
	if got := search("zebra"); len(got) != 0 {
		t.Errorf("after delete Search(zebra) = %v, want none", got)
	}
	if _, total, _ := db.ListPrompts(ctx, ListOptions{}); total != 600 {
		t.Errorf("after delete ListPrompts total = %d, want 600", total)
	}
	if state, err := db.SearchIndex(); state != IndexReady {
		t.Errorf("SearchIndex = %s (%v), want ready", state, err)
	}
	if n := db.fallbacks.Load(); n != 0 {
		t.Errorf("%d calls answered without the sidecar, want 0 (it should catch up first)", n)
	}
}

// TestConcurrentReadsWhileAppWrites: readers, the watcher and the sidecar run while the app
// writes; no read fails, and the end state is seen by the next call.
func TestConcurrentReadsWhileAppWrites(t *testing.T) {
	lib := librarytest.New(t, 300)
	db := openReady(t, lib.DB)
	ctx := context.Background()
	const writes = 30
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range writes {
			if _, err := lib.Writer.Exec("INSERT INTO prompts (id, title, body, created_at, updated_at) VALUES (?, ?, 'Walrus body', ?, ?)",
				fmt.Sprintf("F0000000-0000-4000-8000-%012d", i), fmt.Sprintf("Walrus %d", i), 1800000000+i, 1800000000+i); err != nil {
				errs <- err
				return
			}
		}
	}()
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				var err error
				switch (r + i) % 4 {
				case 0:
					_, _, err = db.Search(ctx, "walrus body", 5, 0)
				case 1:
					_, _, err = db.ListPrompts(ctx, ListOptions{Limit: 10})
				case 2:
					_, err = db.Prompt(ctx, lib.Data.Prompts[i].ID)
				case 3:
					_, err = db.Folders(ctx)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("during concurrent use: %v", err)
	}
	got, total, err := db.Search(ctx, "walrus", 50, 0)
	if err != nil || total != writes || len(got) != writes {
		t.Errorf("Search(walrus) after the writes = %d (total %d, %v), want %d", len(got), total, err, writes)
	}
	page, _, err := db.ListPrompts(ctx, ListOptions{Limit: 1})
	if err != nil || len(page) != 1 || page[0].Title != fmt.Sprintf("Walrus %d", writes-1) {
		t.Errorf("newest after the writes = %v, %v; want Walrus %d", ids(page), err, writes-1)
	}
}

// TestSidecarSparseRowids: rowids far apart (and negative) take the grouped fingerprint and are
// indexed like any other.
func TestSidecarSparseRowids(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	lib.Exec(t, "INSERT INTO prompts (rowid, id, title, body, created_at, updated_at) VALUES (-5, 'S0000000-0000-4000-8000-000000000001', 'Lemur low', 'Below zero', 1900000001, 1900000001)")
	lib.Exec(t, "INSERT INTO prompts (rowid, id, title, body, created_at, updated_at) VALUES (1099511627776, 'S0000000-0000-4000-8000-000000000002', 'Lemur high', 'Far away', 1900000000, 1900000000)")
	db := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, db, IndexReady)
	ctx := context.Background()
	got, total, err := db.Search(ctx, "lemur", 10, 0)
	if err != nil || total != 2 || len(got) != 2 {
		t.Errorf("Search(lemur) = %v (total %d, %v), want both sparse prompts", ids(got), total, err)
	}
	page, total, err := db.ListPrompts(ctx, ListOptions{Limit: 2})
	want := []string{"S0000000-0000-4000-8000-000000000001", "S0000000-0000-4000-8000-000000000002"}
	if err != nil || total != 6 || !slices.Equal(ids(page), want) {
		t.Errorf("ListPrompts = %v (total %d, %v), want %v of 6", ids(page), total, err, want)
	}
	lib.Exec(t, "DELETE FROM prompts WHERE rowid = 1099511627776")
	if got, _, err := db.Search(ctx, "lemur", 10, 0); err != nil || len(got) != 1 {
		t.Errorf("Search(lemur) after a delete = %v, %v; want one", ids(got), err)
	}
	if n := db.fallbacks.Load(); n != 0 {
		t.Errorf("%d calls answered without the sidecar, want 0", n)
	}
}
