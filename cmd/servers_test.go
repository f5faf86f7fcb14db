package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/gate"
)

// upstreamYAML is a project with two servers: this test binary serving a library as mcpctl
// (a real MCP server over stdio), and a command that does not exist.
func upstreamYAML(tb testing.TB) string {
	tb.Helper()
	lib := projectLibrary(tb)
	home := tb.TempDir()
	return `servers:
  lib:
    command: ` + os.Args[0] + `
    args: [serve, --library, "` + lib.Dir + `"]
    env: {MCPCTL_BE_MAIN: "1", LOG_LEVEL: error, HOME: "` + home + `", XDG_CACHE_HOME: "` + home + `/cache", SECRET: "${NOT_SHOWN}", TOKEN: "${MCPCTL_TEST_UNSET}"}
    tools: {deny: [delete_*]}
  broken:
    command: /nonexistent/mcp-server
`
}

func TestGetAndDescribeServers(t *testing.T) {
	vars := projectVars(t, upstreamYAML(t))
	vars["NOT_SHOWN"] = "s3cr3t-value"

	code, out, stderr := run(t, vars, "get", "servers", "--project", "web")
	if code != 0 {
		t.Fatalf("get servers: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[0], "LAST ERROR") {
		t.Fatalf("get servers:\n%s", out)
	}
	if f := strings.Fields(lines[1]); f[0] != "broken" || f[2] != "failed" || !strings.Contains(lines[1], "does not exist") {
		t.Errorf("broken server's row: %q", lines[1])
	}
	// mcpctl serves 12 tools; the project denies the two delete_* ones.
	// A server that starts without a variable of its env may still fail its calls: named.
	if f := strings.Fields(lines[2]); f[0] != "lib" || !regexp.MustCompile(` ready +11 +its env uses \$\{MCPCTL_TEST_UNSET\}, unset here`).MatchString(lines[2]) {
		t.Errorf("lib server's row: %q", lines[2])
	}

	code, out, stderr = run(t, vars, "describe", "server", "lib", "--project", "web")
	if code != 0 {
		t.Fatalf("describe server: exit %d: %s", code, stderr)
	}
	// A server that is mcpctl offers the library's resources, under mcpctl's own URIs: they
	// are marked, as serve leaves them out.
	for _, want := range []string{"State:    ready", "TOOLS (11)", "lib__search_prompts", "read-only", "RESOURCES", "prompteka://", "no: mcpctl's own URI",
		"are not served: mcpctl serves their URIs itself",
		"Env:      HOME, LOG_LEVEL, MCPCTL_BE_MAIN, SECRET, TOKEN, XDG_CACHE_HOME (values not shown)",
		"Hint:     set MCPCTL_TEST_UNSET where mcpctl starts"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe server lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "lib__delete_prompt") || strings.Contains(out, "s3cr3t-value") {
		t.Errorf("describe server shows a denied tool or an env value:\n%s", out)
	}

	code, out, _ = run(t, vars, "describe", "server", "broken", "--project", "web")
	if code != 1 || !strings.Contains(out, "State:    failed") || !strings.Contains(out, "does not exist") {
		t.Errorf("describe broken server: exit %d\n%s", code, out)
	}
	code, _, stderr = run(t, vars, "describe", "server", "nope", "--project", "web")
	if code != 1 || !strings.Contains(stderr, `no server "nope"; it has: broken, lib`) {
		t.Errorf("describe unknown server: exit %d: %s", code, stderr)
	}
}

func TestTrustRepositoryProject(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".mcpctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(repo, ".mcpctl", "project.yaml")
	if err := os.WriteFile(file, []byte(upstreamYAML(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_STATE_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}
	t.Chdir(sub)

	// Untrusted: nothing starts, and the command that trusts it is named.
	code, out, stderr := run(t, vars, "get", "servers")
	if code != 0 || !strings.Contains(out, "untrusted") || strings.Contains(out, "ready") || !strings.Contains(stderr, "mcpctl trust "+repo) {
		t.Fatalf("get servers before trust: exit %d\n%s%s", code, out, stderr)
	}

	// get projects lists the repository's project under its name, and says it is not trusted.
	name := gate.RepoProjectName(repo)
	code, out, stderr = run(t, vars, "get", "projects")
	if code != 0 || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(name)+` .* repository, not trusted$`).MatchString(out) ||
		!strings.Contains(stderr, "mcpctl trust "+repo) {
		t.Errorf("get projects before trust: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = run(t, vars, "trust")
	if code != 0 || !strings.Contains(out, "trusted "+file) || !strings.Contains(out, "the project "+name+"\n") ||
		!strings.Contains(out, "lib: "+os.Args[0]+" serve") {
		t.Fatalf("trust: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = run(t, vars, "get", "servers")
	if code != 0 || !strings.Contains(out, " ready ") {
		t.Errorf("get servers after trust: exit %d\n%s", code, out)
	}
	code, out, stderr = run(t, vars, "get", "projects")
	if code != 0 || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(name)+` .* repository$`).MatchString(out) || stderr != "" {
		t.Errorf("get projects after trust: exit %d\n%s%s", code, out, stderr)
	}

	// A changed file is untrusted again.
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# changed\n")
	f.Close()
	code, out, stderr = run(t, vars, "get", "servers")
	if code != 0 || !strings.Contains(out, "untrusted") || !strings.Contains(stderr, "changed since it was trusted") {
		t.Errorf("get servers after a change: exit %d\n%s%s", code, out, stderr)
	}

	// A file that breaks the schema is not trusted.
	os.WriteFile(file, []byte("servers: {x: {args: [a]}}\n"), 0o644)
	if code, _, stderr := run(t, vars, "trust", repo); code != 1 || !strings.Contains(stderr, "missing property 'command'") {
		t.Errorf("trust of an invalid file: exit %d: %s", code, stderr)
	}
}

func TestMCPConfig(t *testing.T) {
	executable = func() (string, error) { return "/opt/mcpctl/bin/mcpctl", nil }
	t.Cleanup(func() { executable = os.Executable })
	vars := projectVars(t, "folder: Web App\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mcp-config"},
			`{"mcpServers":{"mcpctl":{"args":["serve"],"command":"/opt/mcpctl/bin/mcpctl","type":"stdio"}}}`},
		{[]string{"mcp-config", "--project", "web", "--client", "claude-desktop"},
			`{"mcpServers":{"mcpctl-web":{"args":["serve","--project","web"],"command":"/opt/mcpctl/bin/mcpctl"}}}`},
		{[]string{"mcp-config", "--client", "cursor", "--project", "web"},
			`{"mcpServers":{"mcpctl-web":{"args":["serve","--project","web"],"command":"/opt/mcpctl/bin/mcpctl"}}}`},
	}
	for _, tt := range tests {
		code, out, stderr := run(t, vars, tt.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tt.args, code, stderr)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%v: not JSON: %v\n%s", tt.args, err, out)
			continue
		}
		got, _ := json.Marshal(v)
		if string(got) != tt.want {
			t.Errorf("%v:\ngot  %s\nwant %s", tt.args, got, tt.want)
		}
		if !strings.Contains(stderr, "put this in") {
			t.Errorf("%v: stderr does not say where it goes: %q", tt.args, stderr)
		}
	}
	if code, _, stderr := run(t, vars, "mcp-config", "--client", "vscode"); code != 2 || !strings.Contains(stderr, "unknown client") {
		t.Errorf("unknown client: exit %d: %s", code, stderr)
	}
	if code, _, _ := run(t, vars, "mcp-config", "--project", "nope"); code != 1 {
		t.Errorf("unknown project: exit %d, want 1", code)
	}
}

// A server that did not finish initializing is "failed" in get servers, even when a slower
// server is still being waited for while the supervisor restarts the first one: the table once
// read every state after the last wait and showed "starting" next to "did not finish
// initializing". quick gives up after 1 s and is restarted 1 s later; slow is waited for until
// 2.5 s, in the middle of quick's second attempt.
func TestGetServersReportsAFailedStartAsFailed(t *testing.T) {
	vars := projectVars(t, `servers:
  quick:
    command: tail
    args: [-f, /dev/null]
    timeoutMs: 1000
  slow:
    command: tail
    args: [-f, /dev/null]
    timeoutMs: 2500
`)
	code, out, stderr := run(t, vars, "get", "servers", "--project", "web")
	if code != 1 { // none started
		t.Fatalf("get servers: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("get servers:\n%s", out)
	}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); f[4] != "failed" || !strings.Contains(l, "did not finish initializing") {
			t.Errorf("a server that did not initialize, want STATE failed: %q", l)
		}
	}
}

// trust shows where each server runs: a server's cwd: is part of what the user trusts.
func TestTrustShowsEachServersDirectory(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".mcpctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "servers:\n  here: {command: ./tool.sh}\n  rel: {command: ./tool.sh, cwd: tools}\n  abs: {command: ./tool.sh, cwd: /opt/x}\n"
	if err := os.WriteFile(filepath.Join(repo, ".mcpctl", "project.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, map[string]string{"XDG_STATE_HOME": t.TempDir()}, "trust", repo)
	if code != 0 {
		t.Fatalf("trust: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"start these commands in " + repo, "  here: ./tool.sh\n", "  rel: ./tool.sh  (in " + filepath.Join(repo, "tools") + ")\n",
		"  abs: ./tool.sh  (in /opt/x)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("trust output lacks %q:\n%s", want, out)
		}
	}
}
