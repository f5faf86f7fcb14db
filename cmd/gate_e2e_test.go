package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
)

// projectLibrary is a library with a project folder "Web App" and, outside it, prompts the
// project must never see; plus the mcpctl-system folder.
func projectLibrary(tb testing.TB) *librarytest.Library {
	tb.Helper()
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	other := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000002", Name: "Personal", Position: 1, CreatedAt: t0, UpdatedAt: t0}
	system := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000003", Name: gate.SystemFolder, Position: 2, CreatedAt: t0, UpdatedAt: t0}
	p := func(n int, folder *promptlib.Folder, title, body string) promptlib.Prompt {
		return promptlib.Prompt{ID: "E0000000-0000-4000-8000-00000000000" + string(rune('0'+n)), Title: title, Content: body,
			FolderID: &folder.ID, CreatedAt: t0, UpdatedAt: t0}
	}
	return librarytest.FromLibrary(tb, promptlib.Library{
		Folders: []promptlib.Folder{web, other, system},
		Prompts: []promptlib.Prompt{
			p(1, &web, "Security Policy", "Never log secrets or tokens. Every endpoint checks authorization."),
			p(2, &web, "SQL Conventions", "Use migrations for every schema change.\n\n## Queries\n\nParameterise every query."),
			p(3, &web, "Error Handling", "Wrap errors with context; never swallow them."),
			p(4, &web, "Deploy Checklist", "Run the smoke tests before promoting a canary."),
			p(5, &other, "Holiday Packing List", "Passport, charger, sunscreen."),
		},
	})
}

func writeProject(tb testing.TB, env []string, name, yaml string) {
	tb.Helper()
	var config string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			config = v
		}
	}
	dir := filepath.Join(config, "mcpctl", "projects")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(yaml), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// serveWeb serves projectLibrary as the gated project "web" (webProject).
func serveWeb(tb testing.TB) (*session, *librarytest.Library) {
	tb.Helper()
	lib := projectLibrary(tb)
	env := testHome(tb)
	writeProject(tb, env, "web", webProject)
	return serve(tb, env, "--library", lib.Dir, "--project", "web"), lib
}

const webProject = `folder: Web App
byteBudget: 200
priorities:
  security-policy: 10
  sql-conventions: 8
`

func toolNames(tb testing.TB, s *session) []string {
	tb.Helper()
	res, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	return names
}

// gate preview prints what begin_session returns, down to the tools it says are open (it once
// said "(the library tools)", and left out read_section), the tables of contents it sends for
// prompts too big in full, and the servers it does not start; and describe project shows what
// the client receives at initialize, down to the library's own texts and the note on servers not
// started.
func TestGatePreviewIsBeginSession(t *testing.T) {
	lib := projectLibrary(t)
	// Too big for the budget in full: serve sends its table of contents, and so must the preview.
	var runbook strings.Builder
	for i := range 8 {
		fmt.Fprintf(&runbook, "## Migration step %d\n\n%sVerify the row counts.\n\n", i+1, strings.Repeat(fmt.Sprintf("Run migration batch %d against a copy first. ", i), 30))
	}
	now := time.Now().Unix()
	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('E0000000-0000-4000-8000-000000000009', 'Migration Runbook', ?, 'F0000000-0000-4000-8000-000000000001', NULL, NULL, NULL, ?, ?)`,
		runbook.String(), now, now)
	// The library's own text of a gated session's instructions replaces the built-in one.
	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('E0000000-0000-4000-8000-000000000010', 'Gate Instructions', ?, 'F0000000-0000-4000-8000-000000000003', NULL, NULL, NULL, ?, ?)`,
		"House rules first: call begin_session.\n\n{{prompt_index}}", now, now)
	env := testHome(t)
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	const big = "folder: Web App\nbyteBudget: 2500\nproxyModel: subindex\npriorities:\n  security-policy: 10\n"
	servers := fmt.Sprintf("servers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0])
	writeProject(t, env, "web", big)
	_, sub := repoWithProject(t, "Shop Front", big+servers)
	for _, c := range []struct {
		name, dir string
		args      []string
		want      []string // in the briefing
		not       string   // not in it
	}{
		{"the runbook as its contents", "", []string{"--project", "web"}, []string{"read_section", "Migration step 8"}, "Verify the row counts"},
		// Serve does not start an untrusted repository project's servers: no briefing names them.
		{"an untrusted repository's servers", sub, nil, []string{"search_prompts"}, "db__"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := serveIn(t, c.dir, env, append([]string{"--library", lib.Dir}, c.args...)...)
			var b gate.Result
			s.call(t, "begin_session", map[string]any{"tags": []string{"migrations"}}, &b)
			if c.dir != "" {
				t.Chdir(c.dir)
			}
			code, out, stderr := run(t, vars, append(append([]string{"gate", "preview", "--library", lib.Dir}, c.args...), "migrations")...)
			if code != 0 {
				t.Fatalf("gate preview: exit %d: %s", code, stderr)
			}
			if out != b.Text+"\n" {
				t.Errorf("gate preview printed\n%s\nwhere begin_session returned\n%s", out, b.Text)
			}
			for _, w := range c.want {
				if !strings.Contains(b.Text, w) {
					t.Errorf("the briefing lacks %q:\n%s", w, b.Text)
				}
			}
			if strings.Contains(b.Text, c.not) {
				t.Errorf("the briefing has %q:\n%s", c.not, b.Text)
			}

			code, out, stderr = run(t, vars, append([]string{"describe", "project", "--library", lib.Dir}, c.args[min(1, len(c.args)):]...)...)
			if code != 0 {
				t.Fatalf("describe project: exit %d: %s", code, stderr)
			}
			_, block, _ := strings.Cut(out, "What a client receives at initialize:\n\n")
			block, _, _ = strings.Cut(block, "\n\nPRIORITY")
			if got := strings.ReplaceAll(strings.TrimPrefix(block, "    "), "\n    ", "\n"); got != s.init.Instructions {
				t.Errorf("describe project shows\n%s\nwhere the client received\n%s", got, s.init.Instructions)
			}
			if !strings.Contains(s.init.Instructions, "House rules first") || strings.Contains(s.init.Instructions, "db__") != (c.dir != "") {
				t.Errorf("the instructions lack the library's own text, or name db__ other than for the untrusted repository's note:\n%s", s.init.Instructions)
			}
			// The repository's project names its server, and the command that starts it.
			if servers := "Servers:     db ('mcpctl get servers' starts them"; strings.Contains(out, servers) != (c.dir != "") {
				t.Errorf("describe project: want %q for the project with servers only:\n%s", servers, out)
			}
		})
	}
}

func TestGatedSessionBeginThenRead(t *testing.T) {
	s, _ := serveWeb(t)

	if !strings.Contains(s.init.Instructions, "begin_session") || !strings.Contains(s.init.Instructions, "- sql-conventions:") {
		t.Errorf("instructions lack the gate message or the index:\n%s", s.init.Instructions)
	}
	if strings.Contains(s.init.Instructions, "holiday") {
		t.Error("instructions index a prompt outside the project's folder")
	}
	if got := toolNames(t, s); len(got) != 1 || got[0] != "begin_session" {
		t.Fatalf("gated tools/list = %v, want only begin_session", got)
	}

	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql", "migrations"}}, &b)
	if len(b.Critical) != 1 || b.Critical[0] != "security-policy" {
		t.Errorf("critical = %v, want [security-policy]", b.Critical)
	}
	if len(b.Matched) != 1 || b.Matched[0] != "sql-conventions" {
		t.Errorf("matched = %v, want [sql-conventions]", b.Matched)
	}
	if !strings.Contains(b.Text, "Never log secrets") || !strings.Contains(b.Text, "Parameterise every query") {
		t.Errorf("briefing lacks the prompts in full:\n%s", b.Text)
	}
	if !strings.Contains(b.Text, "- error-handling:") || !strings.Contains(b.Text, "read_prompts") {
		t.Errorf("briefing lacks the remaining index or the encouragement:\n%s", b.Text)
	}
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 5*time.Second)
	after := toolNames(t, s)
	if contains(after, "begin_session") || !contains(after, "read_prompts") || !contains(after, "search_prompts") {
		t.Errorf("ungated tools/list = %v, want the library tools and read_prompts", after)
	}

	var r gate.Result
	s.call(t, "read_prompts", map[string]any{"tags": []string{"errors", "sql"}}, &r)
	if len(r.Matched) != 1 || r.Matched[0] != "error-handling" {
		t.Errorf("read_prompts matched %v, want [error-handling]", r.Matched)
	}
	if !contains(r.AlreadyProvided, "sql-conventions") || strings.Contains(r.Text, "Parameterise every query") {
		t.Errorf("read_prompts re-sent sql-conventions: provided %v\n%s", r.AlreadyProvided, r.Text)
	}

	t.Run("tools are scoped to the project's folder", func(t *testing.T) {
		var found promptsOut
		s.call(t, "search_prompts", map[string]any{"query": "passport"}, &found)
		if found.Total != 0 {
			t.Errorf("search found %d prompts outside the project", found.Total)
		}
		s.callError(t, "get_prompt", map[string]any{"id": "E0000000-0000-4000-8000-000000000005"}, "PROMPT_NOT_FOUND")
		var all promptsOut
		s.call(t, "list_prompts", map[string]any{}, &all)
		if all.Total != 4 {
			t.Errorf("list_prompts total %d, want the project's 4", all.Total)
		}
		var fs foldersOut
		s.call(t, "list_folders", map[string]any{"includeEmpty": true}, &fs)
		if fs.Total != 1 || fs.Folders[0].Name != "Web App" {
			t.Errorf("list_folders = %+v, want only Web App", fs.Folders)
		}
	})
}

func TestGatedSessionInterceptsFirstRealCall(t *testing.T) {
	s, _ := serveWeb(t)

	var found promptsOut
	res := s.call(t, "search_prompts", map[string]any{"query": "canary smoke"}, &found)
	if found.Total != 1 {
		t.Errorf("intercepted search returned %d results, want 1", found.Total)
	}
	if len(res.Content) != 2 {
		t.Fatalf("intercepted call has %d content blocks, want briefing + result", len(res.Content))
	}
	brief, _ := mcp.AsTextContent(res.Content[0])
	if !strings.Contains(brief.Text, "before begin_session") || !strings.Contains(brief.Text, "Never log secrets") {
		t.Errorf("intercept briefing lacks the preamble or the critical rule:\n%s", brief.Text)
	}
	// Claude Code hands the model structuredContent alone when there is one: the briefing is
	// there too, and the text after it is the result's JSON as it would be without it.
	var both struct {
		Briefing string `json:"briefing"`
		Total    int    `json:"total"`
	}
	if err := json.Unmarshal(res.RawStructuredContent, &both); err != nil || both.Briefing != brief.Text || both.Total != 1 {
		t.Errorf("structuredContent has briefing %q (err %v) and total %d; want the briefing and the result", both.Briefing, err, both.Total)
	}
	if rest, _ := mcp.AsTextContent(res.Content[1]); strings.Contains(rest.Text, "briefing") {
		t.Errorf("the result's text carries the briefing again: %.200s", rest.Text)
	}
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 5*time.Second)
	if got := toolNames(t, s); contains(got, "begin_session") || !contains(got, "read_prompts") {
		t.Errorf("after the intercept tools/list = %v, want ungated", got)
	}
	res = s.call(t, "search_prompts", map[string]any{"query": "canary"}, &found)
	if len(res.Content) != 1 || strings.Contains(string(res.RawStructuredContent), `"briefing"`) {
		t.Errorf("second call still carries a briefing (%d blocks): %.100s", len(res.Content), res.RawStructuredContent)
	}
}

// A prompt the call's own result carries in full is not sent in the briefing before it, nor by
// a later briefing: the model has it once.
func TestInterceptDoesNotRepeatWhatTheResultCarries(t *testing.T) {
	s, _ := serveWeb(t)

	const sqlBody = "Parameterise every query"
	var p struct {
		Content string `json:"content"`
	}
	res := s.call(t, "get_prompt", map[string]any{"id": "E0000000-0000-4000-8000-000000000002"}, &p)
	if len(res.Content) != 2 {
		t.Fatalf("intercepted call has %d content blocks, want briefing + result", len(res.Content))
	}
	brief, _ := mcp.AsTextContent(res.Content[0])
	if !strings.Contains(p.Content, sqlBody) {
		t.Fatalf("get_prompt content lacks the body: %q", p.Content)
	}
	if strings.Contains(brief.Text, sqlBody) {
		t.Errorf("the briefing sends the prompt the call's result carries:\n%s", brief.Text)
	}
	if !strings.Contains(brief.Text, "## In this call's result") || !strings.Contains(brief.Text, "- sql-conventions") {
		t.Errorf("the briefing does not name the carried prompt as already provided:\n%s", brief.Text)
	}
	if !strings.Contains(brief.Text, "Never log secrets") {
		t.Errorf("the briefing lacks the critical rule:\n%s", brief.Text)
	}
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)

	wantProvided(t, s, []string{"sql"}, "sql-conventions", sqlBody)
}

// wantProvided calls read_prompts with tags, and fails unless the prompt name is named as
// already provided and its body (a phrase of it) is not sent again.
func wantProvided(tb testing.TB, s *session, tags []string, name, body string) gate.Result {
	tb.Helper()
	var r gate.Result
	s.call(tb, "read_prompts", map[string]any{"tags": tags}, &r)
	if !contains(r.AlreadyProvided, name) || strings.Contains(r.Text, body) {
		tb.Errorf("read_prompts %v re-sent %s, which the session already has: provided %v\n%s", tags, name, r.AlreadyProvided, r.Text)
	}
	return r
}

// An intercepted list with content: the briefing does not list as unsent what the result
// carries, and read_prompts afterwards does not send it.
func TestInterceptedListCarriesItsPrompts(t *testing.T) {
	s, _ := serveWeb(t)

	var all promptsOut
	res := s.call(t, "list_prompts", map[string]any{"includeContent": true}, &all)
	if all.Total != 4 || len(res.Content) != 2 {
		t.Fatalf("intercepted list: %d prompts, %d content blocks; want 4 after a briefing", all.Total, len(res.Content))
	}
	brief, _ := mcp.AsTextContent(res.Content[0])
	if !strings.Contains(brief.Text, "Never log secrets") {
		t.Errorf("the briefing lacks the critical rule:\n%s", brief.Text)
	}
	if strings.Contains(brief.Text, "- error-handling:") {
		t.Errorf("the briefing lists as not sent a prompt the result carries:\n%s", brief.Text)
	}
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)
	wantProvided(t, s, []string{"errors"}, "error-handling", "never swallow them")
}

// In an open session, what list and search results carry in full (includeContent) counts as sent.
func TestReadPromptsSkipsWhatASearchCarried(t *testing.T) {
	s, _ := serveWeb(t)

	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"deploy"}}, &b)
	var found promptsOut
	s.call(t, "search_prompts", map[string]any{"query": "wrap errors", "includeContent": true}, &found)
	if found.Total != 1 {
		t.Fatalf("search found %d prompts, want error-handling", found.Total)
	}
	s.call(t, "search_prompts", map[string]any{"query": "migrations"}, &found) // summaries only
	if found.Total != 1 {
		t.Fatalf("search found %d prompts, want sql-conventions", found.Total)
	}
	r := wantProvided(t, s, []string{"errors", "sql"}, "error-handling", "never swallow them")
	if !contains(r.Matched, "sql-conventions") {
		t.Errorf("read_prompts matched %v: a search that listed sql-conventions without its content counted it as sent", r.Matched)
	}
}

func TestGateTextEditedInTheAppTakesEffect(t *testing.T) {
	s, lib := serveWeb(t)

	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"deploy"}}, &b)
	if !strings.Contains(b.Text, "Do not assume you have all the context") {
		t.Fatalf("default encouragement missing:\n%s", b.Text)
	}
	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, created_at, updated_at)
		VALUES ('E0000000-0000-4000-8000-000000000009', 'Gate Encouragement', 'CUSTOM ENCOURAGEMENT for {{project_name}}.',
		'F0000000-0000-4000-8000-000000000003', 1800000000, 1800000000)`)
	eventually(t, 10*time.Second, "the edited encouragement reaches a briefing", func() bool {
		s.call(t, "begin_session", map[string]any{"tags": []string{"errors"}}, &b)
		return strings.Contains(b.Text, "CUSTOM ENCOURAGEMENT for web.")
	})
	if strings.Contains(b.Text, "Do not assume you have all the context") {
		t.Errorf("the default encouragement is still there beside the edited one:\n%s", b.Text)
	}
}

// A project serve cannot serve (no such file, an invalid one, a folder the library lacks) does
// not stop serve: a client that cannot start it shows "failed to connect" and no reason. The
// session says what is wrong and how to fix it, and serves nothing else: without the project
// the model would work without its rules.
func TestServeAProjectItCannotServe(t *testing.T) {
	lib := projectLibrary(t)
	for _, c := range []struct {
		name, yaml, project string
		want                []string // in the problem
	}{
		{"no such project", "", "nope", []string{`no project "nope"`, "nope.yaml"}},
		{"an unknown field", "folder: Web App\ngatemode: soft\n", "web", []string{"web.yaml", "line 2", "gatemode"}},
		{"a folder the library lacks", "folder: Mobile App\n", "web", []string{"web.yaml", `To fix: create the folder "Mobile App"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testHome(t)
			if c.yaml != "" {
				writeProject(t, env, "web", c.yaml)
			}
			s := serve(t, env, "--library", lib.Dir, "--project", c.project)
			for _, w := range append(c.want, "restart the MCP server") {
				if !strings.Contains(s.init.Instructions, w) {
					t.Errorf("the instructions lack %q:\n%s", w, s.init.Instructions)
				}
			}
			if names := toolNames(t, s); !slices.Equal(names, []string{"health_check"}) {
				t.Errorf("tools/list: %v; want health_check alone", names)
			}
			// Nor the whole library's prompts and resources, where the project sees its folder.
			if prompts, resources := s.allPrompts(t), s.allResourceURIs(t); len(prompts) > 0 || len(resources) > 0 {
				t.Errorf("serves %d prompts and resources %v; want none", len(prompts), resources)
			}
			// begin_session too: a session started for a project calls it first.
			for tool, args := range map[string]map[string]any{"list_prompts": {}, "begin_session": {"tags": []string{"security"}},
				"read_section": {"ref": "security-policy", "section": "1"}} {
				te := s.callError(t, tool, args, "PROJECT_UNAVAILABLE")
				if !strings.Contains(te.Message, c.want[0]) || !strings.Contains(te.Hint, "Tell the user") {
					t.Errorf("%s: %+v; want the problem and to tell the user", tool, te)
				}
			}
			var h mcpserver.HealthResult
			s.call(t, "health_check", map[string]any{}, &h)
			if h.Status != "degraded" || !strings.Contains(h.Project, c.want[0]) {
				t.Errorf("health_check: status %s, project %q; want degraded with the problem", h.Status, h.Project)
			}
			if lines := s.stderr.logLines(t, "the project cannot be served: only health_check is served until it is fixed"); len(lines) != 1 {
				t.Errorf("logged %d times why the project is not served, want once", len(lines))
			}
		})
	}
}

// A first call that fails still carries the briefing: the session is ungated by it, and the
// critical rules would otherwise never reach the model.
func TestGatedSessionBriefsAFailedFirstCall(t *testing.T) {
	s, _ := serveWeb(t)

	// Claude Code passes the model only an error result's first block: the error and the
	// briefing are one, the error's fields first.
	var te toolError
	res := s.call(t, "get_prompt", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}, &te)
	if !res.IsError || te.Error != "PROMPT_NOT_FOUND" || len(res.Content) != 1 {
		t.Fatalf("got isError=%v %s with %d blocks, want PROMPT_NOT_FOUND with its briefing in one block", res.IsError, te.Error, len(res.Content))
	}
	// The error comes first, so the briefing may not say that the result follows it.
	if strings.Contains(te.Briefing, "result follows") || !strings.Contains(te.Briefing, "this answer carries its result") {
		t.Errorf("the briefing of a failed first call places its result wrongly:\n%s", te.Briefing)
	}
	if !strings.Contains(te.Briefing, "Never log secrets") || !strings.HasPrefix(resultText(res), `{"error":"PROMPT_NOT_FOUND"`) {
		t.Errorf("the failed call's error %.80s, briefing lacking the critical rule:\n%s", resultText(res), te.Briefing)
	}
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)
}

// A project's session writes only inside its folder: a prompt saved without a folder lands in
// the project's folder (where the session finds it again), and what lies outside cannot be
// changed through it.
func TestProjectWritesStayInTheProject(t *testing.T) {
	lib := projectLibrary(t)
	marker := filepath.Join(lib.Dir, queue.MarkerName) // a standalone library: the server processes writes
	if err := os.WriteFile(marker, []byte(`{"processor":"mcpctl","version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\ngated: false\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")

	var created struct {
		Status string  `json:"status"`
		ID     *string `json:"id"`
	}
	s.call(t, "create_prompt", map[string]any{"title": "Caching Rules", "content": "Cache only idempotent reads."}, &created)
	if created.Status != "success" || created.ID == nil {
		t.Fatalf("create_prompt: %+v", created)
	}
	var p promptlib.Prompt
	s.call(t, "get_prompt", map[string]any{"id": *created.ID}, &p)
	if p.FolderID == nil || !strings.EqualFold(*p.FolderID, "F0000000-0000-4000-8000-000000000001") {
		t.Errorf("a prompt saved without a folder went to %v, want the project's folder", p.FolderID)
	}
	s.callError(t, "update_prompt", map[string]any{"id": "E0000000-0000-4000-8000-000000000005", "title": "Hijacked"}, "PROMPT_NOT_FOUND")
	s.callError(t, "delete_prompt", map[string]any{"id": "E0000000-0000-4000-8000-000000000005"}, "PROMPT_NOT_FOUND")
	s.callError(t, "update_prompt", map[string]any{"id": *created.ID, "folderId": nil}, "INVALID_INPUT")
	s.callError(t, "create_prompt", map[string]any{"title": "x", "content": "y", "folderId": "F0000000-0000-4000-8000-000000000002"}, "FOLDER_NOT_FOUND")
	s.callError(t, "delete_folder", map[string]any{"id": "F0000000-0000-4000-8000-000000000001", "recursive": true}, "INVALID_INPUT")
	// A prompt tool given an id of the other kind names what it is only inside the project.
	if te := s.callError(t, "update_prompt", map[string]any{"id": "F0000000-0000-4000-8000-000000000002", "title": "x"}, "PROMPT_NOT_FOUND"); strings.Contains(te.Message, "Personal") {
		t.Errorf("update_prompt with a folder outside the project names it: %q", te.Message)
	}
	if te := s.callError(t, "update_prompt", map[string]any{"id": "F0000000-0000-4000-8000-000000000001", "title": "x"}, "PROMPT_NOT_FOUND"); !strings.Contains(te.Message, "the folder 'Web App'") {
		t.Errorf("update_prompt with the project's folder: %q, want it named", te.Message)
	}
	var title string
	if err := lib.Writer.QueryRow(`SELECT title FROM prompts WHERE id = 'E0000000-0000-4000-8000-000000000005'`).Scan(&title); err != nil || title != "Holiday Packing List" {
		t.Errorf("the prompt outside the project is now %q (%v)", title, err)
	}
}

// A project's session restarted on the same library starts from the view its last run kept,
// and what changed while it was stopped is in its first answers.
func TestGatedSessionRestartsFromKeptView(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", webProject)
	first := serve(t, env, "--library", lib.Dir, "--project", "web")
	var before gate.Result
	first.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &before)
	var views string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			views = filepath.Join(v, "mcpctl", "view")
		}
	}
	eventually(t, 20*time.Second, "the project's view is kept", func() bool {
		// A kept view is renamed into place: its temp file (".view-…") is not one yet.
		kept, _ := filepath.Glob(filepath.Join(views, "*.view"))
		return len(kept) > 0
	})
	first.Close()
	first.cmd.Wait()

	// While no server runs, the app renames a prompt of the project.
	lib.Exec(t, `UPDATE prompts SET title = 'Error Handling Rules', updated_at = updated_at + 60 WHERE id = 'E0000000-0000-4000-8000-000000000003'`)
	second := serve(t, env, "--library", lib.Dir, "--project", "web")
	if !strings.Contains(second.init.Instructions, "- error-handling-rules:") || strings.Contains(second.init.Instructions, "- error-handling:") {
		t.Errorf("restarted instructions do not show the rename:\n%s", second.init.Instructions)
	}
	var after gate.Result
	second.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &after)
	if !slices.Equal(after.Critical, before.Critical) || !slices.Equal(after.Matched, before.Matched) {
		t.Errorf("restarted briefing critical %v matched %v, want %v %v", after.Critical, after.Matched, before.Critical, before.Matched)
	}
	// Stderr is copied on its own goroutine, unordered with the answers on stdout.
	eventually(t, 20*time.Second, "the restarted session to log that it started from its kept view", func() bool {
		return strings.Contains(second.stderr.String(), `"msg":"library view restored"`)
	})
}

// begin_session's description carries the index, so a library change that alters it is a
// tools/list change while the session is gated; once it is open begin_session is hidden, and
// the same change alters nothing the client lists.
func TestIndexChangeNotifiesOnlyWhileGated(t *testing.T) {
	s, lib := serveWeb(t)
	rename := func(title string) {
		lib.Exec(t, `UPDATE prompts SET title = ?, updated_at = updated_at + 60 WHERE id = 'E0000000-0000-4000-8000-000000000003'`, title)
	}
	prompts := s.count(mcp.MethodNotificationPromptsListChanged)
	rename("Error Handling Rules")
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)
	tools, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 1 || !strings.Contains(tools.Tools[0].Description, "- error-handling-rules:") {
		t.Fatalf("gated tools/list after a rename: %v %+v, want begin_session describing the renamed prompt", err, tools)
	}
	s.waitNotifications(t, mcp.MethodNotificationPromptsListChanged, prompts+1, 10*time.Second)

	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &b)
	s.waitNotifications(t, mcp.MethodNotificationToolsListChanged, 2, 10*time.Second)
	prompts = s.count(mcp.MethodNotificationPromptsListChanged)
	rename("Error Handling")
	// The gate hears of a new snapshot before the prompt list does, so a tools/list change
	// would arrive before this one.
	s.waitNotifications(t, mcp.MethodNotificationPromptsListChanged, prompts+1, 10*time.Second)
	if n := s.count(mcp.MethodNotificationToolsListChanged); n != 2 {
		t.Errorf("got %d tools/list_changed, want 2 (the rename while gated and the opening): begin_session is hidden once open", n)
	}
}

// TestGatedIndexOverItsCap: a project with more prompts than indexCap, none of them with a
// priority, still names prompts in its index, up to the cap, and says how many it left out
// (issue 9: it listed none, only "… and 161 more").
func TestGatedIndexOverItsCap(t *testing.T) {
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	var prompts []promptlib.Prompt
	for i := range 61 {
		prompts = append(prompts, promptlib.Prompt{ID: fmt.Sprintf("E0000000-0000-4000-8000-%012d", i), Title: fmt.Sprintf("Convention %02d", i),
			Content: fmt.Sprintf("Rule %d.", i), FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0})
	}
	lib := librarytest.FromLibrary(t, promptlib.Library{Folders: []promptlib.Folder{web}, Prompts: prompts})
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\nindexCap: 40\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")

	var named int
	for line := range strings.Lines(s.init.Instructions) {
		if strings.HasPrefix(line, "- convention-") {
			named++
		}
	}
	if named != 40 || !strings.Contains(s.init.Instructions, "- … and 21 more") {
		t.Errorf("the index names %d prompts, want 40 and 21 more:\n%s", named, s.init.Instructions)
	}

	// Longer lines meet the length Claude Code cuts the instructions and descriptions at first.
	for i := range prompts {
		prompts[i].Content = fmt.Sprintf("Rule number %d of the web app, which every change to it follows.", i)
	}
	lib = librarytest.FromLibrary(t, promptlib.Library{Folders: []promptlib.Folder{web}, Prompts: prompts})
	s = serve(t, env, "--library", lib.Dir, "--project", "web")
	tools, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"instructions": s.init.Instructions}
	for _, tl := range tools.Tools {
		texts[tl.Name] = tl.Description
	}
	for name, text := range texts {
		if n := len(utf16.Encode([]rune(text))); n > gate.ClientTextLimit {
			t.Errorf("%s is %d UTF-16 code units long, over the %d a client keeps:\n%s", name, n, gate.ClientTextLimit, text)
		}
	}
	if !strings.Contains(texts["begin_session"], "- convention-00: ") || !strings.Contains(texts["begin_session"], " more: find them with read_prompts") {
		t.Errorf("begin_session's description lacks the start of the index or what it leaves out:\n%s", texts["begin_session"])
	}
}

// TestGatedSessionWeakMatchByName: through the binary, begin_session names a match below the
// relevance floor as a weak match, and read_prompts with its name (longer than a tag may be)
// sends it.
func TestGatedSessionWeakMatchByName(t *testing.T) {
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	p := func(n int, title, body string) promptlib.Prompt {
		return promptlib.Prompt{ID: fmt.Sprintf("E0000000-0000-4000-8000-%012d", n), Title: title, Content: body,
			FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0}
	}
	long := "Release Notes for the Payment Service and its Public Partner API"
	lib := librarytest.FromLibrary(t, promptlib.Library{
		Folders: []promptlib.Folder{web},
		Prompts: []promptlib.Prompt{
			p(1, "SQL Conventions", "Use migrations for every schema change."),
			p(2, "SQL Style", "Keywords in upper case; tables in the plural."),
			p(3, long, strings.Repeat("Write what changed for partners, in their words. ", 30)+"Mention a sql change when there is one."),
		},
	})
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\nbyteBudget: 4000\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")

	name := promptlib.Slug(long)
	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &b)
	if contains(b.Matched, name) || !contains(b.WeakMatches, name) {
		t.Fatalf("matched %v, weak %v: want %s named as a weak match, not sent", b.Matched, b.WeakMatches, name)
	}
	if !strings.Contains(b.Text, "## Weaker matches, not sent") || !strings.Contains(b.Text, "- "+name+":") {
		t.Errorf("the briefing does not name the weak match:\n%s", b.Text)
	}
	s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 5*time.Second)
	var r gate.Result
	s.call(t, "read_prompts", map[string]any{"tags": []string{name}}, &r)
	if len(r.Matched) == 0 || r.Matched[0] != name || !strings.Contains(r.Text, "Write what changed for partners") {
		t.Errorf("read_prompts [%s] matched %v, want it first, in full:\n%s", name, r.Matched, r.Text)
	}
}
