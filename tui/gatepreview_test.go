package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestPreviewGate(t *testing.T) {
	lib := promptlib.Sample(30, 1)
	crit := lib.Prompts[3]
	name := promptlib.Names(lib.Prompts)[crit.ID]
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crit.yaml"), "byteBudget: 1\npriorities:\n  "+name+": 10\n", time.Time{})
	writeFile(t, filepath.Join(dir, "roomy.yaml"), "byteBudget: 100000\n", time.Time{})

	for _, tc := range []struct {
		project string
		tags    []string
		groups  map[string]bool // groups that must appear
		absent  string          // a group that must not
	}{
		{"crit", []string{"zzzz-nothing"}, map[string]bool{"critical": true}, "matched"},
		{"crit", []string{"sql"}, map[string]bool{"critical": true, "over budget": true}, "matched"},
		{"roomy", []string{"sql"}, map[string]bool{"matched": true}, "over budget"},
		{"", []string{"sql"}, map[string]bool{"matched": true}, "critical"},
	} {
		v, err := previewGate(lib, dir, tc.project, tc.tags)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.project, tc.tags, err)
		}
		seen := map[string]bool{}
		for _, r := range v.Rows {
			seen[r.Group] = true
			if r.Why == "" {
				t.Errorf("%s %v: %s has no reason", tc.project, tc.tags, r.Name)
			}
			if r.Group == "critical" && r.Name != name {
				t.Errorf("%s %v: critical %s, want %s", tc.project, tc.tags, r.Name, name)
			}
		}
		for g := range tc.groups {
			if !seen[g] {
				t.Errorf("%s %v: no %q prompt in %+v", tc.project, tc.tags, g, v.Rows)
			}
		}
		if seen[tc.absent] {
			t.Errorf("%s %v: a %q prompt, want none", tc.project, tc.tags, tc.absent)
		}
		if !strings.Contains(v.Text, "<prompt name=") && len(v.Rows) > 0 && (seen["critical"] || seen["matched"]) {
			t.Errorf("%s %v: the briefing text carries no prompt in full:\n%s", tc.project, tc.tags, v.Text)
		}
	}
	if _, err := previewGate(lib, dir, "missing", []string{"x"}); err == nil {
		t.Error("a missing project previewed without an error")
	}
}
