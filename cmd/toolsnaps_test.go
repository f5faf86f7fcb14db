package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestToolSnapshots pins what tools/list advertises — names, descriptions, annotations, input and
// output schemas — to testdata/toolsnaps/*.json, so every contract change is a visible diff.
// Run with -update to accept a change.
func TestToolSnapshots(t *testing.T) {
	lib := librarytest.New(t, 5)
	s := serve(t, testHome(t), "--library", lib.Dir)
	res, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tools := res.Tools
	// The gate's tools, from a project session: begin_session while gated (its description
	// carries the project's index), read_prompts once ungated.
	env := testHome(t)
	writeProject(t, env, "web", webProject)
	g := serve(t, env, "--library", projectLibrary(t).Dir, "--project", "web")
	for _, step := range []func(){func() {}, func() { g.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, nil) }} {
		step()
		res, err := g.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range res.Tools {
			if tl.Name == "begin_session" || tl.Name == "read_prompts" {
				tools = append(tools, tl)
			}
		}
	}
	dir := filepath.Join("..", "testdata", "toolsnaps")
	seen := map[string]bool{}
	for _, tl := range tools {
		got, err := json.MarshalIndent(tl, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, tl.Name+".json")
		seen[filepath.Base(path)] = true
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("tool %s has no snapshot (run go test ./cmd -run TestToolSnapshots -update): %v", tl.Name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("tool %s differs from %s (run with -update if intended):\n%s", tl.Name, path, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !seen[e.Name()] && !*update {
			t.Errorf("snapshot %s has no tool any more; delete it", e.Name())
		}
	}
}
