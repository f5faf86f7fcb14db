package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

func runDemo(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("demo", "mcpctl demo [--keep]",
		"Creates a throw-away standalone library, starts 'mcpctl serve' on it as a real MCP client would,\n"+
			"and prints a transcript of a short session: browse, search, read, save a prompt, check health.")
	keep := fs.Bool("keep", false, "keep the demo library and print its path")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mcpctl-demo-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(tmp)
	}
	dir := filepath.Join(tmp, "library")
	if err := queue.CreateLibrary(ctx, dir, promptlib.Starter()); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// The session is the throw-away library's alone: its traffic does not join the user's
	// (the console's Traffic screen showed demo sessions of deleted libraries), and neither the
	// user's project ($MCPCTL_PROJECT, a repository's .mcpctl/project.yaml from the working
	// directory up) nor their config.yaml changes what it shows.
	childEnv := append(childEnviron(os.Environ()), "LOG_LEVEL=error", "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
	c, init, err := dialServerNotify(ctx, bin, childEnv, env.Stderr, nil, func(cmd *exec.Cmd) { cmd.Dir = tmp }, "--library", dir)
	if err != nil {
		return err
	}
	defer c.Close()
	t := transcript{w: env.Stdout}
	t.say("Started `mcpctl serve --library %s` and connected over stdio.", dir)
	t.say("Server %s %s, protocol %s.", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)
	return demoSession(ctx, c, &t, *keep, dir)
}

func demoSession(ctx context.Context, c *client.Client, t *transcript, keep bool, dir string) error {
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	names := make([]string, len(tools.Tools))
	for i, tl := range tools.Tools {
		names[i] = tl.Name
	}
	t.step("tools/list", "%d tools: %s", len(names), strings.Join(names, ", "))

	var folders foldersOut
	if _, err := callTool(ctx, c, "list_folders", map[string]any{}, &folders); err != nil {
		return err
	}
	var fl []string
	for _, f := range folders.Folders {
		fl = append(fl, fmt.Sprintf("%s (%s)", f.Path, countOf(f.PromptCount, "prompt")))
	}
	t.step("list_folders {}", "%s", strings.Join(fl, "; "))

	var found promptsOut
	if _, err := callTool(ctx, c, "search_prompts", map[string]any{"query": "review engineer"}, &found); err != nil {
		return err
	}
	t.step(`search_prompts {"query": "review engineer"}`, "%d found: %s", found.Total, titles(found.Prompts))
	if len(found.Prompts) > 0 {
		var p promptlib.Prompt
		if _, err := callTool(ctx, c, "get_prompt", map[string]any{"id": found.Prompts[0].ID}, &p); err != nil {
			return err
		}
		t.step(fmt.Sprintf(`get_prompt {"id": %q}`, p.ID), "%q, %d characters:\n%s", p.Title, len([]rune(p.Content)), indent(firstLines(p.Content, 3)))
	}
	if hasTool(names, "create_prompt") {
		var created struct {
			Status, Message string
			ID              *string
		}
		args := map[string]any{"title": "Demo: Bug Report", "content": "Turn these notes into a bug report with steps to reproduce, expected and actual behaviour.", "emoji": "🐛", "color": "red"}
		if _, err := callTool(ctx, c, "create_prompt", args, &created); err != nil {
			return err
		}
		t.step(`create_prompt {"title": "Demo: Bug Report", "emoji": "🐛", "color": "red", …}`, "%s: %s", created.Status, created.Message)
		if _, err := callTool(ctx, c, "search_prompts", map[string]any{"query": "bug reproduce"}, &found); err != nil {
			return err
		}
		t.step(`search_prompts {"query": "bug reproduce"}`, "%d found: %s", found.Total, titles(found.Prompts))
	}
	if err := demoSlashCommands(ctx, c, t); err != nil {
		return err
	}
	var bad toolError
	if _, err := callTool(ctx, c, "get_prompt", map[string]any{"id": "not-a-uuid"}, &bad); err != nil {
		return err
	}
	t.step(`get_prompt {"id": "not-a-uuid"}`, "error %s: %s\n   hint: %s", bad.Error, bad.Message, bad.Hint)
	var h healthOut
	if _, err := callTool(ctx, c, "health_check", map[string]any{}, &h); err != nil {
		return err
	}
	t.step("health_check {}", "%s, mode %s, %d prompts in %d folders, queue %s, search index %s",
		h.Status, h.Mode, h.Counts.Prompts, h.Counts.Folders, h.Queue.State, h.Search.Index)
	if keep {
		t.say("The library is kept at %s; serve it with: mcpctl serve --library %s", dir, dir)
	}
	return nil
}

type transcript struct {
	w io.Writer
	n int
}

func (t *transcript) say(format string, args ...any) { fmt.Fprintf(t.w, format+"\n", args...) }

func (t *transcript) step(call, format string, args ...any) {
	t.n++
	fmt.Fprintf(t.w, "\n%d. → %s\n   ← %s\n", t.n, call, fmt.Sprintf(format, args...))
}

func titles(ps []mcpserver.PromptItem) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("%q", p.Title))
	}
	return strings.Join(s, ", ")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string { return "     " + strings.ReplaceAll(s, "\n", "\n     ") }

func hasTool(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// demoSlashCommands shows the library as MCP prompts: what a client lists as slash commands, and
// one rendered with an argument.
func demoSlashCommands(ctx context.Context, c *client.Client, t *transcript) error {
	list, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return err
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, "/"+p.Name)
	}
	t.step("prompts/list", "%d slash commands: %s", len(names), strings.Join(names, " "))
	var req mcp.GetPromptRequest
	req.Params.Name = "code-review"
	req.Params.Arguments = map[string]string{"language": "Go"}
	got, err := c.GetPrompt(ctx, req)
	if err != nil {
		return err
	}
	var text string
	if len(got.Messages) > 0 {
		if tc, ok := mcp.AsTextContent(got.Messages[0].Content); ok {
			text = tc.Text
		}
	}
	t.step(`prompts/get {"name": "code-review", "arguments": {"language": "Go"}}`, "%s", strings.ReplaceAll(firstLines(text, 1), "\n", "\n     "))
	return nil
}
