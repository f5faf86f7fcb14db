package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// reviewExtras give a fake upstream (MCPCTL_UPSTREAM_REVIEW=1) what the tests of a review's
// findings need: a start held until a file exists (MCPCTL_UPSTREAM_HOLD), a tool that asks its
// client for sampling, and a prompt that refuses a missing argument with -32602.
func reviewExtras(s *server.MCPServer) {
	if key, ok := os.LookupEnv("API_KEY"); ok && key == "" {
		fmt.Fprintln(os.Stderr, "Error: API_KEY environment variable is required")
		os.Exit(1)
	}
	if hold := os.Getenv("MCPCTL_UPSTREAM_HOLD"); hold != "" {
		// The slow start under test: the test releases it once a call is waiting.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(hold); err == nil {
				break
			}
		}
	}
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Asks the client to sample a message.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var r mcp.CreateMessageRequest
			r.Messages = []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("say hi")}}
			r.MaxTokens = 10
			//lint:ignore SA1019 a server of a protocol that has sampling, as the relay serves
			res, err := server.ServerFromContext(ctx).RequestSampling(ctx, r)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			tc, _ := res.Content.(mcp.TextContent)
			return mcp.NewToolResultText("sampled: " + tc.Text), nil
		})
	server.WithPromptCapabilities(true)(s)
	s.AddPrompt(mcp.NewPrompt("weather", mcp.WithArgument("city", mcp.RequiredArgument())),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("weather", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("weather in "+req.Params.Arguments["city"]))}), nil
		})
	// A prompts/get without city is answered -32602, as server-everything does: pointed, before
	// mcp-go looks it up, at a name that does not exist.
	hooks := &server.Hooks{}
	hooks.AddBeforeGetPrompt(func(ctx context.Context, id any, req *mcp.GetPromptRequest) {
		if req.Params.Name == "weather" && req.Params.Arguments["city"] == "" {
			req.Params.Name = "weather: missing required argument city"
		}
	})
	server.WithHooks(hooks)(s)
}

// reviewProject is a project with one server, db, this test binary with reviewExtras.
func reviewProject(tb testing.TB, env []string, extraEnv string) {
	tb.Helper()
	writeProject(tb, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db, MCPCTL_UPSTREAM_REVIEW: \"1\"%s}\n    timeoutMs: 20000\n", os.Args[0], extraEnv))
}

// A call that comes while its server is starting for the first time waits for it, as a call to
// a restarting server does (it was refused at once: "not known yet … try again in a few
// seconds").
func TestCallWaitsForTheFirstStart(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	hold := filepath.Join(t.TempDir(), "go")
	reviewProject(t, env, fmt.Sprintf(", MCPCTL_UPSTREAM_HOLD: %q", hold))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := callTool(context.Background(), s.Client, "db__echo", map[string]any{"text": "early"}, nil)
		done <- answer{res, err}
	}()
	// Release the server only once the call is waiting for it (or has been answered without).
	eventually(t, 20*time.Second, "the call waits for db", func() bool {
		select {
		case a := <-done:
			done <- a
			return true
		default:
		}
		return strings.Contains(s.stderr.String(), "a call waits for its server's first start")
	})
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || a.res.IsError || resultText(a.res) != "db: early" {
		t.Fatalf("a call during the first start: %v %q, want it served once db is up", a.err, resultText(a.res))
	}
}

// A call waiting for its server's first start when serve stops says so, not that the server
// did not start within its timeout (60 s, which nobody waited).
func TestCallWaitingForTheFirstStartWhenServeStops(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	reviewProject(t, env, fmt.Sprintf(", MCPCTL_UPSTREAM_HOLD: %q", filepath.Join(t.TempDir(), "never")))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	done := make(chan error, 1)
	go func() {
		_, err := callTool(context.Background(), s.Client, "db__echo", map[string]any{"text": "early"}, nil)
		done <- err
	}()
	eventually(t, 20*time.Second, "the call waits for db", func() bool {
		return strings.Contains(s.stderr.String(), "a call waits for its server's first start")
	})
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "was not called: the call ended while server db was still starting") {
		t.Errorf("the waiting call when serve stops: %v, want it not called, the wait cut short", err)
	}
}

// A tool the project leaves out is said to be left out, and by which rule: "may hide it" left
// the model to guess whether the name was wrong.
func TestDeniedToolSaysSo(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n    tools: {deny: [ech*]}\n  gone:\n    command: mcpctl-no-such-server\n    tools: {deny: [ech*]}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	eventually(t, 20*time.Second, "db is ready", func() bool {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		for _, u := range h.Upstreams {
			if u.Name == "db" {
				return u.State == "ready"
			}
		}
		return false
	})
	// Left out whatever the server's state: gone, which cannot start, was told to try again.
	for name, want := range map[string]string{
		"db__echo":   "tool 'db__echo' is not served: the project's servers.db.tools.deny leaves it out",
		"gone__echo": "tool 'gone__echo' is not served: the project's servers.gone.tools.deny leaves it out",
		"db__nosuch": "unknown tool 'db__nosuch': server db is running and offers no tool of that name. Call tools/list",
	} {
		if _, err := callTool(context.Background(), s.Client, name, map[string]any{"text": "hi"}, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// An untrusted repository project's servers are not started, and both the instructions and a
// call to one of their tools say so and what to do (the call got "unknown tool … no tool of
// that name", and nothing said 'mcpctl trust').
func TestUntrustedServersAreExplained(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".mcpctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(repo, ".mcpctl", "project.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := serveIn(t, repo, env, "--library", lib.Dir)
	if ins := s.init.Instructions; !strings.Contains(ins, "db__*") || !strings.Contains(ins, "mcpctl trust") {
		t.Errorf("instructions %q do not say that db is not started and how to trust it", ins)
	}
	// A tool result, as for any server that is down: -32602 "invalid params" read as a call
	// to correct, not one only the user can mend.
	te := s.callError(t, "db__echo", map[string]any{"text": "hi"}, "UPSTREAM_UNAVAILABLE")
	if !strings.Contains(te.Message, "not started") || !strings.Contains(te.Message, "mcpctl trust") || !strings.Contains(te.Hint, "Only the user") {
		t.Errorf("db__echo while untrusted: %+v, want why db is not started, 'mcpctl trust', and that only the user can", te)
	}
	// A name of no declared server is still unknown.
	if _, err := callTool(context.Background(), s.Client, "other__echo", map[string]any{}, nil); err == nil || strings.Contains(err.Error(), "mcpctl trust") {
		t.Errorf("other__echo: %v, want unknown tool", err)
	}
	// So is a prompt of theirs (it was "unknown prompt … not a prompt of this library"), as the
	// -32602 an unknown prompt is.
	_, err := s.GetPrompt(context.Background(), getPromptRequest("db__checklist", nil))
	if err == nil || !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), "prompt 'db__checklist'") ||
		!strings.Contains(err.Error(), "not started") || !strings.Contains(err.Error(), "mcpctl trust") || strings.Contains(err.Error(), "of this library") {
		t.Errorf("prompts/get db__checklist while untrusted: %v, want -32602 saying why db is not started and 'mcpctl trust'", err)
	}
	if _, err := s.GetPrompt(context.Background(), getPromptRequest("other__checklist", nil)); err == nil || strings.Contains(err.Error(), "mcpctl trust") {
		t.Errorf("prompts/get other__checklist: %v, want unknown prompt", err)
	}
}

// An upstream prompt's missing argument is -32602 with the server's words, as the server itself
// answers (it was -32603 UPSTREAM_ERROR "broke the protocol … try again").
func TestUpstreamPromptInvalidArguments(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	reviewProject(t, env, "")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	callWhenUp(t, s, "db__echo")
	var req mcp.GetPromptRequest
	req.Params.Name = "db__weather"
	_, err := s.GetPrompt(context.Background(), req)
	if err == nil || !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), "missing required argument city") ||
		!strings.Contains(err.Error(), "INVALID_INPUT") || strings.Contains(err.Error(), "try again") {
		t.Fatalf("prompts/get without its argument: %v, want -32602 INVALID_INPUT with the server's words", err)
	}
}

// dialWith starts mcpctl serve as serve does, with a client that takes sampling requests.
func dialWith(t *testing.T, env []string, opts []client.ClientOption, caps mcp.ClientCapabilities, args ...string) (*client.Client, *syncBuffer) {
	t.Helper()
	stderr := &syncBuffer{}
	exact := transport.WithCommandFunc(func(ctx context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
		c := exec.CommandContext(ctx, command, args...)
		c.Env = env
		return c, nil
	})
	tr := transport.NewStdioWithOptions(os.Args[0], env, append([]string{"serve"}, args...), exact, transport.WithCommandStderrWriter(stderr))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, append(opts, client.WithProtocolVersion(mcp.ProtocolVersion20251125))...)
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "test"}
	req.Params.Capabilities = caps
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c, stderr
}

type sampler struct{}

func (sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	res := &mcp.CreateMessageResult{Model: "test", StopReason: "endTurn"}
	res.Role, res.Content = mcp.RoleAssistant, mcp.NewTextContent("hi from the client")
	return res, nil
}

// A project server's sampling request reaches the client, when the client takes them (it was
// answered "no sampling handler configured", with "broke the protocol … try again").
func TestUpstreamSamplingReachesTheClient(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	reviewProject(t, env, "")
	c, _ := dialWith(t, env, []client.ClientOption{client.WithSamplingHandler(sampler{})}, mcp.ClientCapabilities{},
		"--library", lib.Dir, "--project", "web")
	var res *mcp.CallToolResult
	eventually(t, 20*time.Second, "db__ask answers", func() bool {
		var err error
		res, err = callTool(context.Background(), c, "db__ask", map[string]any{}, nil)
		return err == nil
	})
	if res.IsError || resultText(res) != "sampled: hi from the client" {
		t.Fatalf("db__ask: %q, want the client's sample", resultText(res))
	}
}

// A project whose servers all fail: get servers and describe server exit 1, name the ${VAR}
// that was unset, and describe prints the fix; a command that does not exist tells the model
// that only the user can fix it, not to try again in a few seconds.
func TestFailedServersAreDiagnosed(t *testing.T) {
	yaml := `servers:
  noenv:
    command: ` + os.Args[0] + `
    env: {MCPCTL_BE_UPSTREAM: db, MCPCTL_UPSTREAM_REVIEW: "1", API_KEY: "${MY_API_KEY}"}
  nocmd:
    command: mcpctl-no-such-server
`
	vars := projectVars(t, yaml)
	code, out, stderr := run(t, vars, "get", "servers", "--project", "web")
	if code != 1 || !strings.Contains(out, "${MY_API_KEY}, unset here") || !strings.Contains(out, "not found") {
		t.Errorf("get servers, all failing: exit %d\n%s%s\nwant exit 1 naming ${MY_API_KEY}", code, out, stderr)
	}
	code, out, _ = run(t, vars, "describe", "server", "noenv", "--project", "web")
	if code != 1 || !strings.Contains(out, "Hint:     set MY_API_KEY") || !strings.Contains(out, "Hint:     Run servers.noenv.command by hand") {
		t.Errorf("describe server noenv: exit %d\n%s\nwant exit 1 with the hints", code, out)
	}
	code, out, _ = run(t, vars, "describe", "server", "nocmd", "--project", "web")
	if code != 1 || !strings.Contains(out, "Hint:     Install it, or give servers.nocmd.command as an absolute path") {
		t.Errorf("describe server nocmd: exit %d\n%s\nwant exit 1 with the hint", code, out)
	}

	// Served: a call to the missing command's tools says the user must fix it, and how they see
	// why: a tool result, as the server is down, not a malformed request.
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\ngated: false\n"+yaml)
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	te := s.callError(t, "nocmd__query", map[string]any{}, "UPSTREAM_UNAVAILABLE")
	if !strings.Contains(te.Message, "not found in PATH") || !strings.Contains(te.Hint, "Only the user can fix this") ||
		!strings.Contains(te.Hint, "'mcpctl describe server nocmd --project web' shows them why") || strings.Contains(te.Hint, "try again in a few seconds") {
		t.Errorf("nocmd__query: %+v, want that only the user can fix it and how they see why, without 'try again in a few seconds'", te)
	}
}

// A gated session's first call goes to a tool of a server that exits as it starts, so never
// registered a tool. That is no malformed request (it was -32602) but a failure the user can act
// on: an isError result UPSTREAM_UNAVAILABLE with the server's stderr line, saying the user must
// see to it, and carrying the briefing as any failed first call does; the traffic records its
// code and server.
func TestDownServerAnswersAToolResult(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	state := filepath.Join(t.TempDir(), "state")
	env = append(env, "XDG_STATE_HOME="+state)
	dead := filepath.Join(t.TempDir(), "dead")
	if err := os.WriteFile(dead, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db, MCPCTL_UPSTREAM_EXTRAS: \"1\", MCPCTL_UPSTREAM_DEAD: %q}\n", os.Args[0], dead))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	te := s.callError(t, "db__echo", map[string]any{"text": "sql queries"}, "UPSTREAM_UNAVAILABLE")
	if !strings.Contains(te.Message, "tool 'db__echo' was not called") || !strings.Contains(te.Message, "cannot start while") ||
		!strings.Contains(te.Hint, "only the user can fix this") || te.Briefing == "" {
		t.Errorf("db__echo: %+v, want why db is down, that the user must see to it, and the briefing", te)
	}
	// The next call is answered the same way, without the briefing the first carried.
	if te := s.callError(t, "db__echo", map[string]any{"text": "again"}, "UPSTREAM_UNAVAILABLE"); te.Briefing != "" {
		t.Errorf("the second call carries a briefing again")
	}
	// The tool that answers it is mcpctl's own business: never listed, and a client that calls
	// it by name calls a tool nobody offers.
	tools, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if strings.Contains(tl.Name, "mcpctl:") {
			t.Errorf("tools/list shows %q", tl.Name)
		}
	}
	if _, err := callTool(context.Background(), s.Client, "⟦mcpctl:answer⟧", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("a call to the answering tool by name: %v, want an unknown tool", err)
	}
	var found bool
	for _, e := range endedSessionEvents(t, s, state) {
		if e.Kind == traffic.KindResponse && e.Name == "db__echo" {
			found = true
			if e.Status != traffic.StatusError || e.ErrorCode != "UPSTREAM_UNAVAILABLE" || e.Upstream != "db" {
				t.Errorf("traffic: %+v, want error UPSTREAM_UNAVAILABLE of server db", e)
			}
		}
	}
	if !found {
		t.Error("traffic has no response to db__echo")
	}
	var out strings.Builder
	if code := Main(context.Background(), []string{"traffic", "tail"}, nil, &out, io.Discard, envGetter(env)); code != 0 || !strings.Contains(out.String(), "UPSTREAM_UNAVAILABLE") {
		t.Errorf("traffic tail: exit %d, want it to name UPSTREAM_UNAVAILABLE:\n%s", code, out.String())
	}
}
