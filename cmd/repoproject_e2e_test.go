package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// repoWithProject makes a repository directory called name holding .mcpctl/project.yaml with
// text, and a subdirectory of it to work in; it returns both.
func repoWithProject(tb testing.TB, name, text string) (repo, sub string) {
	tb.Helper()
	repo = filepath.Join(tb.TempDir(), name)
	sub = filepath.Join(repo, "src", "app")
	for _, dir := range []string{filepath.Join(repo, ".mcpctl"), sub} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".mcpctl", "project.yaml"), []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return repo, sub
}

// A repository's project is named after its repository, not after its file (project.yaml, the
// same in every repository): in the greeting, the briefing and the traffic events. A project in
// the projects directory keeps its file's name.
func TestRepoProjectIsNamedAfterItsRepository(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	state := filepath.Join(t.TempDir(), "state")
	env = append(env, "XDG_STATE_HOME="+state)
	_, sub := repoWithProject(t, "Shop Front", webProject)

	s := serveIn(t, sub, env, "--library", lib.Dir)
	if !strings.Contains(s.init.Instructions, "You are working on the project shop-front.") {
		t.Errorf("the repository's project is not named shop-front in the instructions:\n%s", s.init.Instructions)
	}
	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &b)
	if !strings.Contains(b.Text, "Session started for shop-front.") {
		t.Errorf("the briefing does not name shop-front:\n%s", b.Text)
	}
	s.Close()
	s.cmd.Wait()
	files, _ := filepath.Glob(filepath.Join(traffic.Dir(state), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("traffic files: %v, want one for the session", files)
	}
	events, err := traffic.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Project != "shop-front" {
			t.Errorf("traffic event %s %s has project %q, want shop-front", e.Kind, e.Method, e.Project)
		}
	}
	if len(events) == 0 {
		t.Error("no traffic events")
	}

	// A user's project in the repository is still the one --project names, under its own name.
	writeProject(t, env, "web", webProject)
	s = serveIn(t, sub, env, "--library", lib.Dir, "--project", "web")
	if !strings.Contains(s.init.Instructions, "You are working on the project web.") {
		t.Errorf("--project web is not named web in the instructions:\n%s", s.init.Instructions)
	}
}
