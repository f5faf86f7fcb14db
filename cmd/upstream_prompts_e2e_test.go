package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// promptExtras give a fake upstream (MCPCTL_UPSTREAM_PROMPTS) what the tests of its prompts and
// resources need: a prompt whose argument completes and a template whose variable completes,
// as server-everything's do (with the value "plain" the server serves them but declares no
// completions).
func promptExtras(s *server.MCPServer, name, mode string) {
	server.WithPromptCapabilities(true)(s)
	if mode != "plain" {
		server.WithCompletions()(s)
		server.WithPromptCompletionProvider(colourCompleter{})(s)
		server.WithResourceCompletionProvider(colourCompleter{})(s)
	}
	s.AddPrompt(mcp.NewPrompt("paint", mcp.WithArgument("colour", mcp.RequiredArgument())),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("paint", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("paint it "+req.Params.Arguments["colour"]))}), nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://"+name+"/colour/{colour}", "colour"),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: req.Params.URI}}, nil
		})
}

// colourCompleter completes paint's colour, and the colour template's, by prefix, under the
// server's own names: a completion asked by mcpctl's served name finds none.
type colourCompleter struct{}

func (colourCompleter) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != "paint" || arg.Name != "colour" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return colours(arg.Value), nil
}

func (colourCompleter) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if !strings.HasSuffix(uri, "/colour/{colour}") || arg.Name != "colour" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return colours(arg.Value), nil
}

func colours(typed string) *mcp.Completion {
	out := []string{}
	for _, c := range []string{"red", "green", "grey", "blue"} {
		if strings.HasPrefix(c, typed) {
			out = append(out, c)
		}
	}
	return &mcp.Completion{Values: out}
}

// complete asks s to complete an argument of ref.
func complete(tb testing.TB, s *session, ref any, arg, value string) []string {
	tb.Helper()
	var req mcp.CompleteRequest
	req.Params.Ref = ref
	req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
	res, err := s.Complete(context.Background(), req)
	if err != nil {
		tb.Fatalf("completion/complete %v %s=%q: %v", ref, arg, value, err)
	}
	if res.Completion.Values == nil {
		tb.Fatalf("completion/complete %v: values is null, want an array", ref)
	}
	return res.Completion.Values
}

// A project server's prompt argument and template variable complete as the server completes
// them (they answered [] though mcpctl declares completions); a server without completions,
// and one that is down, answer [] and no error, as a client asks on every keystroke.
func TestUpstreamCompletion(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	dead := filepath.Join(t.TempDir(), "dead")
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nservers:\n"+
		"  db:\n    command: %[1]q\n    env: {MCPCTL_BE_UPSTREAM: db, MCPCTL_UPSTREAM_PROMPTS: \"1\", MCPCTL_UPSTREAM_EXTRAS: \"1\", MCPCTL_UPSTREAM_DEAD: %[2]q}\n    timeoutMs: 20000\n"+
		"  pl:\n    command: %[1]q\n    env: {MCPCTL_BE_UPSTREAM: pl, MCPCTL_UPSTREAM_PROMPTS: plain}\n    timeoutMs: 20000\n", os.Args[0], dead))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	callWhenUp(t, s, "db__echo")
	callWhenUp(t, s, "pl__echo")
	eventually(t, 20*time.Second, "db's and pl's prompts are listed", func() bool {
		names := map[string]bool{}
		for _, p := range s.allPrompts(t) {
			names[p.Name] = true
		}
		return names["db__paint"] && names["pl__paint"]
	})

	prompt := func(name string) mcp.PromptReference { return mcp.PromptReference{Type: "ref/prompt", Name: name} }
	if got := complete(t, s, prompt("db__paint"), "colour", "gr"); !slices.Equal(got, []string{"green", "grey"}) {
		t.Errorf("db__paint's colour from gr: %q, want green and grey, as db completes it", got)
	}
	tmpl := mcp.ResourceReference{Type: "ref/resource", URI: "test://db/colour/{colour}"}
	if got := complete(t, s, tmpl, "colour", "b"); !slices.Equal(got, []string{"blue"}) {
		t.Errorf("db's colour template from b: %q, want blue", got)
	}
	if got := complete(t, s, prompt("pl__paint"), "colour", "gr"); len(got) != 0 {
		t.Errorf("pl__paint, of a server without completions: %q, want none", got)
	}
	// Library prompts and mcpctl's own templates are not sent to the servers.
	if got := complete(t, s, prompt("paint"), "colour", "gr"); len(got) != 0 {
		t.Errorf("a name of no server's: %q, want none", got)
	}

	res, err := callTool(context.Background(), s.Client, "db__die", map[string]any{}, nil)
	if err != nil {
		t.Fatalf("db__die: %v", err)
	}
	checkResult(t, "db__die", res)
	if got := complete(t, s, prompt("db__paint"), "colour", "gr"); len(got) != 0 {
		t.Errorf("db__paint while db is down: %q, want none", got)
	}
	if got := complete(t, s, tmpl, "colour", "b"); len(got) != 0 {
		t.Errorf("db's template while db is down: %q, want none", got)
	}
}
