package dbread

import (
	"context"
	"maps"
	"reflect"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// The fingerprint of a library written by another connection names exactly the bucket an
// edit, an insert or a delete touched, and that bucket's prompts are read back as they now are.
func TestFingerprintFollowsWrites(t *testing.T) {
	ctx := context.Background()
	lib := librarytest.New(t, 2*BucketWidth)
	db := open(t, lib.DB, Options{})
	before, err := db.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 2 {
		t.Fatalf("%d buckets for %d prompts", len(before), 2*BucketWidth)
	}
	// The view and the search index both fingerprint an unchanged library: it is read once.
	if again, err := db.Fingerprint(ctx); err != nil || reflect.ValueOf(again).Pointer() != reflect.ValueOf(before).Pointer() {
		t.Errorf("an unchanged library was fingerprinted again (%v)", err)
	}
	var rowid int64
	id := lib.Data.Prompts[BucketWidth+3].ID
	if err := lib.Writer.QueryRow("SELECT rowid FROM prompts WHERE id = ?", id).Scan(&rowid); err != nil {
		t.Fatal(err)
	}
	lib.Exec(t, "UPDATE prompts SET title = 'Edited', updated_at = updated_at + 1 WHERE id = ?", id)
	after, err := db.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lo := rowid &^ (BucketWidth - 1)
	if changed := differing(before, after); len(changed) != 1 || changed[0] != lo {
		t.Fatalf("buckets changed by one edit: %v, want [%d]", changed, lo)
	}
	var titles = map[string]string{}
	var last int64 = -1
	if err := db.EachPromptInBucket(ctx, lo, func(r int64, p promptlib.Prompt) error {
		if r < lo || r >= lo+BucketWidth || r <= last {
			t.Errorf("rowid %d out of bucket %d or out of order", r, lo)
		}
		last = r
		titles[p.ID] = p.Title
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if titles[id] != "Edited" {
		t.Errorf("the edited prompt reads %q", titles[id])
	}
	lib.Exec(t, "DELETE FROM prompts WHERE id = ?", lib.Data.Prompts[0].ID)
	gone, err := db.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if changed := differing(after, gone); len(changed) != 1 {
		t.Errorf("buckets changed by one delete: %v", changed)
	}
}

// differing lists the buckets whose sums differ between two fingerprints, or that only one has.
func differing(a, b Fingerprint) []int64 {
	var out []int64
	keys := maps.Clone(a)
	maps.Copy(keys, b)
	for lo := range keys {
		if a[lo] != b[lo] {
			out = append(out, lo)
		}
	}
	return out
}
