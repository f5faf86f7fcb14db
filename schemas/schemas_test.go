package schemas

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
)

func TestEverySchemaCompiles(t *testing.T) {
	if _, err := compile("no-such-schema"); err == nil {
		t.Error("an unknown schema compiled")
	}
	for _, name := range Names() {
		if _, err := compile(name); err != nil {
			t.Error(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(Raw(name), &doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if doc["type"] != "object" {
			t.Errorf("%s: top-level type %v, want object (MCP needs object schemas)", name, doc["type"])
		}
	}
}

func TestValidateReportsEveryProblemWithItsPointer(t *testing.T) {
	err := Validate("list_prompts.input", []byte(`{"limit": 0, "offset": -1, "extra": true}`))
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want *Error", err)
	}
	got := map[string]bool{}
	for _, p := range se.Problems {
		got[p.Pointer] = true
	}
	for _, want := range []string{"/limit", "/offset", ""} {
		if !got[want] {
			t.Errorf("no problem reported at %q; got %v", want, se.Problems)
		}
	}
}

func TestValidateAcceptsGoValuesAndText(t *testing.T) {
	for _, doc := range []any{
		map[string]any{"id": "3F2A1B4C-0D5E-4F6A-8B7C-9D0E1F2A3B4C"},
		[]byte(`{"id": "3f2a1b4c-0d5e-4f6a-8b7c-9d0e1f2a3b4c"}`),
		json.RawMessage(`{"id": "3f2a1b4c-0d5e-4f6a-8b7c-9d0e1f2a3b4c"}`),
	} {
		if err := Validate("get_prompt.input", doc); err != nil {
			t.Errorf("Validate(%v) = %v, want valid", doc, err)
		}
	}
	err := Validate("get_prompt.input", []byte(`{"id": `))
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("truncated JSON: got %v, want a 'not valid JSON' problem", err)
	}
	if err := Validate("no-such-schema", []byte(`{}`)); err == nil {
		t.Error("unknown schema name: got nil error")
	}
}

// The schemas are added once and each compiled on its first use: a process that changed its
// working directory in between must still compile them, $refs among them included.
func TestCompileAfterChdir(t *testing.T) {
	// Start from nothing added, nothing compiled (the package's other tests may have been first).
	compiled.once = sync.Once{}
	compiled.schemas = nil
	t.Cleanup(func() { compiled.once = sync.Once{}; compiled.schemas = nil })
	if err := Validate("health_check.input", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	err := Validate("operation", map[string]any{})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("validating an empty operation after a chdir: %v, want its problems", err)
	}
}

// A bound's numbers read as they are written, not in the validator's float notation
// ("got 2×10⁰⁶, want 1.048576×10⁰⁶").
func TestBoundsReadAsNumbers(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"byteBudget": 2000000}`, "maximum: got 2,000,000, want 1,048,576"},
		{`{"byteBudget": 0}`, "minimum: got 0, want 1"},
	} {
		err := Validate("project", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.doc, err, tc.want)
		}
	}
	if got := number(big.NewRat(-3, 2)); got != "-1.5" {
		t.Errorf("number(-3/2) = %q, want -1.5", got)
	}
}

// A null where the field takes none says so, not "got null, want string", which reads as a
// value to convert; the input schemas of updates refuse null titles, contents and names, as the
// write rules do (null clears only what can be cleared).
func TestNullWhereNoneIsTaken(t *testing.T) {
	for _, tc := range []struct{ schema, doc, want string }{
		{"update_prompt.input", `{"id":"11111111-1111-4111-8111-111111111111","title":null}`, "/title: cannot be null"},
		{"update_prompt.input", `{"id":"11111111-1111-4111-8111-111111111111","content":null}`, "/content: cannot be null"},
		{"update_folder.input", `{"id":"11111111-1111-4111-8111-111111111111","name":null}`, "/name: cannot be null"},
		{"create_prompt.input", `{"title":"t","content":null}`, "/content: cannot be null"},
	} {
		err := Validate(tc.schema, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want %q", tc.schema, tc.doc, err, tc.want)
		}
	}
	// Null still clears what it clears.
	if err := Validate("update_prompt.input", []byte(`{"id":"11111111-1111-4111-8111-111111111111","folderId":null,"emoji":null,"color":null,"url":null}`)); err != nil {
		t.Errorf("an update clearing the folder, emoji, color and url: %v", err)
	}
}

// A propertyNames problem is placed at the object that holds the key, every time: the
// validator's location of it could be overwritten by a sibling validated after it, and the
// env key of a server was reported at the server's command about one run in six, as map order
// fell (placeKey).
func TestPropertyNamesProblemKeepsItsPlace(t *testing.T) {
	doc := []byte(`{"servers": {"db": {"command": "x", "args": ["a"], "env": {"MY VAR": "a"}}}}`)
	for range 100 {
		err := Validate("project", doc)
		var se *Error
		if !errors.As(err, &se) || len(se.Problems) != 1 {
			t.Fatalf("got %v, want one problem", err)
		}
		if p := se.Problems[0]; p.Pointer != "/servers/db/env" || len(p.Keys) != 1 || p.Keys[0] != "MY VAR" {
			t.Fatalf("problem at %q keys %q, want /servers/db/env, MY VAR", p.Pointer, p.Keys)
		}
	}
}
