package dbread

import (
	"context"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestPromptsByRowidKeepsOrderAndDropsStale: rows come back in the order the index listed them;
// a ref whose rowid now holds another prompt, or no row at all, is left out.
func TestPromptsByRowidKeepsOrderAndDropsStale(t *testing.T) {
	lib := librarytest.New(t, 5)
	db := open(t, lib.DB, Options{})
	rows, err := lib.Writer.Query("SELECT rowid, id FROM prompts ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	var refs []docRef
	for rows.Next() {
		var r docRef
		if err := rows.Scan(&r.rowid, &r.id); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	rows.Close()
	if len(refs) < 4 {
		t.Fatalf("fixture has %d prompts, want at least 4", len(refs))
	}
	want := []string{refs[3].id, refs[0].id, refs[2].id}
	asked := []docRef{
		refs[3],
		{rowid: refs[1].rowid, id: "00000000-0000-4000-8000-000000000000"}, // the rowid reused
		refs[0],
		{rowid: 1 << 40, id: refs[4].id}, // the row is gone
		refs[2],
	}
	got, err := db.promptsByRowid(context.Background(), asked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d prompts, want %d", len(got), len(want))
	}
	for i, p := range got {
		if p.ID != want[i] {
			t.Errorf("prompt %d = %s, want %s", i, p.ID, want[i])
		}
	}
}
