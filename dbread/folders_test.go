package dbread

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

func TestFolders(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	// The app may spell a parent_id in the other case.
	lib.Exec(t, "UPDATE folders SET parent_id = lower(parent_id) WHERE parent_id IS NOT NULL")
	db := open(t, lib.DB, Options{})
	got, err := db.Folders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		path              string
		children, prompts int
	}
	want := []row{ // siblings by position: Security (0) before Engineering (1)
		{"Security", 0, 1},
		{"Engineering", 1, 1},
		{"Engineering / Go", 0, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("Folders returned %d folders, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := row{got[i].Path, got[i].ChildCount, got[i].PromptCount}
		if g != w {
			t.Errorf("folder %d = %+v, want %+v", i, g, w)
		}
	}
	if got[0].ID != lib.Data.Folders[1].ID {
		t.Errorf("folder 0 id = %s, want the stored %s", got[0].ID, lib.Data.Folders[1].ID)
	}
}

func TestFoldersSample(t *testing.T) {
	lib := librarytest.New(t, 500)
	db := open(t, lib.DB, Options{})
	got, err := db.Folders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(lib.Data.Folders) {
		t.Fatalf("Folders returned %d, want %d", len(got), len(lib.Data.Folders))
	}
	seen := map[string]FolderInfo{}
	prompts := 0
	for _, f := range got {
		if f.ParentID != nil {
			parent, ok := seen[strings.ToLower(*f.ParentID)]
			if !ok {
				t.Fatalf("folder %s listed before its parent", f.Path)
			}
			if want := parent.Path + " / " + f.Name; f.Path != want {
				t.Errorf("Path = %q, want %q", f.Path, want)
			}
		} else if f.Path != f.Name {
			t.Errorf("top-level Path = %q, want %q", f.Path, f.Name)
		}
		seen[strings.ToLower(f.ID)] = f
		prompts += f.PromptCount
	}
	inFolders := 0
	for _, p := range lib.Data.Prompts {
		if p.FolderID != nil {
			inFolders++
		}
	}
	if prompts != inFolders {
		t.Errorf("sum of PromptCount = %d, want %d", prompts, inFolders)
	}
}

func TestFoldersCycle(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	sec, sub := lib.Data.Folders[1].ID, lib.Data.Folders[2].ID
	lib.Exec(t, "UPDATE folders SET parent_id = ? WHERE id = ?", sub, sec)
	lib.Exec(t, "UPDATE folders SET parent_id = ? WHERE id = ?", sec, sub)
	db := open(t, lib.DB, Options{})
	got, err := db.Folders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("Folders with a cycle returned %d folders, want all 3", len(got))
	}
}

func TestFolder(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	db := open(t, lib.DB, Options{})
	ctx := context.Background()
	want := lib.Data.Folders[2]
	for _, id := range []string{want.ID, strings.ToLower(want.ID)} {
		f, err := db.Folder(ctx, id)
		if err != nil {
			t.Fatalf("Folder(%s): %v", id, err)
		}
		if f.ID != want.ID || f.Name != want.Name || f.ParentID == nil || *f.ParentID != *want.ParentID || !f.CreatedAt.Equal(want.CreatedAt.Time) {
			t.Errorf("Folder(%s) = %+v, want %+v", id, f, want)
		}
	}
	if _, err := db.Folder(ctx, "00000000-0000-4000-8000-000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Folder(missing) = %v, want ErrNotFound", err)
	}
}
