package gate

import (
	"reflect"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestDocBinaryRoundTrip(t *testing.T) {
	p := promptlib.Prompt{ID: "D0000000-0000-4000-8000-000000000001", Title: "Database Migrations",
		Content: "Plan every migration.\n\n## Rollback\n\nKeep a way back for {{table}}.\n\n## Locking\n\nAvoid long locks on big tables."}
	d := NewDoc(p, "database-migrations", "Engineering / Databases")
	d.TOCBytes = 321
	b := d.AppendBinary([]byte("prefix"))
	got, n, err := DecodeDoc(b[len("prefix"):])
	if err != nil || n != len(b)-len("prefix") {
		t.Fatalf("DecodeDoc: %v, took %d of %d bytes", err, n, len(b)-len("prefix"))
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("decoded %+v\nwant    %+v", got, d)
	}
	// Cut anywhere, it is refused, never a panic.
	whole := d.AppendBinary(nil)
	for i := range len(whole) {
		if _, _, err := DecodeDoc(whole[:i]); err == nil {
			t.Fatalf("a Doc cut at %d of %d bytes decoded", i, len(whole))
		}
	}
}
