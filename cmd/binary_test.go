package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// TestBuiltBinary builds the binary as `make build` does and talks to it as a client would:
// the other end-to-end tests re-execute the test binary (so the server runs under -race); this
// one proves the shipped binary is the same server.
func TestBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := mcpctlBinary(t)
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

var built struct {
	once sync.Once
	dir  string // a temporary build, removed by TestMain
	path string
	err  error
}

// mcpctlBinary is the shipped binary for the tests that run it, built as `make build` does,
// once for every test of this run. It is always built from the sources as they are: a binary
// judged fresh by file times is wrong after a checkout or a stash restores older files.
func mcpctlBinary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "mcpctl-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "mcpctl")
		build := exec.Command(gobin, "build", "-tags", "sqlite_fts5", "-o", built.path, "./mcpctl")
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if errors.Is(built.err, exec.ErrNotFound) {
		tb.Skip("no go tool on PATH")
	}
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.path
}
