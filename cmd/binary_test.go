package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// mcpctlBinary is the shipped binary for the tests that run it: bin/mcpctl when `make build`
// made it from the sources as they are (newer than every Go file, go.mod and go.sum), else one
// build shared by every test of this run.
func mcpctlBinary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		if fresh("../bin/mcpctl") {
			built.path, built.err = filepath.Abs("../bin/mcpctl")
			return
		}
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

// fresh reports whether a built binary is newer than every source it was built from.
func fresh(bin string) bool {
	fi, err := os.Stat(bin)
	if err != nil {
		return false
	}
	stale := false
	filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || stale {
			return filepath.SkipDir
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if name := d.Name(); strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".sql") || strings.HasSuffix(name, ".json") || name == "go.mod" || name == "go.sum" {
			if info, err := d.Info(); err == nil && info.ModTime().After(fi.ModTime()) {
				stale = true
			}
		}
		return nil
	})
	return !stale
}
