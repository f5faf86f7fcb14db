package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// midBody is a prompt body of about 50 KB: over the default model's 32 KB, under the 100 KB
// every result is bounded to, so only the model in force decides whether it is paged.
func midBody() string {
	var b strings.Builder
	for i := 0; b.Len() < 50<<10; i++ {
		fmt.Fprintf(&b, "## Rule %d\n\n%s\n", i, strings.Repeat("A rule that the team keeps to in every change. ", 20))
	}
	return b.String()
}

// A project whose proxyModel names a model that does not exist (a typo) is served by the
// built-in default, and serve's log says so once: it was served with no model at all, so a
// 50 KB prompt reached the model whole, worse than naming no model. The same goes for a model
// whose file does not parse.
func TestUnknownProxyModelFallsBackToDefault(t *testing.T) {
	for _, c := range []struct{ name, file string }{{"subindx", ""}, {"broken", "stages: [{type: section-split\n"}} {
		t.Run(c.name, func(t *testing.T) {
			lib := projectLibrary(t)
			body := midBody()
			lib.Exec(t, "UPDATE prompts SET body = ? WHERE title = 'SQL Conventions'", body)
			env := testHome(t)
			if c.file != "" {
				writeModelAndStage(t, env, "", "", c.name, c.file)
			}
			writeProject(t, env, "web", "folder: Web App\ngated: false\nproxyModel: "+c.name+"\n")
			s := serve(t, env, "--library", lib.Dir, "--project", "web")
			for range 2 {
				res, err := s.GetPrompt(context.Background(), getPromptRequest("sql-conventions", nil))
				if err != nil || len(res.Messages) == 0 {
					t.Fatalf("prompts/get: %v", err)
				}
				tc, _ := mcp.AsTextContent(res.Messages[0].Content)
				if len(tc.Text) > 16<<10 || !strings.HasPrefix(body, tc.Text[:4<<10]) || !strings.Contains(tc.Text, "read_section") {
					t.Fatalf("a %d-byte prompt under proxyModel %s: %d bytes; want the default's first page and the list of the others", len(body), c.name, len(tc.Text))
				}
			}
			var said int
			for _, line := range strings.Split(s.stderr.String(), "\n") {
				if strings.Contains(line, `"WARN"`) && strings.Contains(line, c.name) && strings.Contains(line, "default serves instead") {
					said++
				}
			}
			if said != 1 {
				t.Errorf("serve's log says %d times that %s gave way to the default, want once", said, c.name)
			}
		})
	}
}

// An override keyed by the name a tool is served under (db__big, what the user sees) applies
// to that tool; it matched nothing, silently, unless keyed db/big.
func TestOverrideByServedToolName(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModelOverrides:\n  db__big: subindex\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	text := resultText(callWhenUp(t, s, "db__big"))
	if len(text) > 4<<10 || strings.HasPrefix(bigRecords(), text[:100]) {
		t.Errorf("db__big under its override: %d bytes starting %.100q; want subindex's index, not the default's first page", len(text), text)
	}
}

// describe project and get projects flag what serve would find wrong with a project's models:
// they printed the name of a model that does not exist as if it were fine.
func TestProjectCommandsFlagModelProblems(t *testing.T) {
	lib := projectLibrary(t)
	const project = "folder: Web App\nproxyModel: subindx\nproxyModelOverrides:\n  fs/read_file: redacted\n  db__big: subindex\nservers:\n  db:\n    command: db-server\n"
	vars := projectVars(t, project)
	models := filepath.Join(vars["XDG_CONFIG_HOME"], "mcpctl", "proxymodels")
	if err := os.MkdirAll(models, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(models, "redacted.yaml"), []byte("stages: [{type: redact}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, vars, "describe", "project", "web", "--library", lib.Dir)
	for _, want := range []string{
		`Warning:     proxyModel: proxymodel "subindx" cannot be used, so the built-in default serves instead`,
		`Warning:     proxyModelOverrides.fs/read_file: proxymodel "redacted" names a stage that cannot run, so content through it is withheld`,
		`Warning:     proxyModelOverrides.fs/read_file: matches no source: "fs" is not a server of this project`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("describe project: exit %d, want %q in\n%s%s", code, want, out, stderr)
		}
	}
	if strings.Contains(out, "db__big") {
		t.Errorf("describe project flags the served name db__big, which applies to db/big:\n%s", out)
	}
	code, out, stderr = run(t, vars, "get", "projects")
	if code != 0 || !strings.Contains(out, "projects (3 warnings)") ||
		!strings.Contains(stderr, `warning: web: proxyModel: proxymodel "subindx" cannot be used`) || !strings.Contains(stderr, "2 more in 'mcpctl describe project web'") {
		t.Errorf("get projects: exit %d\n%s%s", code, out, stderr)
	}
	// A repository's project is described from the repository, not by name.
	_, sub := repoWithProject(t, "Shop Front", project)
	t.Chdir(sub)
	code, out, stderr = run(t, vars, "get", "projects")
	if code != 0 || !strings.Contains(stderr, "warning: shop-front: ") || !strings.Contains(stderr, "2 more in 'mcpctl describe project' in the repository") {
		t.Errorf("get projects in a repository: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr = run(t, vars, "describe", "project", "--library", lib.Dir); code != 0 || strings.Count(out, "Warning:") != 3 {
		t.Errorf("describe project in a repository: exit %d, want its 3 warnings\n%s%s", code, out, stderr)
	}
}

// An invalid config.yaml (the optional LLM settings) does not stop serve: it serves without the
// LLM and its log names the file, the field and the fix. serve exited 1 at start, so a client
// saw only "failed to connect".
func TestServeStartsWithABrokenConfigYAML(t *testing.T) {
	for name, text := range map[string]string{
		"unknown field": "llm:\n  url: http://localhost:11434/v1\n  modle: llama3\n",
		"broken yaml":   "llm: {url: http://localhost:11434/v1, model: x\n",
		"unreadable":    "", // a directory in its place: no field to fix (as root, a chmod 000 file is read anyway)
	} {
		t.Run(name, func(t *testing.T) {
			lib := projectLibrary(t)
			env := testHome(t)
			config := filepath.Join(envValue(env, "XDG_CONFIG_HOME"), "mcpctl")
			if err := os.MkdirAll(config, 0o700); err != nil {
				t.Fatal(err)
			}
			write := func() error { return os.WriteFile(filepath.Join(config, "config.yaml"), []byte(text), 0o600) }
			what, fix := "is not valid", "remove the file"
			if text == "" {
				write = func() error { return os.Mkdir(filepath.Join(config, "config.yaml"), 0o700) }
				what, fix = "cannot be read", "make it readable"
			}
			if err := write(); err != nil {
				t.Fatal(err)
			}
			s := serve(t, env, "--library", lib.Dir)
			var out struct {
				Prompts []any `json:"prompts"`
			}
			s.call(t, "list_prompts", map[string]any{}, &out)
			if len(out.Prompts) == 0 {
				t.Error("list_prompts found nothing")
			}
			lines := s.stderr.logLines(t, "config.yaml "+what+": serving without the LLM (summaries stay deterministic, briefings are not re-ranked)")
			if len(lines) != 1 || !strings.HasSuffix(fmt.Sprint(lines[0]["file"]), "config.yaml") || !strings.Contains(fmt.Sprint(lines[0]["fix"]), fix) {
				t.Fatalf("serve's log about config.yaml: %v", lines)
			}
			if problem := fmt.Sprint(lines[0]["problem"]); name == "unknown field" && !strings.Contains(problem, "llm.modle") {
				t.Errorf("the problem %q does not name the field", problem)
			}
			// health_check says so too: a user asking why briefings are not re-ranked learns it
			// from the model, not only from a log they may never open.
			var health struct {
				Status string `json:"status"`
				LLM    string `json:"llm"`
			}
			s.call(t, "health_check", map[string]any{}, &health)
			if health.Status != "degraded" || !strings.Contains(health.LLM, "config.yaml "+what) || !strings.Contains(health.LLM, fix) {
				t.Errorf("health_check: status %q, llm %q; want degraded, naming the file and the fix", health.Status, health.LLM)
			}
		})
	}
}
