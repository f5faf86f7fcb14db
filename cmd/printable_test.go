package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// A title, a summary, a tool name a client sent, a server's command or description, a queue's
// failure reason: none may send a control sequence to the terminal of whoever lists them
// ("\x1b[2J" clears the screen, OSC 52 writes the clipboard). The commands show them as "^[".
func TestCommandsShowControlCharacters(t *testing.T) {
	const esc = "\x1b"
	noESC := func(t *testing.T, what, out string) {
		t.Helper()
		if strings.Contains(out, esc) || strings.Contains(out, "\a") {
			t.Errorf("%s writes a raw control character:\n%q", what, out)
		} else if !strings.Contains(out, "^[") {
			t.Errorf("%s does not show the escape as ^[:\n%q", what, out)
		}
	}
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	lib := librarytest.FromLibrary(t, promptlib.Library{Prompts: []promptlib.Prompt{{
		ID: "E0000000-0000-4000-8000-000000000001", Title: "Escape \x1b[31mRed",
		Content: "before \x1b[2J\x1b[H cleared\tafter\n\x1b]0;pwned\a title", CreatedAt: t0, UpdatedAt: t0}}})

	code, out, stderr := run(t, nil, "get", "prompts", "--library", lib.Dir)
	if code != 0 {
		t.Fatalf("get prompts: exit %d: %s", code, stderr)
	}
	noESC(t, "get prompts", out)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 {
		t.Errorf("get prompts: a summary's newline or tab broke the table:\n%s", out)
	}

	vars := projectVars(t, "folder: \"Web \\e[31mApp\"\n")
	code, _, stderr = run(t, vars, "describe", "project", "web", "--library", lib.Dir)
	if code != 1 {
		t.Errorf("describe project with a missing folder: exit %d, want 1", code)
	}
	noESC(t, "describe project's error", stderr)

	state := t.TempDir()
	writeTraffic(t, state, traffic.Event{TS: t0.Time, Session: "aaaa1111", Kind: traffic.KindRequest, Method: "tools/call",
		Name: "x\x1b]52;c;cHduZWQ=\a", Upstream: "up\x1b[2J"})
	code, out, stderr = run(t, map[string]string{"XDG_STATE_HOME": state}, "traffic", "tail")
	if code != 0 {
		t.Fatalf("traffic tail: exit %d: %s", code, stderr)
	}
	noESC(t, "traffic tail", out)

	dir := standaloneLib(t)
	failed := filepath.Join(dir, queue.QueueName, "failed", "bbbbbbbb-0000-4000-8000-000000000001")
	if err := os.WriteFile(failed+".json", []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(failed+".error", []byte("VALIDATION: title \x1b[2Jbad\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = run(t, nil, "queue", "status", "--library", dir)
	if code != 0 {
		t.Fatalf("queue status: exit %d: %s", code, stderr)
	}
	noESC(t, "queue status", out)

	// An upstream's prompts, described from the library above, and a command that does not exist.
	home := t.TempDir()
	vars = projectVars(t, `servers:
  lib:
    command: `+os.Args[0]+`
    args: [serve, --library, "`+lib.Dir+`"]
    env: {MCPCTL_BE_MAIN: "1", LOG_LEVEL: error, HOME: "`+home+`", XDG_CACHE_HOME: "`+home+`/cache"}
  broken:
    command: "/nonexistent/\e[2Jserver"
`)
	code, out, stderr = run(t, vars, "get", "servers", "--project", "web")
	if code != 0 {
		t.Fatalf("get servers: exit %d: %s", code, stderr)
	}
	noESC(t, "get servers", out)
	for _, server := range []string{"lib", "broken"} {
		code, out, stderr = run(t, vars, "describe", "server", server, "--project", "web")
		if code != 0 && (server != "broken" || code != 1) { // a server that failed exits 1
			t.Fatalf("describe server %s: exit %d: %s", server, code, stderr)
		}
		noESC(t, "describe server "+server, out)
	}
}
