package dbread

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestBriefPagesShowWhatWholePagesDo: a brief page, read from the sidecar's copy, is the page
// read whole from the app's database without its bodies, field for field and in the same order
// (NULL and empty strings, real, text and blob timestamps, equal creation times, stored and
// unknown colours), for every filter and for searches; also after the app edits rows behind the
// server's back, twice within a second, or without stamping updated_at beside an edit that does.
func TestBriefPagesShowWhatWholePagesDo(t *testing.T) {
	lib := librarytest.New(t, 600) // more than one bucket of rowids
	id := func(i int) string { return lib.Data.Prompts[i].ID }
	// Every stored shape a column can take that the listing shows.
	lib.Exec(t, "UPDATE prompts SET icon = NULL, color = NULL, url = NULL WHERE rowid % 3 = 0")
	lib.Exec(t, "UPDATE prompts SET icon = '', color = '', url = '', folder_id = '' WHERE rowid % 7 = 0")
	lib.Exec(t, "UPDATE prompts SET color = '#22C55E', icon = '🦀', url = 'https://example.com/x' WHERE rowid % 11 = 0")
	lib.Exec(t, "UPDATE prompts SET color = 'Purple' WHERE rowid % 13 = 0") // no stored colour: none shown
	lib.Exec(t, "UPDATE prompts SET folder_id = upper(folder_id) WHERE rowid % 17 = 0")
	lib.Exec(t, "UPDATE prompts SET created_at = created_at + 0.123456789, updated_at = updated_at + 0.9995 WHERE rowid % 5 = 0")
	lib.Exec(t, "UPDATE prompts SET created_at = 1800000000 WHERE rowid % 19 = 0") // equal times: ordered by id
	lib.Exec(t, "UPDATE prompts SET created_at = CAST('1700000000.25' AS BLOB) WHERE rowid % 23 = 0")
	lib.Exec(t, "UPDATE prompts SET created_at = ' 1600000000 ' WHERE rowid % 29 = 0")
	lib.Exec(t, "UPDATE prompts SET body = '' WHERE id = ?", id(1))
	lib.Exec(t, "UPDATE prompts SET body = '# Only a heading' WHERE id = ?", id(2))

	side := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, side, IndexReady)
	direct := open(t, lib.DB, Options{}) // no sidecar: every page from the app's database
	ctx := context.Background()
	var scope []string
	for _, f := range lib.Data.Folders[:len(lib.Data.Folders)/2] {
		scope = append(scope, f.ID)
	}

	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			name string
			opts ListOptions
		}{
			{"all", ListOptions{Limit: 1000}},
			{"the first page, kept in memory", ListOptions{Limit: headRows}},
			{"within the first page", ListOptions{Limit: 30, Offset: 40}},
			{"across the first page's end", ListOptions{Limit: 50, Offset: headRows - 20}},
			{"a page further on", ListOptions{Limit: 50, Offset: 275}},
			{"a folder", ListOptions{FolderID: strings.ToLower(lib.Data.Folders[0].ID), Limit: 1000}},
			{"the top level", ListOptions{Root: true, Limit: 1000}},
			{"a project's scope", ListOptions{InFolders: scope, Limit: 1000}},
		} {
			whole, wholeTotal, err := direct.ListPrompts(ctx, c.opts)
			if err != nil || len(whole) == 0 {
				t.Fatalf("%s, %s: whole page of %d, %v", when, c.name, len(whole), err)
			}
			for i := range whole {
				whole[i].Content = ""
			}
			before := side.fallbacks.Load()
			c.opts.Brief = true
			brief, total, err := side.ListPrompts(ctx, c.opts)
			if err != nil || total != wholeTotal {
				t.Fatalf("%s, %s: brief page total %d, %v; want %d", when, c.name, total, err, wholeTotal)
			}
			if side.fallbacks.Load() != before {
				t.Fatalf("%s, %s: the brief page was not read from the sidecar", when, c.name)
			}
			if !reflect.DeepEqual(brief, whole) {
				t.Errorf("%s, %s: brief and whole pages differ:\n%s", when, c.name, firstDiff(brief, whole))
			}
		}
		// A search's brief and whole pages, both ranked by the sidecar (a LIKE scan ranks
		// otherwise).
		for _, in := range [][]string{nil, scope} {
			before := side.fallbacks.Load()
			brief, _, err := side.SearchIn(ctx, "refactor", SearchOptions{InFolders: in, Limit: 1000, Brief: true})
			if err != nil || len(brief) == 0 {
				t.Fatalf("%s: search: %d results, %v", when, len(brief), err)
			}
			whole, _, err := side.SearchIn(ctx, "refactor", SearchOptions{InFolders: in, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if side.fallbacks.Load() != before {
				t.Fatalf("%s: a search was not answered by the sidecar", when)
			}
			for i := range whole {
				if whole[i].Content == "" && whole[i].ContentBytes != 0 {
					t.Fatalf("%s: a whole search result has no body", when)
				}
				whole[i].Content = ""
			}
			if !reflect.DeepEqual(brief, whole) {
				t.Errorf("%s, search (scoped %v): brief and whole pages differ:\n%s", when, in != nil, firstDiff(brief, whole))
			}
		}
	}
	check("at start")

	// The app edits rows, as it does: each edit stamps updated_at.
	lib.Exec(t, "UPDATE prompts SET color = '#ef4444', updated_at = 1900000000 WHERE id = ?", id(10))
	lib.Exec(t, "UPDATE prompts SET body = 'Refactor this.\n\nA new first paragraph.', updated_at = 1900000001 WHERE id = ?", id(20))
	lib.Exec(t, "UPDATE prompts SET icon = NULL, url = 'https://example.com/y', updated_at = 1900000002.5 WHERE id = ?", id(30))
	lib.Exec(t, "UPDATE prompts SET folder_id = NULL, title = 'Moved to the top', updated_at = 1900000003 WHERE id = ?", id(40))
	lib.Exec(t, "UPDATE prompts SET title = 'Among the newest', updated_at = 1900000004 WHERE rowid = 19") // on the first page
	check("after the app's edits")

	// A second edit within the second of the first leaves the bucket's sums as they were.
	lib.Exec(t, "UPDATE prompts SET title = 'Refactor twice', body = 'Second edit of the second.', updated_at = 1900000003 WHERE id = ?", id(40))
	check("after a second edit within the same second")

	// An edit that keeps updated_at, in a bucket another (stamped) edit changes.
	lib.Exec(t, "UPDATE prompts SET color = '#3b82f6', icon = '🐙', url = 'https://example.com/z' WHERE id = ?", id(101))
	lib.Exec(t, "UPDATE prompts SET title = 'Refactor the neighbour', updated_at = 1900000010 WHERE id = ?", id(100))
	check("after an unstamped edit beside a stamped one")

	// A deleted prompt whose rowid is used again.
	lib.Exec(t, "DELETE FROM prompts WHERE id = ?", id(50))
	lib.Exec(t, "INSERT INTO prompts (rowid, id, title, body, folder_id, created_at, updated_at) VALUES (51, 'C0000000-0000-4000-8000-000000000051', 'Refactor the newcomer', 'Took the rowid.', NULL, 1900000020, 1900000020)")
	check("after a rowid was used again")
}

// TestSidecarBuildsPastABadTimestamp: a timestamp no reader can parse (a created_at or an
// updated_at) fails the pages that show it, the same from the sidecar as from the app's
// database and without a fallback scan, but not the index, nor the pages and searches that do
// not show it, nor the walks over the library.
func TestSidecarBuildsPastABadTimestamp(t *testing.T) {
	lib := librarytest.New(t, 300)
	lib.Exec(t, "UPDATE prompts SET created_at = 'yesterday', title = 'Zebra crossing' WHERE id = ?", lib.Data.Prompts[7].ID)
	lib.Exec(t, "UPDATE prompts SET updated_at = 'tomorrow', title = 'Zebra stripes' WHERE id = ?", lib.Data.Prompts[8].ID)
	side := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, side, IndexReady)
	direct := open(t, lib.DB, Options{})
	ctx := context.Background()

	// Text sorts above every number, so the row with the text created_at leads the order.
	for name, db := range map[string]*DB{"sidecar": side, "app": direct} {
		before := db.fallbacks.Load()
		if _, _, err := db.ListPrompts(ctx, ListOptions{Limit: 5, Brief: true}); err == nil || !strings.Contains(err.Error(), "yesterday") {
			t.Errorf("%s: the page with the bad timestamp: %v, want an error naming it", name, err)
		}
		if name == "sidecar" && db.fallbacks.Load() != before {
			t.Error("the page with the bad timestamp was read again from the app's database")
		}
		page, _, err := db.ListPrompts(ctx, ListOptions{Limit: 5, Offset: 1, Brief: true})
		if err != nil || len(page) != 5 {
			t.Errorf("%s: the next page: %d prompts, %v", name, len(page), err)
		}
	}
	// The walks over the whole library (the server's view, the gate) read every prompt, the
	// unreadable times as zero.
	walked := 0
	if err := side.EachPromptRow(ctx, func(_ int64, p promptlib.Prompt) error {
		walked++
		if strings.HasPrefix(p.Title, "Zebra") != (p.CreatedAt.IsZero() || p.UpdatedAt.IsZero()) {
			t.Errorf("walk: %q created %v updated %v", p.Title, p.CreatedAt, p.UpdatedAt)
		}
		return nil
	}); err != nil || walked != 300 {
		t.Errorf("a walk over the library read %d of 300 prompts: %v", walked, err)
	}
	if err := side.EachPromptInBucket(ctx, 0, func(int64, promptlib.Prompt) error { return nil }); err != nil {
		t.Errorf("a walk over the bucket of the bad rows: %v", err)
	}
	before := side.fallbacks.Load()
	if _, _, err := side.SearchIn(ctx, "zebra", SearchOptions{Limit: 5, Brief: true}); err == nil || !strings.Contains(err.Error(), "not Unix seconds") {
		t.Errorf("a search that finds the bad rows: %v, want the timestamp's error", err)
	}
	if got, _, err := side.SearchIn(ctx, "refactor", SearchOptions{Limit: 5, Brief: true}); err != nil || len(got) == 0 {
		t.Errorf("a search that does not find the bad rows: %d results, %v", len(got), err)
	}
	if side.fallbacks.Load() != before {
		t.Error("a search was answered by a scan of the app's database")
	}
}

// TestSidecarWritesOnlyWhatChanged: a commit to the library that changes no prompt (the app
// renames a folder) is followed without writing to the sidecar; an edit of a prompt writes it.
func TestSidecarWritesOnlyWhatChanged(t *testing.T) {
	lib := librarytest.New(t, 600)
	side := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, side, IndexReady)
	ctx := context.Background()
	// Its own connection: data_version moves when another connection commits to the file.
	watch, err := sql.Open("sqlite3", sidecarDSN(sidecarFile(t, side), true, defaultBusyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	watch.SetMaxOpenConns(1)
	version := func() int64 {
		t.Helper()
		var v int64
		if err := watch.QueryRow("PRAGMA data_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	caughtUp := func() {
		t.Helper()
		if ok, err := side.side.current(ctx); !ok || err != nil {
			t.Fatalf("the sidecar did not catch up: %v", err)
		}
	}
	caughtUp()
	v0 := version()
	lib.Exec(t, "UPDATE folders SET name = name || ' (old)' WHERE id = ?", lib.Data.Folders[0].ID)
	caughtUp()
	if v := version(); v != v0 {
		t.Errorf("a commit that changed no prompt was followed by a write to the sidecar")
	}
	lib.Exec(t, "UPDATE prompts SET title = 'Edited', updated_at = updated_at + 1 WHERE id = ?", lib.Data.Prompts[3].ID)
	caughtUp()
	if v := version(); v == v0 {
		t.Errorf("an edited prompt was not written to the sidecar")
	}
}

// firstDiff describes the first listing that differs between got and want.
func firstDiff(got, want []Listed) string {
	show := func(l Listed) string {
		b, _ := json.Marshal(l)
		return fmt.Sprintf("%s created %d updated %d", b, l.CreatedAt.UnixNano(), l.UpdatedAt.UnixNano())
	}
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("at %d:\n got %s\nwant %s", i, show(got[i]), show(want[i]))
		}
	}
	return fmt.Sprintf("%d listings, want %d", len(got), len(want))
}
