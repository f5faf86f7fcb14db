package cmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestBuiltBinary builds bin/mcpctl as `make build` does and talks to it as a client would:
// the other end-to-end tests re-execute the test binary (so the server runs under -race); this
// one proves the shipped binary is the same server.
func TestBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	bin := filepath.Join(t.TempDir(), "mcpctl")
	build := exec.Command(gobin, "build", "-tags", "sqlite_fts5", "-o", bin, "./mcpctl")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	lib := librarytest.New(t, 30)
	var env []string
	for _, kv := range testHome(t) {
		if !strings.HasPrefix(kv, "MCPCTL_BE_MAIN=") { // this is the real binary, not the test one
			env = append(env, kv)
		}
	}
	ctx := context.Background()
	stderr := &syncBuffer{}
	c, init, err := dialServer(ctx, bin, env, stderr, "--library", lib.Dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	defer c.Close()
	if init.ServerInfo.Name != "mcpctl" {
		t.Errorf("server name %q", init.ServerInfo.Name)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tl := range tools.Tools {
		have[tl.Name] = true
	}
	for _, name := range []string{"list_folders", "list_prompts", "get_prompt", "search_prompts", "health_check"} {
		if !have[name] {
			t.Errorf("the built binary lacks %s", name)
		}
	}
	res, err := callTool(ctx, c, "health_check", map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, "health_check", res)
}
