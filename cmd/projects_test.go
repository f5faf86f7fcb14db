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

	code, out, stderr := run(t, vars, "get", "projects")
	if code != 0 || !strings.Contains(out, "web") || !strings.Contains(out, "Web App") {
		t.Errorf("get projects: exit %d\n%s%s", code, out, stderr)
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

	// A folder the library does not have: every command that needs it says which file names it
	// and what to do.
	gone := projectVars(t, "folder: Mobile App\n")
	for _, args := range [][]string{
		{"describe", "project", "web", "--library", lib.Dir},
		{"gate", "preview", "--project", "web", "--library", lib.Dir, "sql"},
		{"serve", "--project", "web", "--library", lib.Dir},
	} {
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
