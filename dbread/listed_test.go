package dbread

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestBriefPagesShowWhatWholePagesDo: a brief page, read from the sidecar's copy, is the whole
// page without its bodies, field for field (NULL and empty strings, real and missing
// timestamps, odd colours), as the app's database shows it; also after the app edits rows
// behind the server's back, and for searches.
func TestBriefPagesShowWhatWholePagesDo(t *testing.T) {
	lib := librarytest.New(t, 600) // more than one bucket of rowids
	ids := func(i int) string { return lib.Data.Prompts[i].ID }
	// Every stored shape a column can take that the listing shows.
	lib.Exec(t, "UPDATE prompts SET icon = NULL, color = NULL, url = NULL WHERE rowid % 3 = 0")
	lib.Exec(t, "UPDATE prompts SET icon = '', color = '', url = '', folder_id = '' WHERE rowid % 7 = 0")
	lib.Exec(t, "UPDATE prompts SET color = 'Purple', icon = '🦀', url = 'https://example.com/x' WHERE rowid % 11 = 0")
	lib.Exec(t, "UPDATE prompts SET created_at = created_at + 0.123456789, updated_at = updated_at + 0.9995 WHERE rowid % 5 = 0")
	lib.Exec(t, "UPDATE prompts SET body = '' WHERE id = ?", ids(1))
	lib.Exec(t, "UPDATE prompts SET body = '# Only a heading' WHERE id = ?", ids(2))

	side := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, side, IndexReady)
	direct := open(t, lib.DB, Options{}) // no sidecar: every page from the app's database
	ctx := context.Background()

	check := func(when string) {
		t.Helper()
		type pageOf func(db *DB, brief bool) ([]Listed, int, error)
		for name, read := range map[string]pageOf{
			"list": func(db *DB, brief bool) ([]Listed, int, error) {
				return db.ListPrompts(ctx, ListOptions{Limit: 1000, Brief: brief})
			},
			"list a folder": func(db *DB, brief bool) ([]Listed, int, error) {
				return db.ListPrompts(ctx, ListOptions{FolderID: lib.Data.Folders[0].ID, Limit: 1000, Brief: brief})
			},
			"search": func(db *DB, brief bool) ([]Listed, int, error) {
				return db.SearchIn(ctx, "refactor", SearchOptions{Limit: 1000, Brief: brief})
			},
		} {
			whole, total, err := read(direct, false)
			if err != nil || len(whole) == 0 || len(whole) != total {
				t.Fatalf("%s, %s: whole page of %d (total %d), %v", when, name, len(whole), total, err)
			}
			for i := range whole {
				whole[i].Content = ""
			}
			before := side.fallbacks.Load()
			brief, total, err := read(side, true)
			if err != nil || total != len(whole) {
				t.Fatalf("%s, %s: brief page total %d, %v; want %d", when, name, total, err, len(whole))
			}
			if n := side.fallbacks.Load() - before; n != 0 {
				t.Fatalf("%s, %s: the brief page was not read from the sidecar", when, name)
			}
			if name == "search" {
				continue // ranked by bm25 in one, by LIKE in the other: compared by id below
			}
			if !reflect.DeepEqual(brief, whole) {
				t.Errorf("%s, %s: brief and whole pages differ:\n%s", when, name, firstDiff(brief, whole))
			}
		}
		// A search's brief and whole pages, both ranked by the sidecar.
		brief, _, err := side.SearchIn(ctx, "refactor", SearchOptions{Limit: 1000, Brief: true})
		if err != nil {
			t.Fatal(err)
		}
		whole, _, err := side.SearchIn(ctx, "refactor", SearchOptions{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for i := range whole {
			if whole[i].Content == "" && whole[i].ContentBytes != 0 {
				t.Fatalf("%s: a whole search result has no body", when)
			}
			whole[i].Content = ""
		}
		if !reflect.DeepEqual(brief, whole) {
			t.Errorf("%s, search: brief and whole pages differ:\n%s", when, firstDiff(brief, whole))
		}
	}
	check("at start")

	// The app edits a few rows, as it does: each edit stamps updated_at.
	lib.Exec(t, "UPDATE prompts SET color = 'green', updated_at = 1900000000 WHERE id = ?", ids(10))
	lib.Exec(t, "UPDATE prompts SET body = 'Refactor this.\n\nA new first paragraph.', updated_at = 1900000001 WHERE id = ?", ids(20))
	lib.Exec(t, "UPDATE prompts SET icon = NULL, url = 'https://example.com/y', updated_at = 1900000002.5 WHERE id = ?", ids(30))
	lib.Exec(t, "UPDATE prompts SET folder_id = NULL, title = 'Moved to the top', updated_at = 1900000003 WHERE id = ?", ids(40))
	check("after the app's edits")
}

// firstDiff describes the first listing that differs between got and want.
func firstDiff(got, want []Listed) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			return fmt.Sprintf("at %d:\n got %s\nwant %s", i, g, w)
		}
	}
	return fmt.Sprintf("%d listings, want %d", len(got), len(want))
}
