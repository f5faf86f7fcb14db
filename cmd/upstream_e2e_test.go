package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// beUpstream makes the test binary a small upstream MCP server named name: the project's own
// servers in these tests are real child processes speaking MCP over stdio.
func beUpstream(name string) int {
	s := server.NewMCPServer(name, "1", server.WithToolCapabilities(true), server.WithResourceCapabilities(false, true))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text back."), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Also as structuredContent, as servers with typed results answer.
			return mcp.NewToolResultStructured(map[string]string{"echo": req.GetString("text", "")}, name+": "+req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithDescription("A 200 KB JSON array of records.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(bigRecords()), nil
		})
	s.AddTool(mcp.NewTool("huge", mcp.WithDescription("A 20,000-element JSON array, about 1 MB.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(hugeArray()), nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Waits until cancelled."), mcp.WithString("marker", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.WriteFile(req.GetString("marker", "")+".started", nil, 0o600)
			<-ctx.Done()
			os.WriteFile(req.GetString("marker", ""), []byte("cancelled"), 0o600)
			return nil, ctx.Err()
		})
	s.AddResource(mcp.NewResource("test://"+name+"/guide", "guide", mcp.WithMIMEType("text/markdown")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Guide from " + name + "\n\nAlways use the staging database."}}, nil
		})
	for _, doc := range []string{"notes", "runbook"} {
		s.AddResource(mcp.NewResource("test://"+name+"/"+doc, doc, mcp.WithMIMEType("text/plain")),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: doc + " of " + name}}, nil
			})
	}
	// Its answer would race the notifications (mcp-go writes them from another goroutine), and
	// progress after the answer is not forwarded: it waits to be cancelled instead.
	s.AddTool(mcp.NewTool("progress", mcp.WithDescription("Reports progress 500 times as fast as it can, then waits until cancelled.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
				return mcp.NewToolResultError("no progress token"), nil
			}
			for i := 1; i <= 500; i++ {
				// mcp-go refuses a notification while its queue of them is full: send it again.
				for server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
					map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": 500}) != nil {
					runtime.Gosched()
				}
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	addSizeTools(s)
	if os.Getenv("MCPCTL_UPSTREAM_STORM") == "1" {
		// Each list_changed waits for the tools/list it brings, so none is folded into another.
		listed := make(chan struct{}, 1)
		hooks := &server.Hooks{}
		hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) {
			select {
			case listed <- struct{}{}:
			default:
			}
		})
		server.WithHooks(hooks)(s)
		s.AddTool(mcp.NewTool("storm", mcp.WithDescription("Sends tools/list_changed 100 times with nothing changed, each after the last was listed, then adds the tool calm.")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-listed:
				default:
				}
				for range 100 {
					for server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationToolsListChanged), nil) != nil {
						runtime.Gosched() // mcp-go's queue of notifications is full: again
					}
					select {
					case <-listed:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				s.AddTool(mcp.NewTool("calm", mcp.WithDescription("Added after the storm.")),
					func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return mcp.NewToolResultText("calm"), nil
					})
				return mcp.NewToolResultText("stormed"), nil
			})
	}
	if os.Getenv("MCPCTL_UPSTREAM_REVIEW") == "1" {
		reviewExtras(s)
	}
	if mode := os.Getenv("MCPCTL_UPSTREAM_PROMPTS"); mode != "" {
		promptExtras(s, name, mode)
	}
	if os.Getenv("MCPCTL_UPSTREAM_EXTRAS") == "1" {
		if code, stop := upstreamExtras(s, name); stop {
			return code
		}
	}
	// More workers than mcpctl lets one server have calls under way (mcp-go's default is 5).
	stdio := server.NewStdioServer(s)
	server.WithWorkerPoolSize(32)(stdio)
	if err := stdio.Listen(context.Background(), os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// upstreamExtras gives a fake upstream what the tests of collisions and of a server that is
// down need: a prompt, resources and templates that collide with mcpctl's own and with every
// other instance's, a resource naming its process (a new one after a restart), a tool that
// writes to its stderr and one that makes it exit. With MCPCTL_UPSTREAM_DEAD naming a file,
// die creates the file, and while it exists the server exits as it starts: it stays down
// until the test removes it. stop is true when the server must exit with code at once.
func upstreamExtras(s *server.MCPServer, name string) (code int, stop bool) {
	dead := os.Getenv("MCPCTL_UPSTREAM_DEAD")
	if _, err := os.Stat(dead); dead != "" && err == nil {
		fmt.Fprintf(os.Stderr, "%s: cannot start while %s exists\n", name, dead)
		return 3, true
	}
	text := func(uri, text string) []mcp.ResourceContents {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}
	}
	s.AddTool(mcp.NewTool("die", mcp.WithDescription("Exits at once.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if dead != "" {
				os.WriteFile(dead, nil, 0o600)
			}
			fmt.Fprintf(os.Stderr, "%s: dying on request\n", name)
			os.Exit(7)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("note", mcp.WithDescription("Writes the text to stderr."), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, req.GetString("text", ""))
			return mcp.NewToolResultText("noted"), nil
		})
	server.WithPromptCapabilities(true)(s)
	s.AddPrompt(mcp.NewPrompt("checklist", mcp.WithPromptDescription("The checklist of this server.")),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("checklist", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("checklist of "+name))}), nil
		})
	for uri, body := range map[string]string{
		"prompteka://library":  "SHADOWED BY " + name,
		"test://shared/readme": "readme of " + name,
	} {
		s.AddResource(mcp.NewResource(uri, "overlap "+uri),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return text(req.Params.URI, body), nil
			})
	}
	s.AddResource(mcp.NewResource("test://"+name+"/instance", fmt.Sprintf("instance %d", os.Getpid())),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return text(req.Params.URI, fmt.Sprint(os.Getpid())), nil
		})
	for _, tpl := range []string{"test://shared/{doc}", "prompteka://prompt/{id}"} {
		s.AddResourceTemplate(mcp.NewResourceTemplate(tpl, "overlap "+tpl),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return text(req.Params.URI, req.Params.URI+" of "+name), nil
			})
	}
	return 0, false
}

// callWhenUp calls an upstream tool without arguments until its server is up and it answers.
func callWhenUp(tb testing.TB, s *session, name string) *mcp.CallToolResult {
	tb.Helper()
	var res *mcp.CallToolResult
	eventually(tb, 20*time.Second, name+" answers", func() bool {
		var err error
		res, err = callTool(context.Background(), s.Client, name, map[string]any{}, nil)
		return err == nil && !res.IsError
	})
	return res
}

// readSections reads every top-level section a transformed result's _meta["mcpctl/sections"]
// names, with read_section, and returns its ref and their texts joined.
func readSections(tb testing.TB, s *session, res *mcp.CallToolResult) (ref, joined string) {
	tb.Helper()
	if res.Meta == nil {
		tb.Fatal("the result has no _meta")
	}
	meta, _ := json.Marshal(res.Meta.AdditionalFields["mcpctl/sections"])
	var table struct {
		Ref      string `json:"ref"`
		Sections []struct {
			ID string `json:"id"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(meta, &table); err != nil || table.Ref == "" || len(table.Sections) == 0 {
		tb.Fatalf("_meta mcpctl/sections: %s (%v)", meta, err)
	}
	var b strings.Builder
	for _, sec := range table.Sections {
		var out struct {
			Content string `json:"content"`
		}
		s.call(tb, "read_section", map[string]any{"ref": table.Ref, "section": sec.ID}, &out)
		b.WriteString(out.Content)
	}
	return table.Ref, b.String()
}

// bigRecords is a 200 KB JSON array of objects, the kind of result that floods a context.
func bigRecords() string {
	type rec struct {
		ID     int    `json:"id"`
		Name   string `json:"name"`
		Email  string `json:"email"`
		Status string `json:"status"`
		Notes  string `json:"notes"`
	}
	var recs []rec
	for i := 0; len(recs) < 1400; i++ {
		recs = append(recs, rec{ID: i, Name: fmt.Sprintf("Customer %d", i), Email: fmt.Sprintf("c%d@example.com", i), Status: []string{"active", "paused", "closed"}[i%3],
			Notes: strings.Repeat("note ", 10)})
	}
	b, _ := json.Marshal(recs)
	return string(b)
}

// hugeArray is a JSON array of 20,000 small objects, about 850 KB: subindex makes it ranges of
// ranges of elements, each range of elements read whole in one call.
func hugeArray() string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 20_000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","ok":%v}`, i, i, i%2 == 0)
	}
	b.WriteString("]")
	return b.String()
}

// upstreamProject is a project with two upstream servers, both this test binary.
func upstreamProject(tb testing.TB, env []string, mode string) {
	tb.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "folder: Web App\ngateMode: %s\nservers:\n", mode)
	for _, name := range []string{"db", "docs"} {
		fmt.Fprintf(&b, "  %s:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: %q}\n    timeoutMs: 20000\n", name, os.Args[0], name)
	}
	writeProject(tb, env, "web", b.String())
}

func TestUpstreamsBehindTheGate(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	upstreamProject(t, env, "hard")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	if got := toolNames(t, s); strings.Join(got, ",") != "begin_session" {
		t.Fatalf("gated: tools %v, want only begin_session", got)
	}
	s.call(t, "begin_session", map[string]any{"tags": []string{"database"}}, nil)
	var tools map[string]mcp.Tool
	eventually(t, 20*time.Second, "both servers' tools are listed", func() bool {
		res, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		tools = map[string]mcp.Tool{}
		for _, tl := range res.Tools {
			tools[tl.Name] = tl
		}
		return tools["db__echo"].Name != "" && tools["docs__echo"].Name != ""
	})
	if req := tools["db__echo"].InputSchema.Required; len(req) != 1 || req[0] != "text" {
		t.Errorf("db__echo's schema: %+v, want the upstream's", tools["db__echo"].InputSchema)
	}
	for _, name := range []string{"db", "docs"} {
		res, err := callTool(context.Background(), s.Client, name+"__echo", map[string]any{"text": "hi"}, nil)
		if err != nil || res.IsError || resultText(res) != name+": hi" {
			t.Errorf("%s__echo: %v %v %q", name, err, res, resultText(res))
		}
	}
	var h mcpserver.HealthResult
	s.call(t, "health_check", map[string]any{}, &h)
	if len(h.Upstreams) != 2 || h.Upstreams[0].State != "ready" || h.Upstreams[0].Tools != 11 {
		t.Errorf("health upstreams: %+v", h.Upstreams)
	}
}

// An upstream's resources arrive together, and the client hears of them once: one
// resources/list_changed per server that came up, not one per resource.
func TestUpstreamResourcesNotifyOnce(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	upstreamProject(t, env, "soft")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	eventually(t, 20*time.Second, "both servers' resources are listed", func() bool {
		res, err := s.ListResources(context.Background(), mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range res.Resources {
			if strings.HasPrefix(r.URI, "test://") {
				n++
			}
		}
		return n == 6
	})
	// Notifications are written apart from responses: a round trip after the listing lets any
	// sent with the resources arrive first. (Not Ping: on a modern connection mcp-go's Ping
	// sends nothing.)
	if _, err := s.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	n := 0
	for _, m := range s.notifications {
		if m.Method == string(mcp.MethodNotificationResourcesListChanged) {
			n++
		}
	}
	s.mu.Unlock()
	if n < 1 || n > 2 {
		t.Errorf("%d resources/list_changed notifications for two servers of three resources each, want one per server at most (and at least one)", n)
	}
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// firstUpstreamCall serves the soft-mode upstream project and makes the session's first call,
// to tool, once its server is up: the call the gate intercepts.
func firstUpstreamCall(t *testing.T, tool string, args map[string]any) (*session, *mcp.CallToolResult) {
	t.Helper()
	lib := projectLibrary(t)
	env := testHome(t)
	upstreamProject(t, env, "soft")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	var res *mcp.CallToolResult
	eventually(t, 20*time.Second, tool+" answers", func() bool {
		var err error
		res, err = callTool(context.Background(), s.Client, tool, args, nil)
		return err == nil && !strings.Contains(resultText(res), "UPSTREAM_UNAVAILABLE") && !strings.Contains(resultText(res), "no tool")
	})
	return s, res
}

// Skipping begin_session in soft mode, a first call to an upstream tool runs and carries the
// briefing before its result.
func TestUpstreamCallIsIntercepted(t *testing.T) {
	s, res := firstUpstreamCall(t, "db__echo", map[string]any{"text": "sql queries"})
	if len(res.Content) < 2 {
		t.Fatalf("got %d contents, want the briefing then the result", len(res.Content))
	}
	first, _ := mcp.AsTextContent(res.Content[0])
	last, _ := mcp.AsTextContent(res.Content[len(res.Content)-1])
	if !strings.Contains(first.Text, `<prompt name="sql-conventions">`) || last.Text != "db: sql queries" {
		t.Errorf("briefing %q, result %q", first.Text, last.Text)
	}
	// Claude Code hands the model structuredContent alone when there is one: the result has
	// none, so the briefing reaches it. The next call's result is the server's as it came.
	if res.StructuredContent != nil || len(res.RawStructuredContent) > 0 {
		t.Errorf("the intercepted result keeps structuredContent %v %s, which hides the briefing", res.StructuredContent, res.RawStructuredContent)
	}
	res, err := callTool(context.Background(), s.Client, "db__echo", map[string]any{"text": "again"}, nil)
	if err != nil || string(res.RawStructuredContent) != `{"echo":"again"}` {
		t.Errorf("the next call: %v, structuredContent %s; want the server's", err, res.RawStructuredContent)
	}
}

// A first call whose result carries 400 KB of audio (base64) keeps it beside the briefing: the
// bound they share is on text. It was RESULT_TOO_LARGE, with "call the tool again".
func TestInterceptedAudioStaysBesideTheBriefing(t *testing.T) {
	_, res := firstUpstreamCall(t, "docs__screenshot", map[string]any{"kind": "audio"})
	if res.IsError || len(res.Content) != 3 {
		t.Fatalf("error %v, %d blocks; want the briefing, the text and the recording: %.300s", res.IsError, len(res.Content), resultText(res))
	}
	first, _ := mcp.AsTextContent(res.Content[0])
	if _, ok := res.Content[2].(mcp.AudioContent); !ok || !strings.Contains(first.Text, "before begin_session") {
		t.Errorf("blocks %T, %T, %T; want the briefing first and the recording last", res.Content[0], res.Content[1], res.Content[2])
	}
}

// A killed upstream answers UPSTREAM_UNAVAILABLE, comes back, and works again; a cancelled
// call is cancelled upstream; no child outlives serve.
func TestUpstreamDiesAndComesBack(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	upstreamProject(t, env, "soft")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	pid := func(name string) int {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		for _, u := range h.Upstreams {
			if u.Name == name && u.State == "ready" {
				return u.PID
			}
		}
		return 0
	}
	var first int
	eventually(t, 20*time.Second, "db is ready", func() bool { first = pid("db"); return first != 0 })
	s.call(t, "begin_session", map[string]any{"tags": []string{"x"}}, nil)

	marker := filepath.Join(t.TempDir(), "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, s.Client, "db__slow", map[string]any{"marker": marker}, nil)
		done <- err
	}()
	eventually(t, 20*time.Second, "the slow call reaches the upstream", func() bool {
		_, err := os.Stat(marker + ".started")
		return err == nil
	})
	cancel()
	<-done
	eventually(t, 20*time.Second, "the upstream sees the cancellation", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})

	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		for _, u := range h.Upstreams {
			if u.Name == "db" {
				return string(u.State)
			}
		}
		return ""
	}
	eventually(t, 20*time.Second, "the supervisor sees db die", func() bool { return state() == "failed" })
	// Failed, it waits a second before its restart: a call now waits for the restart, within
	// its timeout, and is answered by the new process (README).
	res, err := callTool(context.Background(), s.Client, "db__echo", map[string]any{"text": "x"}, nil)
	if err != nil || res.IsError || resultText(res) != "db: x" {
		t.Errorf("a call while db restarts: %v %q, want it answered once db is back", err, resultText(res))
	}
	if p := pid("db"); p == 0 || p == first {
		t.Errorf("after the call db has pid %d (was %d), want a new process", p, first)
	}
	second, docs := pid("db"), pid("docs")
	s.Close()
	s.cmd.Wait()
	for _, p := range []int{second, docs} {
		eventually(t, 10*time.Second, fmt.Sprintf("upstream %d is gone after serve ended", p), func() bool {
			return syscall.Kill(p, 0) != nil
		})
	}
}

// A repository's .mcpctl/project.yaml is found from a subdirectory; its servers start only once
// the file is trusted, and again only after a changed file is trusted again.
func TestRepoProjectNeedsTrust(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	repo := t.TempDir()
	sub := filepath.Join(repo, "src", "app")
	if err := os.MkdirAll(filepath.Join(repo, ".mcpctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(repo, ".mcpctl", "project.yaml")
	write := func(extra string) {
		text := fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n%s", os.Args[0], extra)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	started := func(s *session) (bool, string) {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		return len(h.Upstreams) > 0, h.Untrusted
	}

	s := serveIn(t, sub, env, "--library", lib.Dir)
	if up, why := started(s); up || !strings.Contains(why, "mcpctl trust") {
		t.Errorf("untrusted: servers started %v, reason %q", up, why)
	}
	s.Close()
	if code := Main(context.Background(), []string{"trust", sub}, nil, io.Discard, io.Discard, envGetter(env)); code != 0 {
		t.Fatalf("mcpctl trust: exit %d", code)
	}
	s = serveIn(t, sub, env, "--library", lib.Dir)
	if up, why := started(s); !up || why != "" {
		t.Errorf("trusted: servers started %v, reason %q", up, why)
	}
	s.Close()
	write("    timeoutMs: 9000\n")
	s = serveIn(t, sub, env, "--library", lib.Dir)
	if up, why := started(s); up || why == "" {
		t.Errorf("changed after trust: servers started %v, reason %q", up, why)
	}
}

// An mcpctl serve that is one of a repository project's servers runs in the repository: it must
// not serve that project again, or its servers would start it again, without end (a reviewer saw
// 14 processes in 2.5 s). Projects named with --project that serve each other stop where one
// comes round again.
func TestProjectServerThatIsMcpctlDoesNotRecurse(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".mcpctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	// serverArgs is a project whose one server, lib, is this mcpctl serving lib with args.
	serverArgs := func(args string) string {
		return fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  lib:\n    command: %q\n    args: [serve, %s--library, %q]\n    env: {MCPCTL_BE_MAIN: \"1\"}\n    timeoutMs: 20000\n",
			os.Args[0], args, lib.Dir)
	}
	if err := os.WriteFile(filepath.Join(repo, ".mcpctl", "project.yaml"), []byte(serverArgs("")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Main(context.Background(), []string{"trust", repo}, nil, io.Discard, io.Discard, envGetter(env)); code != 0 {
		t.Fatalf("mcpctl trust: exit %d", code)
	}
	// The project's server answers for the whole library, with no project and no servers.
	h, _ := healthThrough(t, serveIn(t, repo, env, "--library", lib.Dir), "lib__")
	if len(h.Upstreams) != 0 || h.Untrusted != "" {
		t.Errorf("the project's mcpctl server has servers %+v (untrusted %q); want none: it serves no project", h.Upstreams, h.Untrusted)
	}

	// Named explicitly, a cycle of projects stops where a project comes round again: web's
	// server serves ops, whose server serves web, which starts no servers and says why.
	writeProject(t, env, "web", serverArgs("--project, ops, "))
	writeProject(t, env, "ops", serverArgs("--project, web, "))
	h, tools := healthThrough(t, serve(t, env, "--library", lib.Dir, "--project", "web"), "lib__lib__")
	if slices.ContainsFunc(tools, func(tl mcp.Tool) bool { return strings.HasPrefix(tl.Name, "lib__lib__lib__") }) {
		t.Error("the cycle went round more than once")
	}
	if len(h.Upstreams) != 0 || !strings.Contains(h.Untrusted, "would loop") {
		t.Errorf("web served by ops's server: servers %+v, untrusted %q; want none, and why", h.Upstreams, h.Untrusted)
	}

	// A project chosen by MCPCTL_PROJECT is this serve's choice, not its servers': an mcpctl
	// serve among them serves the library its spec names, not the project again.
	writeProject(t, env, "web", serverArgs(""))
	h, _ = healthThrough(t, serve(t, append(slices.Clone(env), "MCPCTL_PROJECT=web"), "--library", lib.Dir), "lib__")
	if len(h.Upstreams) != 0 || h.Untrusted != "" {
		t.Errorf("web's server, with MCPCTL_PROJECT=web in mcpctl's environment: servers %+v, untrusted %q; want the plain library", h.Upstreams, h.Untrusted)
	}
}

// healthThrough waits until s lists prefix+"health_check" (a project server's, or its server's)
// and returns what it answers, with the tools s listed.
func healthThrough(t *testing.T, s *session, prefix string) (mcpserver.HealthResult, []mcp.Tool) {
	t.Helper()
	ctx := context.Background()
	name := prefix + "health_check"
	var tools []mcp.Tool
	eventually(t, 30*time.Second, name+" is listed", func() bool {
		res, err := s.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		tools = res.Tools
		return slices.ContainsFunc(tools, func(tl mcp.Tool) bool { return tl.Name == name })
	})
	res, err := callTool(ctx, s.Client, name, map[string]any{}, nil)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %v", name, err, res)
	}
	var h mcpserver.HealthResult
	if err := json.Unmarshal([]byte(resultText(res)), &h); err != nil {
		t.Fatalf("%s: %v in %q", name, err, resultText(res))
	}
	return h, tools
}

// envGetter reads a test environment list as Getenv does.
func envGetter(env []string) func(string) string {
	return func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
}

// A linked prompt delivers its upstream resource; a link to a server the project lacks is dead
// and says so.
func TestLinkedPrompts(t *testing.T) {
	lib := projectLibrary(t)
	lib.Exec(t, `UPDATE prompts SET url = 'mcp+docs:test://docs/guide' WHERE title = 'Deploy Checklist'`)
	lib.Exec(t, `UPDATE prompts SET url = 'mcp+nowhere:test://x' WHERE title = 'Error Handling'`)
	env := testHome(t)
	upstreamProject(t, env, "soft")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	var p mcpserver.PromptResult
	eventually(t, 20*time.Second, "the linked prompt shows the upstream's guide", func() bool {
		s.call(t, "get_prompt", map[string]any{"id": "E0000000-0000-4000-8000-000000000004"}, &p)
		return p.LinkStatus == "ok"
	})
	if !strings.Contains(p.Content, "Always use the staging database") {
		t.Errorf("linked content: %q", p.Content)
	}
	s.call(t, "get_prompt", map[string]any{"id": "E0000000-0000-4000-8000-000000000003"}, &p)
	if p.LinkStatus != "dead" || p.LinkError == nil || !strings.Contains(*p.LinkError, "nowhere") {
		t.Errorf("dead link: %s %v", p.LinkStatus, p.LinkError)
	}
}

// A 200 KB upstream result reaches the client as the subindex model's index, and every section
// comes back exactly through read_section: the leaves in order are the original.
func TestUpstreamResultThroughThePipeline(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModel: subindex\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	if !slicesContains(toolNames(t, s), "read_section") {
		t.Fatalf("read_section is not listed with subindex in force: %v", toolNames(t, s))
	}
	res := callWhenUp(t, s, "db__big")
	text := resultText(res)
	original := bigRecords()
	if len(text) > 8<<10 || len(original) < 190<<10 {
		t.Fatalf("the index is %d bytes for a %d-byte result, want at most 8 KB", len(text), len(original))
	}
	t.Logf("db__big: %d bytes → %d bytes", len(original), len(text))
	ref, joined := readSections(t, s, res)
	if joined != original {
		t.Errorf("the top-level sections joined give %d bytes, want the original %d exactly", len(joined), len(original))
	}
	s.callError(t, "read_section", map[string]any{"ref": ref, "section": "no-such-section"}, "INVALID_INPUT")

	// The same result again is a cache hit, and its traffic event says so.
	if _, err := callTool(context.Background(), s.Client, "db__big", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	var hits []bool
	for _, e := range stoppedTraffic(t, s, env) {
		if e.Kind == traffic.KindResponse && e.Name == "db__big" && e.Pipeline != nil {
			hits = append(hits, e.Pipeline.CacheHit)
			if e.Pipeline.Model != "subindex" || e.Pipeline.BytesBefore != len(original) || e.Pipeline.BytesAfter >= 8<<10 {
				t.Errorf("pipeline event: %+v", e.Pipeline)
			}
		}
	}
	if len(hits) != 2 || hits[0] || !hits[1] {
		t.Errorf("db__big's pipeline cache hits: %v, want a miss then a hit", hits)
	}
}

// A 1 MB upstream result stays within the result bound end to end: its _meta table is about the
// index's size, a top-level range answers read_section with the table of its ranges, and a
// range of elements, sized to be read whole, comes back exactly in one call.
func TestUpstreamHugeResultStaysBounded(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModel: subindex\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	res := callWhenUp(t, s, "db__huge")
	original := hugeArray()
	meta, _ := json.Marshal(res.Meta.AdditionalFields["mcpctl/sections"])
	t.Logf("db__huge: %d bytes → index %d bytes, _meta %d bytes", len(original), len(resultText(res)), len(meta))
	var table struct {
		Ref      string `json:"ref"`
		Omitted  int    `json:"omitted"`
		Sections []struct {
			ID       string            `json:"id"`
			Bytes    int               `json:"bytes"`
			Parts    int               `json:"parts"`
			Children []json.RawMessage `json:"children"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(meta, &table); err != nil || table.Ref == "" || len(table.Sections) == 0 {
		t.Fatalf("_meta mcpctl/sections: %.500s (%v)", meta, err)
	}
	first := table.Sections[0]
	if len(meta) > 20_000 || table.Omitted < 20_000 || first.Parts+len(first.Children) == 0 {
		t.Errorf("_meta mcpctl/sections is %d bytes, omitted %d, section 1 parts %d; want at most 20 KB, its 20,000 elements left out", len(meta), table.Omitted, first.Parts)
	}
	var page struct {
		Content  string `json:"content"`
		Bytes    int    `json:"bytes"`
		Pages    int    `json:"pages"`
		Sections []struct {
			ID    string `json:"id"`
			Bytes int    `json:"bytes"`
		} `json:"sections"`
	}
	r := s.call(t, "read_section", map[string]any{"ref": table.Ref, "section": first.ID}, &page)
	if n := len(resultText(r)); n > mcpserver.MaxResultBytes/2 || page.Bytes != first.Bytes || len(page.Sections) == 0 {
		t.Fatalf("read_section %s: %d bytes of text, bytes %d, %d sub-sections; want the table of its %d-byte section", first.ID, n, page.Bytes, len(page.Sections), first.Bytes)
	}
	var leaf struct {
		Content string `json:"content"`
		Pages   int    `json:"pages"`
	}
	s.call(t, "read_section", map[string]any{"ref": table.Ref, "section": page.Sections[0].ID}, &leaf)
	if leaf.Pages != 1 || len(leaf.Content) != page.Sections[0].Bytes || !strings.HasPrefix(original, leaf.Content) || !strings.Contains(leaf.Content, `"name":"item-0"`) {
		t.Errorf("read_section %s: %d bytes in %d pages, want its %d bytes, the first elements as they stand, whole", page.Sections[0].ID, len(leaf.Content), leaf.Pages, page.Sections[0].Bytes)
	}
	s.callError(t, "read_section", map[string]any{"ref": table.Ref, "section": first.ID, "page": page.Pages + 1}, "INVALID_INPUT")
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// No upstream outlives a serve that is killed outright (SIGKILL: no cleanup runs in serve).
func TestNoUpstreamOutlivesAKilledServe(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	upstreamProject(t, env, "soft")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	var pids []int
	eventually(t, 20*time.Second, "both upstreams run", func() bool {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		pids = pids[:0]
		for _, u := range h.Upstreams {
			if u.State == "ready" {
				pids = append(pids, u.PID)
			}
		}
		return len(pids) == 2
	})
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.cmd.Wait()
	for _, p := range pids {
		eventually(t, 10*time.Second, fmt.Sprintf("upstream %d is gone after serve was killed", p), func() bool {
			return syscall.Kill(p, 0) != nil
		})
	}
}

// With subindex in force, matched prompts that together pass the budget reach the briefing as
// tables of contents, listed in the result's tableOfContents; read_section gives each part back
// exactly, and read_prompts with the same tags names them as already provided instead of
// sending the same contents again.
func TestBriefingTablesOfContents(t *testing.T) {
	lib := projectLibrary(t)
	bodies := map[string]string{}
	for i, title := range []string{"Deploy Runbook", "Deploy Rollback Guide", "Deploy Canary Checks"} {
		var b strings.Builder
		b.WriteString("# " + title + "\n\n")
		for part := 1; part <= 5; part++ {
			fmt.Fprintf(&b, "## Step %d of the deploy\n\n%s\n\n", part, strings.Repeat(fmt.Sprintf("Check deploy metric %d before promoting the canary. ", part), 40))
		}
		id := fmt.Sprintf("E1000000-0000-4000-8000-00000000000%d", i)
		bodies[id] = b.String()
		lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
			VALUES (?, ?, ?, 'F0000000-0000-4000-8000-000000000001', NULL, NULL, NULL, 1700000000, 1700000000)`, id, title, b.String())
	}
	total := 0
	for _, b := range bodies {
		total += len(b)
	}
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\nproxyModel: subindex\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	var res gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"deploy", "canary"}}, &res)
	blocks := regexp.MustCompile(`(?s)<prompt name="([^"]+)" toc="true">\n(.*?)\n</prompt>`).FindAllStringSubmatch(res.Text, -1)
	if len(blocks) != 3 || total < 30<<10 {
		t.Fatalf("%d tables of contents for 3 prompts of %d bytes in all; briefing:\n%s", len(blocks), total, res.Text)
	}
	names := []string{"deploy-canary-checks", "deploy-rollback-guide", "deploy-runbook"}
	if got := slices.Sorted(slices.Values(res.TableOfContents)); !slices.Equal(got, names) {
		t.Errorf("tableOfContents %q, want %q", got, names)
	}
	t.Logf("briefing: %d bytes for %d bytes of matched prompts", len(res.Text), total)
	if len(res.Text) > 8192+4096 { // the budget, plus the gate's own texts
		t.Errorf("briefing is %d bytes", len(res.Text))
	}
	ids := regexp.MustCompile(`(?m)^\s*- (\d+(?:\.\d+)*) `)
	refs := regexp.MustCompile(`ref: ([0-9a-f]{32})`)
	found := map[string]bool{}
	for _, b := range blocks {
		ref := refs.FindStringSubmatch(b[2])
		if ref == nil {
			t.Fatalf("%s: no ref in\n%s", b[1], b[2])
		}
		var all []string
		for _, m := range ids.FindAllStringSubmatch(b[2], -1) {
			all = append(all, m[1])
		}
		var joined strings.Builder
		for _, id := range all {
			leaf := true
			for _, other := range all {
				if strings.HasPrefix(other, id+".") {
					leaf = false
				}
			}
			if !leaf {
				continue
			}
			var out struct {
				Content string `json:"content"`
			}
			s.call(t, "read_section", map[string]any{"ref": ref[1], "section": id}, &out)
			joined.WriteString(out.Content)
		}
		for id, body := range bodies {
			if joined.String() == body {
				found[id] = true
			}
		}
	}
	if len(found) != 3 {
		t.Errorf("the leaves read back reproduce %d of the 3 prompts exactly", len(found))
	}
	var again gate.Result
	s.call(t, "read_prompts", map[string]any{"tags": []string{"deploy", "canary"}}, &again)
	if strings.Contains(again.Text, "<prompt") || len(again.TableOfContents)+len(again.Matched) != 0 {
		t.Errorf("read_prompts with the same tags sends again: matched %q, tableOfContents %q:\n%s", again.Matched, again.TableOfContents, again.Text)
	}
	for _, n := range names {
		if !slices.Contains(again.AlreadyProvided, n) || !strings.Contains(again.Text, "- "+n+": its table of contents only") {
			t.Errorf("read_prompts: alreadyProvided %q, want %s in it, said to be a table of contents:\n%s", again.AlreadyProvided, n, again.Text)
		}
	}

	// The traffic log counts the tables of contents as matched and sent (beside the library's
	// own deploy prompt, sent in full), the second time as matched and already held.
	var got []string
	for _, e := range stoppedTraffic(t, s, env) {
		if e.Kind == traffic.KindResponse && e.Gate != nil {
			got = append(got, fmt.Sprintf("%s matched %d sent %d", e.Name, e.Gate.Matched, e.Gate.Sent))
		}
	}
	want := []string{"begin_session matched 4 sent 4", "read_prompts matched 4 sent 0"}
	if !slices.Equal(got, want) {
		t.Errorf("traffic gate events %q, want %q", got, want)
	}
}

// serveDB serves the project web, ungated, whose one server db is this test binary as an
// upstream (beUpstream), with more of db's env (", KEY: value") and more of its YAML (lines
// "    key: value\n").
func serveDB(tb testing.TB, env, yaml string) *session {
	tb.Helper()
	lib := projectLibrary(tb)
	home := testHome(tb)
	writeProject(tb, home, "web", fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db%s}\n%s", os.Args[0], env, yaml))
	return serve(tb, home, "--library", lib.Dir, "--project", "web")
}

// extrasProject is a project of servers that are this test binary with its extras
// (upstreamExtras), each with env added.
func extrasProject(tb testing.TB, env []string, servers map[string]string) {
	tb.Helper()
	var b strings.Builder
	b.WriteString("folder: Web App\ngated: false\nservers:\n")
	for _, name := range sortedKeys(servers) {
		fmt.Fprintf(&b, "  %s:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: %q, MCPCTL_UPSTREAM_EXTRAS: \"1\"%s}\n    timeoutMs: 20000\n", name, os.Args[0], name, servers[name])
	}
	writeProject(tb, env, "web", b.String())
}

// resourcesOf lists every resource and template s serves, following every page.
func resourcesOf(t *testing.T, s *session) ([]mcp.Resource, []mcp.ResourceTemplate) {
	t.Helper()
	ctx := context.Background()
	var rs []mcp.Resource
	var req mcp.ListResourcesRequest
	for {
		res, err := s.ListResources(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, res.Resources...)
		if res.NextCursor == "" {
			break
		}
		req.Params.Cursor = res.NextCursor
	}
	ts, err := s.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return rs, ts.ResourceTemplates
}

// readText reads uri and returns its text, or the error's message.
func readText(s *session, uri string) (string, error) {
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	res, err := s.ReadResource(context.Background(), req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Contents {
		if tc, ok := c.(mcp.TextResourceContents); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

// leftOut is what the server's log says was left out: server → URIs, each line counted.
func leftOut(t *testing.T, s *session) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var m struct {
			Msg    string   `json:"msg"`
			Server string   `json:"server"`
			URIs   []string `json:"uris"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && strings.HasPrefix(m.Msg, "upstream resources left out") {
			out[m.Server] = append(out[m.Server], m.URIs...)
		}
	}
	return out
}

// logSync makes sure every line the server logged before now is in its stderr buffer: the
// upstream writes a marker to its stderr, which mcpctl logs after them.
func logSync(t *testing.T, s *session, server string) {
	t.Helper()
	marker := fmt.Sprintf("log-sync-%d", time.Now().UnixNano())
	res, err := callTool(context.Background(), s.Client, server+"__note", map[string]any{"text": marker}, nil)
	if err != nil || res.IsError {
		t.Fatalf("%s__note: %v %q", server, err, resultText(res))
	}
	eventually(t, 20*time.Second, "mcpctl logs the marker", func() bool { return strings.Contains(s.stderr.String(), marker) })
}

// instanceOf waits until s lists server's instance resource (its process id), which the
// server's last sync registered, and returns its name. Listing waits for a sync in progress, so
// everything that sync logged is written by then.
func instanceOf(t *testing.T, s *session, server, not string) string {
	t.Helper()
	var name string
	eventually(t, 30*time.Second, server+"'s instance resource is listed", func() bool {
		rs, _ := resourcesOf(t, s)
		for _, r := range rs {
			if r.URI == "test://"+server+"/instance" && r.Name != not {
				name = r.Name
				return true
			}
		}
		return false
	})
	return name
}

// mcpctl's own resources always win: a project server's resource or template under mcpctl's
// URIs is left out, as is one another server (earlier by name) serves; nothing is listed
// twice, and each one left out is logged once, naming its server and URI. A reviewer saw
// prompteka://library listed twice and read from the upstream.
func TestUpstreamResourcesNeverShadow(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	extrasProject(t, env, map[string]string{"db": "", "docs": ""})
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	instanceOf(t, s, "db", "")
	docs := instanceOf(t, s, "docs", "")

	rs, ts := resourcesOf(t, s)
	seen := map[string]mcp.Resource{}
	for _, r := range rs {
		if _, dup := seen[r.URI]; dup {
			t.Errorf("resources/list has %s twice", r.URI)
		}
		seen[r.URI] = r
	}
	if r := seen["prompteka://library"]; r.Name != "library:prompteka" {
		t.Errorf("prompteka://library is listed as %+v, want mcpctl's own", r)
	}
	for _, uri := range []string{"test://shared/readme", "test://db/guide", "test://docs/guide"} {
		if _, ok := seen[uri]; !ok {
			t.Errorf("resources/list lacks %s", uri)
		}
	}
	tmpl := map[string]mcp.ResourceTemplate{}
	for _, tp := range ts {
		tmpl[tp.URITemplate.Raw()] = tp
	}
	if tp := tmpl["prompteka://prompt/{id}"]; tp.Name != "prompt" {
		t.Errorf("prompteka://prompt/{id} is listed as %q, want mcpctl's own", tp.Name)
	}
	if _, ok := tmpl["test://shared/{doc}"]; !ok || len(ts) != 3 {
		t.Errorf("templates %q, want mcpctl's two and test://shared/{doc}", slices.Sorted(maps.Keys(tmpl)))
	}

	for uri, want := range map[string]string{
		"prompteka://library": `"folders"`,
		"prompteka://prompt/E0000000-0000-4000-8000-000000000004": "# Deploy Checklist",
		"test://shared/readme": "readme of db",
		"test://shared/notes":  "test://shared/notes of db",
	} {
		got, err := readText(s, uri)
		if err != nil || !strings.Contains(got, want) || strings.Contains(got, "SHADOWED") {
			t.Errorf("read %s: %v %.200q, want %q", uri, err, got, want)
		}
	}

	// Each left out once, though every server that gets ready makes mcpctl look again; docs
	// restarting is one more look.
	res, err := callTool(context.Background(), s.Client, "docs__die", map[string]any{}, nil)
	if err != nil {
		t.Fatalf("docs__die: %v", err)
	}
	checkResult(t, "docs__die", res)
	instanceOf(t, s, "docs", docs)
	logSync(t, s, "docs")
	got := leftOut(t, s)
	want := map[string][]string{
		"db":   {"prompteka://library", "prompteka://prompt/{id}"},
		"docs": {"prompteka://library", "prompteka://prompt/{id}", "test://shared/readme", "test://shared/{doc}"},
	}
	for srv, uris := range want {
		slices.Sort(got[srv])
		if !slices.Equal(got[srv], uris) {
			t.Errorf("left out of %s, as logged: %q, want each of %q once", srv, got[srv], uris)
		}
	}
}

// A server that is down keeps its prompts and resources listed, as its tools, and getting or
// reading one answers UPSTREAM_UNAVAILABLE naming it, with its last stderr line: a reviewer saw
// "resource not found" and "not a prompt of this library". A server that never got ready has
// nothing listed; a name of it says why the server is down.
func TestUpstreamDownKeepsItsPromptsAndResources(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	dir := t.TempDir()
	dead, broken := filepath.Join(dir, "db-dead"), filepath.Join(dir, "broken-dead")
	if err := os.WriteFile(broken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	extrasProject(t, env, map[string]string{
		"db":     fmt.Sprintf(", MCPCTL_UPSTREAM_DEAD: %q", dead),
		"broken": fmt.Sprintf(", MCPCTL_UPSTREAM_DEAD: %q", broken),
	})
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	ctx := context.Background()
	instanceOf(t, s, "db", "")
	eventually(t, 20*time.Second, "broken failed to start", func() bool {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		return slices.ContainsFunc(h.Upstreams, func(u upstream.Status) bool { return u.Name == "broken" && u.LastError != "" })
	})

	// broken never got ready: nothing of it is known, but its prefix is. Its tool answers that
	// it is down, as a tool result (a server down is no malformed request).
	if te := s.callError(t, "broken__echo", map[string]any{"text": "x"}, "UPSTREAM_UNAVAILABLE"); !strings.Contains(te.Message, "server broken") ||
		!strings.Contains(te.Message, "cannot start while") {
		t.Errorf("broken__echo: %+v, want why server broken is down", te)
	}
	_, err := s.GetPrompt(ctx, getPromptRequest("broken__checklist", nil))
	if err == nil || !strings.Contains(err.Error(), "server broken") || strings.Contains(err.Error(), "of this library") {
		t.Errorf("broken__checklist: %v, want why server broken is down", err)
	}

	res, err := callTool(ctx, s.Client, "db__die", map[string]any{}, nil)
	if err != nil {
		t.Fatalf("db__die: %v", err)
	}
	checkResult(t, "db__die", res)
	// db stays down (it exits as it starts while the dead file exists), and answers for
	// itself: whether failed or trying again, a use waits for its attempt and reports why.
	down := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "UPSTREAM_UNAVAILABLE") || !strings.Contains(err.Error(), "server db") || !strings.Contains(err.Error(), "db: ") {
			t.Errorf("%s while db is down: %v, want UPSTREAM_UNAVAILABLE naming db, with its last stderr line", what, err)
		}
	}
	prompts, err := s.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || !slices.ContainsFunc(prompts.Prompts, func(p mcp.Prompt) bool { return p.Name == "db__checklist" }) {
		t.Errorf("prompts/list while db is down: %v, want db__checklist still listed", err)
	}
	rs, ts := resourcesOf(t, s)
	if !slices.ContainsFunc(rs, func(r mcp.Resource) bool { return r.URI == "test://db/guide" }) ||
		!slices.ContainsFunc(ts, func(tp mcp.ResourceTemplate) bool { return tp.URITemplate.Raw() == "test://shared/{doc}" }) {
		t.Errorf("while db is down, resources/list or templates lack db's: %d resources, %d templates", len(rs), len(ts))
	}
	_, err = s.GetPrompt(ctx, getPromptRequest("db__checklist", nil))
	down("prompts/get db__checklist", err)
	_, err = readText(s, "test://db/guide")
	down("resources/read test://db/guide", err)
	_, err = readText(s, "test://shared/notes")
	down("resources/read test://shared/notes (a template's)", err)
	te := s.callError(t, "db__echo", map[string]any{"text": "x"}, "UPSTREAM_UNAVAILABLE")
	if !strings.Contains(te.Message, "server db") {
		t.Errorf("db__echo while db is down: %q", te.Message)
	}
	// A name db never offered: it is not said to be waiting for a first start, which db is
	// past and nothing waited for.
	if _, err := callTool(ctx, s.Client, "db__nosuch", map[string]any{}, nil); err == nil || strings.Contains(err.Error(), "did not finish starting") ||
		!strings.Contains(err.Error(), "server db") {
		t.Errorf("db__nosuch while db is down: %v, want why, without a first start", err)
	}

	// Back up, the same names answer again.
	if err := os.Remove(dead); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "db is back", func() bool {
		got, err := readText(s, "test://db/guide")
		return err == nil && strings.Contains(got, "Guide from db")
	})
	got, err := s.GetPrompt(ctx, getPromptRequest("db__checklist", nil))
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("db__checklist after the restart: %v %+v", err, got)
	}
	if tc, _ := got.Messages[0].Content.(mcp.TextContent); tc.Text != "checklist of db" {
		t.Errorf("db__checklist after the restart: %+v", got.Messages[0].Content)
	}
}

// stoppedTraffic stops the server and returns the traffic events it wrote, oldest first.
func stoppedTraffic(tb testing.TB, s *session, env []string) []traffic.Event {
	tb.Helper()
	s.Close()
	s.cmd.Wait()
	files, _ := filepath.Glob(filepath.Join(traffic.Dir(filepath.Join(envValue(env, "HOME"), ".local", "state")), "*.jsonl"))
	var all []traffic.Event
	for _, f := range files {
		events, err := traffic.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, events...)
	}
	return all
}

// A server whose calls hang holds at most its share of the session's workers: the call past it
// is told so at once, and mcpctl's own tools still answer. Sixteen hanging calls held all the
// workers, and a list_folders waited for the first of them to time out.
func TestAHangingServerHoldsOnlyItsShare(t *testing.T) {
	s := serveDB(t, "", "    timeoutMs: 600000\n")
	callWhenUp(t, s, "db__big")

	hang, stop := context.WithCancel(context.Background())
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			callTool(hang, s.Client, "db__slow", map[string]any{"marker": filepath.Join(dir, fmt.Sprint(i))}, nil)
		})
	}
	defer wg.Wait()
	defer stop()
	eventually(t, 20*time.Second, "16 calls reach the server", func() bool {
		started, _ := filepath.Glob(filepath.Join(dir, "*.started"))
		return len(started) == 16
	})

	if te := s.callError(t, "db__slow", map[string]any{"marker": filepath.Join(dir, "17")}, "UPSTREAM_ERROR"); !strings.Contains(te.Message, "16 calls under way") {
		t.Errorf("the 17th call: %q; want it to say 16 calls are under way", te.Message)
	}
	// A resource read holds a worker as a call does, and counts as one.
	if _, err := s.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "test://db/guide"}}); err == nil || !strings.Contains(err.Error(), "UPSTREAM_ERROR: server db already has 16 calls under way") {
		t.Errorf("a resource read beside 16 calls: %v; want it to say 16 calls are under way", err)
	}
	var folders struct {
		Folders []any `json:"folders"`
	}
	if s.call(t, "list_folders", map[string]any{}, &folders); len(folders.Folders) == 0 {
		t.Error("list_folders beside the hanging calls lists no folder")
	}
}

// A project server's progress reaches the client paced: its first and last notification, and a
// few between (progressPace); 500 in a burst were each written to the client and the traffic.
func TestUpstreamProgressIsPaced(t *testing.T) {
	s := serveDB(t, "", "")
	callWhenUp(t, s, "db__big")

	var req mcp.CallToolRequest
	req.Params.Name = "db__progress"
	req.Params.Meta = &mcp.Meta{ProgressToken: "p1"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, req)
		done <- err
	}()
	defer func() { cancel(); <-done }()
	var got []float64
	eventually(t, 20*time.Second, "the last progress notification arrives", func() bool {
		got = nil
		for _, n := range s.notificationsOf("notifications/progress") {
			if p, ok := n.Params.AdditionalFields["progress"].(float64); ok && n.Params.AdditionalFields["progressToken"] == "p1" {
				got = append(got, p)
			}
		}
		return len(got) > 0 && got[len(got)-1] == 500
	})
	if len(got) < 2 || got[0] != 1 || got[len(got)-1] != 500 || len(got) == 500 {
		t.Errorf("the client heard progress %v; want 1 first, 500 last, and not all 500", got)
	}
}

// A server that sends tools/list_changed over and over with nothing changed costs the client
// nothing: it hears of a change to the tools only when they changed, and then once.
func TestUpstreamListChangedStorm(t *testing.T) {
	s := serveDB(t, `, MCPCTL_UPSTREAM_STORM: "1"`, "")
	callWhenUp(t, s, "db__big")
	changed := string(mcp.MethodNotificationToolsListChanged)
	// A round trip lets the notifications sent so far arrive (see TestUpstreamResourcesNotifyOnce).
	listTools := func() []string {
		res, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	listTools()
	before := len(s.notificationsOf(changed))
	if res := callWhenUp(t, s, "db__storm"); resultText(res) != "stormed" {
		t.Fatalf("storm: %s", resultText(res))
	}
	eventually(t, 20*time.Second, "db__calm is listed", func() bool { return slices.Contains(listTools(), "db__calm") })
	listTools()
	if n := len(s.notificationsOf(changed)) - before; n < 1 || n > 2 {
		t.Errorf("the client heard tools/list_changed %d times for a storm of 100 and one new tool, want once (twice at most)", n)
	}
}
