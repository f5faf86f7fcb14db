package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func projectVars(tb testing.TB, yaml string) map[string]string {
	tb.Helper()
	config := tb.TempDir()
	dir := filepath.Join(config, "mcpctl", "projects")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web.yaml"), []byte(yaml), 0o644); err != nil {
		tb.Fatal(err)
	}
	return map[string]string{"XDG_CONFIG_HOME": config}
}

func TestProjectCommands(t *testing.T) {
	lib := projectLibrary(t)
	vars := projectVars(t, webProject)

	code, out, stderr := run(t, vars, "get", "projects", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "web") || !strings.Contains(out, "Web App") || stderr != "" {
		t.Errorf("get projects: exit %d\n%s%s", code, out, stderr)
	}
	// A project whose folder the library lacks is warned of: serve refuses it.
	nope := projectVars(t, strings.Replace(webProject, "Web App", "Nope", 1))
	code, out, stderr = run(t, nope, "get", "projects", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "(1 warning)") ||
		!strings.Contains(stderr, `warning: web: folder: the library has no such folder ("Nope"), so serve refuses the project (PROJECT_UNAVAILABLE)`) {
		t.Errorf("get projects, a folder the library lacks: exit %d\n%s%s", code, out, stderr)
	}
	// A library named that cannot be read: the list still, saying the folders went unchecked.
	missing := filepath.Join(t.TempDir(), "missing")
	code, out, stderr = run(t, nope, "get", "projects", "--library", missing)
	if code != 0 || !strings.Contains(out, "Nope") || !strings.Contains(stderr, "warning: the projects' folders were not checked: no library database at "+missing) {
		t.Errorf("get projects, a library that cannot be read: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = run(t, vars, "get", "prompts", "--project", "web", "--library", lib.Dir)
	if code != 0 {
		t.Fatalf("get prompts: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "PROJECT") || !strings.Contains(lines[1], "security-policy") ||
		!strings.Contains(lines[1], "10") || strings.Contains(out, "holiday") {
		t.Errorf("get prompts --project web:\n%s", out)
	}

	code, out, stderr = run(t, vars, "describe", "project", "web", "--library", lib.Dir)
	if code != 0 || !strings.Contains(out, "Byte budget: 200") || !strings.Contains(out, "begin_session") ||
		!strings.Contains(out, "sql-conventions") {
		t.Errorf("describe project: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = run(t, vars, "gate", "preview", "--project", "web", "--library", lib.Dir, "sql")
	if code != 0 || !strings.Contains(out, "Never log secrets") || !strings.Contains(out, "Parameterise every query") {
		t.Errorf("gate preview: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = run(t, vars, "gate", "preview", "--project", "web", "--library", lib.Dir, "--explain", "sql")
	if code != 0 || !strings.Contains(out, "critical") || !strings.Contains(out, "security-policy") ||
		!strings.Contains(out, "sql-conventions") || !strings.Contains(out, "sql ") {
		t.Errorf("gate preview --explain: exit %d\n%s%s", code, out, stderr)
	}
	// Every kind of score part it shows is explained in its header.
	if !strings.Contains(out, `"feedback" is`) {
		t.Errorf("gate preview --explain does not say what feedback is:\n%s", out)
	}

	// Tags begin_session would refuse, the preview refuses: it does not cut them as ranking does.
	for _, tags := range [][]string{
		strings.Fields("a b c d e f g h i j k"),
		{"sql", strings.Repeat("x", 101)},
	} {
		args := append([]string{"gate", "preview", "--project", "web", "--library", lib.Dir, "--explain"}, tags...)
		if code, _, stderr := run(t, vars, args...); code != 2 || !strings.Contains(stderr, "begin_session would refuse") {
			t.Errorf("gate preview %d tags (the last %d long): exit %d, stderr %q; want 2 and why", len(tags), len(tags[len(tags)-1]), code, stderr)
		}
	}

	// A folder the library does not have: every command that needs it says which file names it
	// and what to do.
	gone := projectVars(t, "folder: Mobile App\n")
	for _, args := range [][]string{
		{"describe", "project", "web", "--library", lib.Dir},
		{"gate", "preview", "--project", "web", "--library", lib.Dir, "sql"},
	} { // serve says it in the session (TestServeAProjectItCannotServe)
		code, _, stderr = run(t, gone, args...)
		if code != 1 || !strings.Contains(stderr, `hint: create the folder "Mobile App"`) || !strings.Contains(stderr, "web.yaml") {
			t.Errorf("mcpctl %v with a missing folder: exit %d, stderr %q; want 1, the file and a hint", args, code, stderr)
		}
	}

	bad := projectVars(t, "folder: Web App\nprioritees:\n  x: 3\n")
	code, _, stderr = run(t, bad, "describe", "project", "web", "--library", lib.Dir)
	if code != 1 || !strings.Contains(stderr, "web.yaml") || !strings.Contains(stderr, "line 2") || !strings.Contains(stderr, "prioritees") {
		t.Errorf("invalid project: exit %d, stderr %q; want the file, the line and the field", code, stderr)
	}
}

// writeProjects writes project files by file name into a fresh projects directory.
func writeProjects(tb testing.TB, files map[string]string) map[string]string {
	tb.Helper()
	config := tb.TempDir()
	dir := filepath.Join(config, "mcpctl", "projects")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, yaml := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(yaml), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return map[string]string{"XDG_CONFIG_HOME": config}
}

// One broken project (a folder the library lacks, invalid YAML, a file name that is no project
// name) does not hide the others: get prompts -A lists them, names each broken one on stderr and
// exits 1; get projects shows every file, the broken ones as invalid with the reason, with its
// columns aligned.
func TestBrokenProjectsDoNotHideTheOthers(t *testing.T) {
	t.Chdir(t.TempDir()) // no repository project
	lib := projectLibrary(t)
	vars := writeProjects(t, map[string]string{
		"aaa-bad.yaml":  "folder: [unclosed\n",
		"My Web.yaml":   "folder: Web App\n",
		"personal.yaml": "folder: Personal\n",
		"web.yaml":      "folder: Web App\n",
		"zz-gone.yaml":  "folder: Gone\n",
	})

	code, out, stderr := run(t, vars, "get", "prompts", "-A", "--library", lib.Dir)
	if code != 1 {
		t.Errorf("get prompts -A: exit %d, want 1", code)
	}
	for _, want := range []string{"holiday-packing-list", "security-policy"} {
		if !strings.Contains(out, want) {
			t.Errorf("get prompts -A lacks %s of a good project:\n%s", want, out)
		}
	}
	for _, want := range []string{"project aaa-bad:", "not valid YAML", "project zz-gone:", `hint: create the folder "Gone"`, "My Web.yaml", "rename the file", "listed 2 of 5 projects"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("get prompts -A: stderr lacks %q:\n%s", want, stderr)
		}
	}

	code, out, stderr = run(t, vars, "get", "projects")
	if code != 0 {
		t.Fatalf("get projects: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("get projects: want a header and 5 rows:\n%s", out)
	}
	from := strings.Index(lines[0], "FROM")
	for _, l := range lines[1:] {
		if len(l) < from+len("projects") || l[from:from+len("projects")] != "projects" {
			t.Errorf("get projects: row not aligned under FROM (column %d):\n%s", from, out)
			break
		}
	}
	for _, want := range []string{"aaa-bad ", "(invalid: ", "My Web.yaml", "is not a project name", "zz-gone "} {
		if !strings.Contains(out, want) {
			t.Errorf("get projects lacks %q:\n%s", want, out)
		}
	}
}
