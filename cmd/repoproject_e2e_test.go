package cmd

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/gate"
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
	events := endedSessionEvents(t, s, state)
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

// runIn runs mcpctl (this test binary as mcpctl) with args, env and dir as its working directory,
// and returns its exit code, stdout and stderr.
func runIn(tb testing.TB, dir string, env []string, args ...string) (int, string, string) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		tb.Fatalf("mcpctl %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// Run in a repository, the commands that take --project work on the project serve would serve
// there: --project NAME, else $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml.
func TestCommandsDefaultToTheRepositoryProject(t *testing.T) {
	lib := projectLibrary(t)
	env := append(testHome(t), "XDG_STATE_HOME="+t.TempDir())
	repo, sub := repoWithProject(t, "Shop Front", webProject)

	code, out, stderr := runIn(t, sub, env, "gate", "preview", "--library", lib.Dir, "sql")
	if code != 0 || !strings.Contains(out, "Session started for shop-front.") || !strings.Contains(out, "Never log secrets") ||
		!strings.Contains(out, "Parameterise every query") || strings.Contains(out, "holiday") {
		t.Errorf("gate preview in the repository: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runIn(t, sub, env, "gate", "preview", "--library", lib.Dir, "--explain", "sql")
	if code != 0 || !strings.HasPrefix(out, "Project shop-front,") || !strings.Contains(out, "budget 200 bytes") {
		t.Errorf("gate preview --explain in the repository: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = runIn(t, sub, env, "describe", "project", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "Project:     shop-front\n") ||
		!strings.Contains(out, "File:        "+filepath.Join(repo, ".mcpctl", "project.yaml")+"\n") ||
		!strings.Contains(out, "Byte budget: 200") || !strings.Contains(out, "sql-conventions") {
		t.Errorf("describe project in the repository: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = runIn(t, sub, env, "get", "prompts", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "shop-front  security-policy") || strings.Contains(out, "holiday") ||
		strings.Contains(out, "the whole library") {
		t.Errorf("get prompts in the repository: exit %d\n%s%s", code, out, stderr)
	}

	// A project named by --project or $MCPCTL_PROJECT comes first, as for serve.
	writeProject(t, env, "web", "folder: Personal\n")
	// -A is every project: the user's and the repository's.
	code, out, stderr = runIn(t, sub, env, "get", "prompts", "-A", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "shop-front  security-policy") || !strings.Contains(out, "web         holiday") {
		t.Errorf("get prompts -A in the repository: exit %d, want web's and shop-front's\n%s%s", code, out, stderr)
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{env, []string{"describe", "project", "web"}},
		{env, []string{"gate", "preview", "--project", "web", "--explain", "sql"}},
		{env, []string{"get", "prompts", "--project", "web"}},
		{append(slices.Clone(env), "MCPCTL_PROJECT=web"), []string{"describe", "project"}},
		{append(slices.Clone(env), "MCPCTL_PROJECT=web"), []string{"gate", "preview", "--explain", "sql"}},
		{append(slices.Clone(env), "MCPCTL_PROJECT=web"), []string{"get", "prompts"}},
	} {
		code, out, stderr := runIn(t, sub, tc.env, append(tc.args, "--library", lib.Dir)...)
		if code != 0 || strings.Contains(out, "shop-front") || !strings.Contains(out, "web") {
			t.Errorf("mcpctl %v (MCPCTL_PROJECT=%s): exit %d, want web's\n%s%s", tc.args, envGetter(tc.env)("MCPCTL_PROJECT"), code, out, stderr)
		}
	}

	// Outside any repository: no project, and the commands that need one say how to give it.
	outside := t.TempDir()
	// describe project takes the NAME as its argument: it has no --project to give.
	for _, tc := range []struct {
		args []string
		give string
	}{
		{[]string{"gate", "preview", "--library", lib.Dir, "sql"}, "give --project NAME"},
		{[]string{"describe", "project", "--library", lib.Dir}, "give a project NAME"},
	} {
		args := tc.args
		code, _, stderr := runIn(t, outside, env, args...)
		if code != 2 || !strings.Contains(stderr, "no project: "+tc.give) || !strings.Contains(stderr, ".mcpctl/project.yaml") {
			t.Errorf("mcpctl %v outside a repository: exit %d, stderr %q; want 2 and how to name a project", args, code, stderr)
		}
	}
	code, out, stderr = runIn(t, outside, env, "get", "prompts", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "the whole library") || !strings.Contains(out, "holiday") {
		t.Errorf("get prompts outside a repository: exit %d, want the whole library\n%s%s", code, out, stderr)
	}

	// A repository file that breaks the schema is said, with its file, as serve says it.
	if err := os.WriteFile(filepath.Join(repo, ".mcpctl", "project.yaml"), []byte("folder: Web App\nprioritees: {x: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runIn(t, sub, env, "describe", "project", "--library", lib.Dir)
	if code != 1 || !strings.Contains(stderr, filepath.Join(".mcpctl", "project.yaml")) || !strings.Contains(stderr, "prioritees") {
		t.Errorf("describe project with a broken repository file: exit %d, stderr %q; want 1, the file and the field", code, stderr)
	}
}

// A client that does not start its servers in the project's directory (Claude Desktop) serves a
// repository's project by its directory: --project DIR, as mcp-config writes it.
func TestRepoProjectByItsDirectory(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	repo, sub := repoWithProject(t, "Shop Front", webProject)
	elsewhere := t.TempDir()

	s := serveIn(t, elsewhere, env, "--library", lib.Dir, "--project", sub)
	if !strings.Contains(s.init.Instructions, "You are working on the project shop-front.") {
		t.Errorf("--project %s does not serve shop-front:\n%s", sub, s.init.Instructions)
	}

	code, _, stderr := runIn(t, sub, env, "mcp-config", "--client", "claude-desktop")
	// Quoted: "Shop Front" unquoted is two arguments.
	if code != 0 || !strings.Contains(stderr, "add --project '"+repo+"' to serve this repository's project") {
		t.Errorf("mcp-config for claude-desktop in the repository: exit %d, stderr %q; want the --project DIR to add, quoted", code, stderr)
	}
	code, out, stderr := runIn(t, elsewhere, env, "mcp-config", "--client", "claude-desktop", "--project", sub)
	if code != 0 || !strings.Contains(out, `"mcpctl-shop-front"`) || !strings.Contains(out, `"--project",`) || !strings.Contains(out, `"`+repo+`"`) {
		t.Errorf("mcp-config --project %s: exit %d\n%s%s", sub, code, out, stderr)
	}
	code, _, stderr = runIn(t, elsewhere, env, "describe", "project", elsewhere, "--library", lib.Dir)
	if code != 1 || !strings.Contains(stderr, "no .mcpctl/project.yaml there") {
		t.Errorf("describe project of a directory without one: exit %d, %q", code, stderr)
	}
	// A mistyped directory below the repository does not serve the repository's project.
	typo := filepath.Join(repo, "scr")
	code, _, stderr = runIn(t, elsewhere, env, "describe", "project", typo, "--library", lib.Dir)
	if code != 1 || !strings.Contains(stderr, "no such directory") {
		t.Errorf("describe project of a directory that does not exist: exit %d, %q", code, stderr)
	}
}
