package dbread

import (
	"context"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// A Prompteka library has no applied_ops (the app keeps its own record): no operation is
// recorded there, and asking is no error. A standalone library's record is tested with the
// processor that writes it (queue's TestStatusReadsTheProcessorsRecord).
func TestAppliedResponseOfAPromptekaLibrary(t *testing.T) {
	lib := librarytest.New(t, 2)
	db := open(t, lib.DB, Options{CacheDir: t.TempDir()})
	if r, ok, err := db.AppliedResponse(context.Background(), "11111111-1111-4111-8111-111111111111"); ok || err != nil {
		t.Errorf("AppliedResponse = %+v, %v, %v; want nothing recorded, no error", r, ok, err)
	}
}
