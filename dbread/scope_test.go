package dbread

import (
	"context"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// A project's scope keeps lists and searches to its folders, whether the sidecar or the app's
// database answers.
func TestScopeInFolders(t *testing.T) {
	lib := librarytest.New(t, 300)
	scope := []string{lib.Data.Folders[0].ID, lib.Data.Folders[1].ID}
	in := map[string]bool{scope[0]: true, scope[1]: true}
	want := 0
	for _, p := range lib.Data.Prompts {
		if p.FolderID != nil && in[*p.FolderID] {
			want++
		}
	}
	if want == 0 {
		t.Fatal("fixture has no prompts in the scope")
	}
	for name, db := range map[string]*DB{
		"sidecar": openReady(t, lib.DB),
		"direct":  open(t, lib.DB, Options{}),
	} {
		ctx := context.Background()
		ps, total, err := db.ListPrompts(ctx, ListOptions{InFolders: scope, Limit: 500})
		if err != nil {
			t.Fatalf("%s: list: %v", name, err)
		}
		if total != want || len(ps) != want {
			t.Errorf("%s: list in scope: total %d, %d prompts; want %d", name, total, len(ps), want)
		}
		for _, p := range ps {
			if p.FolderID == nil || !in[*p.FolderID] {
				t.Errorf("%s: list returned %s outside the scope", name, p.ID)
			}
		}
		ps, total, err = db.SearchIn(ctx, "review", SearchOptions{InFolders: scope, Limit: 500})
		if err != nil {
			t.Fatalf("%s: search: %v", name, err)
		}
		_, all, _ := db.Search(ctx, "review", 500, 0)
		if total == 0 || total >= all || len(ps) != total {
			t.Errorf("%s: search in scope: total %d (%d returned) of %d overall", name, total, len(ps), all)
		}
		for _, p := range ps {
			if p.FolderID == nil || !in[*p.FolderID] {
				t.Errorf("%s: search returned %s outside the scope", name, p.ID)
			}
		}
		if _, total, _ := db.ListPrompts(ctx, ListOptions{InFolders: []string{}}); total != 0 {
			t.Errorf("%s: an empty scope listed %d prompts", name, total)
		}
	}
}
