package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/gate"
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
		v, err := previewGate(t.Context(), lib, dir, tc.project, nil, nil, tc.tags)
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
	if _, err := previewGate(t.Context(), lib, dir, "missing", nil, nil, []string{"x"}); err == nil {
		t.Error("a missing project previewed without an error")
	}

	// The repository's project is not a file of dir: it is read through its Load.
	repo := &RepoProject{Name: "shop-front", Load: func() (gate.Project, string, error) {
		p, err := gate.ParseProject("/src/shop-front/.mcpctl/project.yaml", []byte("byteBudget: 3000\n"))
		return p, "not trusted", err
	}}
	// The index and the tools the briefing says are open are the console's to build
	// (mcpserver's, for the project and whether its user trusts it).
	brief := func(ctx context.Context, lib promptlib.Library, p gate.Project, untrusted string) (*gate.Index, Render, error) {
		ix, scope, err := gate.LibraryIndex(lib, p)
		if err != nil {
			return nil, nil, err
		}
		r := gate.Renderer{Texts: gate.SystemTexts(scope.SystemPrompts(lib.Prompts)),
			Tools: []string{fmt.Sprintf("tools-of-%d-untrusted-%q", p.ByteBudget, untrusted)}}
		return ix, func(ctx context.Context, b gate.Briefing, load gate.Bodies) (string, error) {
			text, _, err := r.Briefing(ctx, b, load)
			return text, err
		}, nil
	}
	if v, err := previewGate(t.Context(), lib, dir, repoEntry, repo, brief, []string{"sql"}); err != nil || v.Budget != 3000 ||
		!strings.Contains(v.Text, `Tools now available: tools-of-3000-untrusted-"not trusted".`) {
		t.Errorf("the untrusted repository's project: budget %d, %v; want its own 3000 and the tools for it, in\n%s", v.Budget, err, v.Text)
	}
	if v, err := previewGate(t.Context(), lib, dir, "roomy", nil, brief, []string{"sql"}); err != nil ||
		!strings.Contains(v.Text, `Tools now available: tools-of-100000-untrusted-"".`) {
		t.Errorf("a project of the user's own: %v; want it trusted, in\n%s", err, v.Text)
	}
	broken := &RepoProject{Name: "shop-front", Load: func() (gate.Project, string, error) { return gate.Project{}, "", errors.New("line 2: bad") }}
	if _, err := previewGate(t.Context(), lib, dir, repoEntry, broken, nil, []string{"sql"}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a repository project that does not load: got %v, want its error", err)
	}
	if got, _, _, _ := gateProjects(dir, repo, nil); strings.Join(got, ",") != ","+repoEntry+",crit,roomy" {
		t.Errorf("gateProjects = %q, want none, the repository's, then the files'", got)
	}
}
