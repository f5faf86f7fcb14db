package mcpserver

import (
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/pipeline"
)

// An unknown or evicted ref's error tells the model to make the ref again: its hint was
// INVALID_INPUT's "Fix the named field", while the message said to re-run the original call,
// which invites retrying with a retyped ref. An unknown section's says to pick a listed id.
func TestSectionErrorHints(t *testing.T) {
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: t.TempDir(), NoLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, ref := range []string{"nope", strings.Repeat("A", 32), testRef} {
		_, _, err := e.Section(t.Context(), ref, "1")
		pe := classify(sectionError(err))
		if hint := pe.Hint(); strings.Contains(hint, "Fix the named field") || !strings.Contains(hint, "again with the same arguments") {
			t.Errorf("ref %q: hint %q, want it to say to make the ref again", ref, hint)
		}
	}
	out, err := e.Transform(t.Context(), pipeline.Request{Model: "subindex", Content: pipeline.Content{Text: strings.Repeat("# Part\n\n"+strings.Repeat("text of a part. ", 300)+"\n\n", 4), Type: pipeline.TypeToolResult}})
	if err != nil || out.Ref == "" {
		t.Fatalf("transform: %v, ref %q", err, out.Ref)
	}
	_, _, err = e.Section(t.Context(), out.Ref, "99")
	if hint := classify(sectionError(err)).Hint(); !strings.Contains(hint, "section ids the message lists") {
		t.Errorf("an unknown section: hint %q", hint)
	}
}
