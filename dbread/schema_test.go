package dbread

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

func TestOpenIncompatibleSchema(t *testing.T) {
	tests := []struct {
		name  string
		alter string
		want  string // named in the error
	}{
		{"dropped column", "ALTER TABLE prompts DROP COLUMN icon", `"icon"`},
		{"renamed column", "ALTER TABLE folders RENAME COLUMN parent_id TO parent", `"parent_id"`},
		{"missing table", "DROP TABLE prompts", `"prompts"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := librarytest.New(t, 5)
			lib.Exec(t, tt.alter)
			_, err := Open(context.Background(), lib.DB, Options{})
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("Open after %q = %v, want ErrSchema", tt.alter, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %s", err, tt.want)
			}
		})
	}
}

// TestSchemaChangedMidSession: the app alters a column the reader uses while it runs. Every read
// fails with ErrSchema; none returns rows read into the wrong fields.
func TestSchemaChangedMidSession(t *testing.T) {
	tests := []struct {
		name  string
		alter string
	}{
		{"drop url", "ALTER TABLE prompts DROP COLUMN url"},
		{"rename title", "ALTER TABLE prompts RENAME COLUMN title TO name"},
		{"rename body", "ALTER TABLE prompts RENAME COLUMN body TO content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := librarytest.New(t, 50)
			db := openReady(t, lib.DB)
			ctx := context.Background()
			lib.Exec(t, tt.alter)

			checks := map[string]error{}
			_, checks["Prompt"] = db.Prompt(ctx, lib.Data.Prompts[1].ID)
			_, _, checks["ListPrompts"] = db.ListPrompts(ctx, ListOptions{})
			_, _, checks["Search"] = db.Search(ctx, "review", 10, 0)
			_, checks["AllPrompts"] = db.AllPrompts(ctx)
			for name, err := range checks {
				if !errors.Is(err, ErrSchema) {
					t.Errorf("%s after %q = %v, want ErrSchema", name, tt.alter, err)
				}
			}
		})
	}
}

// TestColumnsByName: a table whose columns are in another order, with extra ones, reads into
// the right fields.
func TestColumnsByName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts.db")
	w, err := librarytest.OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, stmt := range []string{
		`CREATE TABLE folders (extra TEXT, updated_at INTEGER, name TEXT, id TEXT PRIMARY KEY, position INTEGER, parent_id TEXT, created_at INTEGER)`,
		`CREATE TABLE prompts (updated_at INTEGER, url TEXT, color TEXT, icon TEXT, folder_id TEXT, body TEXT, title TEXT, id TEXT PRIMARY KEY, created_at INTEGER, favorite INTEGER)`,
		`INSERT INTO folders VALUES ('x', 1700000100, 'Folder', 'F0000000-0000-4000-8000-000000000001', 3, NULL, 1700000000)`,
		`INSERT INTO prompts VALUES (1700000200, 'https://u', '#22C55E', '🧪', 'F0000000-0000-4000-8000-000000000001', 'The body', 'The title', 'P0000000-0000-4000-8000-000000000001', 1700000000, 1)`,
	} {
		if _, err := w.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db := open(t, path, Options{})
	ctx := context.Background()
	p, err := db.Prompt(ctx, "P0000000-0000-4000-8000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	want := promptlib.Prompt{ID: "P0000000-0000-4000-8000-000000000001", Title: "The title", Content: "The body",
		FolderID: promptlib.Ptr("F0000000-0000-4000-8000-000000000001"), Emoji: promptlib.Ptr("🧪"), Color: promptlib.Ptr("green"),
		URL: promptlib.Ptr("https://u"), CreatedAt: promptlib.FromUnix(1700000000), UpdatedAt: promptlib.FromUnix(1700000200)}
	if p.ID != want.ID || p.Title != want.Title || p.Content != want.Content || *p.FolderID != *want.FolderID ||
		*p.Emoji != *want.Emoji || *p.Color != *want.Color || *p.URL != *want.URL ||
		!p.CreatedAt.Equal(want.CreatedAt.Time) || !p.UpdatedAt.Equal(want.UpdatedAt.Time) {
		t.Errorf("Prompt = %+v\nwant     %+v", p, want)
	}
	fs, err := db.Folders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Name != "Folder" || fs[0].Position != 3 || fs[0].PromptCount != 1 {
		t.Errorf("Folders = %+v, want Folder at position 3 with 1 prompt", fs)
	}
}
