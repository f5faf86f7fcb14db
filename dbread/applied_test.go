package dbread

import (
	"context"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// A library only the Prompteka app has written has no applied_ops (the app keeps its own
// record): no operation is recorded there, and asking is no error. Once a processor has made
// the table (StandaloneSQL) and recorded an answer, written by another connection, it is read
// back under the id in either case.
func TestAppliedResponse(t *testing.T) {
	const id = "1a2b3c4d-1111-4111-8111-111111111111"
	lib := librarytest.New(t, 2)
	db := open(t, lib.DB, Options{CacheDir: t.TempDir()})
	if r, ok, err := db.AppliedResponse(context.Background(), id); ok || err != nil {
		t.Errorf("without applied_ops: %+v, %v, %v; want nothing recorded, no error", r, ok, err)
	}
	lib.Exec(t, promptlib.StandaloneSQL)
	lib.Exec(t, `INSERT INTO applied_ops (op_id, applied_at, response) VALUES (?, 0, ?)`, id,
		`{"status":"success","id":"9f0c0c8e-0000-4000-8000-000000000001","message":"Prompt 'x' created","error":null}`)
	for _, asked := range []string{id, "1A2B3C4D-1111-4111-8111-111111111111"} {
		r, ok, err := db.AppliedResponse(context.Background(), asked)
		if !ok || err != nil || !r.OK() || r.ID == nil || *r.ID != "9f0c0c8e-0000-4000-8000-000000000001" {
			t.Errorf("recorded, asked as %s: %+v, %v, %v; want the success naming the prompt", asked, r, ok, err)
		}
	}
	if _, ok, err := db.AppliedResponse(context.Background(), "11111111-1111-4111-8111-111111111111"); ok || err != nil {
		t.Errorf("an operation never applied: recorded %v, %v; want no record", ok, err)
	}
}
