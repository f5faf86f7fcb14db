package dbread

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestFirstBriefPageKeptInMemory: the first brief page is kept after it is read, labelled with
// the sync it reflects, and read again after the next; any offset and limit an int holds are
// answered as the index answers them; an empty library lists an empty page.
func TestFirstBriefPageKeptInMemory(t *testing.T) {
	lib := librarytest.New(t, 150)
	side := open(t, lib.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, side, IndexReady)
	direct := open(t, lib.DB, Options{})
	ctx := context.Background()
	kept := func() *head {
		side.side.mu.Lock()
		defer side.side.mu.Unlock()
		return side.side.head
	}

	first, total, err := side.ListPrompts(ctx, ListOptions{Brief: true})
	if err != nil || len(first) != headRows || total != 150 {
		t.Fatalf("first page: %d of %d, %v", len(first), total, err)
	}
	h := kept()
	if h == nil || !h.whole || len(h.rows) != headRows {
		t.Fatalf("after the first page the head is %+v, want it kept", h)
	}
	if again, _, _ := side.ListPrompts(ctx, ListOptions{Brief: true, Limit: 10, Offset: 5}); !reflect.DeepEqual(again, first[5:15]) || kept() != h {
		t.Error("a page within the first was not answered from the same head")
	}

	lib.Exec(t, "UPDATE prompts SET title = 'Retitled', updated_at = updated_at + 100 WHERE id = ?", first[3].ID)
	after, _, err := side.ListPrompts(ctx, ListOptions{Brief: true})
	if err != nil || after[3].Title != "Retitled" {
		t.Fatalf("after an edit the first page shows %q, %v; want the new title", after[3].Title, err)
	}
	if kept() == h {
		t.Error("the head was not read again after the sync")
	}

	for _, opts := range []ListOptions{
		{Limit: math.MaxInt, Offset: 1},
		{Limit: 10, Offset: math.MaxInt - 5},
		{Limit: math.MaxInt, Offset: math.MaxInt},
		{Limit: 60, Offset: 90},
	} {
		opts.Brief = true
		got, gotTotal, err := side.ListPrompts(ctx, opts)
		if err != nil {
			t.Fatalf("offset %d limit %d: %v", opts.Offset, opts.Limit, err)
		}
		want, wantTotal, err := direct.ListPrompts(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || gotTotal != wantTotal {
			t.Errorf("offset %d limit %d: %d of %d, want %d of %d", opts.Offset, opts.Limit, len(got), gotTotal, len(want), wantTotal)
		}
	}

	empty := librarytest.New(t, 0)
	none := open(t, empty.DB, Options{CacheDir: t.TempDir(), syncWait: waitLimit})
	waitIndex(t, none, IndexReady)
	if got, n, err := none.ListPrompts(ctx, ListOptions{Brief: true}); err != nil || got == nil || len(got) != 0 || n != 0 {
		t.Errorf("an empty library lists %#v (%d), %v; want an empty page", got, n, err)
	}
}
