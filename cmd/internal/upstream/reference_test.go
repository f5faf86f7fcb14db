package upstream

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/gate"
)

// The official reference servers, installed with npm into a cache directory that outlives the
// test run (MCPCTL_TEST_NPM_DIR, default $TMPDIR/mcpctl-upstream-npm): the tests skip, saying
// why, where Node.js or npm are absent or the install fails.
var referencePackages = map[string]string{
	"@modelcontextprotocol/server-everything": "server-everything/dist/index.js",
	"@modelcontextprotocol/server-filesystem": "server-filesystem/dist/index.js",
}

// referenceServer returns node and the entry script of one reference server, installing them
// on first use.
func referenceServer(tb testing.TB, pkg string) (node, script string) {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		tb.Skip("skipped: Node.js is not installed (node not in PATH)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		tb.Skip("skipped: npm is not installed")
	}
	dir := os.Getenv("MCPCTL_TEST_NPM_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mcpctl-upstream-npm")
	}
	script = filepath.Join(dir, "node_modules", "@modelcontextprotocol", referencePackages[pkg])
	if _, err := os.Stat(script); err == nil {
		return node, script
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var pkgs []string
	for p := range referencePackages {
		pkgs = append(pkgs, p)
	}
	install := exec.CommandContext(ctx, npm, append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"}, pkgs...)...)
	var out bytes.Buffer
	install.Stdout, install.Stderr = &out, &out
	if err := install.Run(); err != nil {
		tb.Skipf("skipped: npm install of the reference servers into %s failed (%v): %s", dir, err, lastLines(out.String(), 5))
	}
	if _, err := os.Stat(script); err != nil {
		tb.Skipf("skipped: npm installed %s but %s is missing; the package layout changed", pkg, script)
	}
	return node, script
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func TestReferenceEverything(t *testing.T) {
	node, script := referenceServer(t, "@modelcontextprotocol/server-everything")
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"ev": {Command: node, Args: []string{script, "stdio"}, TimeoutMs: 30000}}, Options{})
	ev := sup.Server("ev")
	st := waitState(t, ev, Ready)
	if st.Tools < 5 || st.Prompts == 0 || st.Resources == 0 {
		t.Errorf("got %d tools, %d prompts, %d resources; want some of each", st.Tools, st.Prompts, st.Resources)
	}
	ctx := context.Background()

	res, err := sup.CallTool(ctx, "ev__echo", map[string]any{"message": "hello"}, nil)
	if err != nil || !strings.Contains(resultText(t, res), "hello") {
		t.Errorf("echo: %v", err)
	}
	var structured *Tool
	for _, tl := range ev.Tools() {
		if tl.Own == "get-structured-content" {
			structured = &tl
		}
	}
	if structured == nil || len(structured.Tool.RawOutputSchema) == 0 {
		t.Errorf("get-structured-content: got %+v, want it listed with its output schema", structured)
	} else if res, err := sup.CallTool(ctx, structured.Tool.Name, map[string]any{"location": "Chicago"}, nil); err != nil || res.StructuredContent == nil {
		t.Errorf("get-structured-content: %v, structured %v", err, res)
	}

	// Progress is forwarded; a cancelled call returns the caller's error and the server lives on.
	var steps atomic.Int64
	first := make(chan struct{}, 1)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := sup.CallTool(cctx, "ev__trigger-long-running-operation", map[string]any{"duration": 60, "steps": 60}, func(p, total float64, msg string) {
			steps.Add(1)
			select {
			case first <- struct{}{}:
			default:
			}
		})
		done <- err
	}()
	select {
	case <-first:
	case <-time.After(waitLimit):
		t.Fatal("no progress from the long-running operation")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled long call: got %v, want context.Canceled", err)
	}
	if _, err := sup.CallTool(ctx, "ev__get-sum", map[string]any{"a": 2, "b": 3}, nil); err != nil {
		t.Errorf("call after the cancellation: %v", err)
	}

	// Resources are listed under their own URIs and read through their owner.
	rs := ev.Resources()
	if len(rs) == 0 {
		t.Fatal("no resources")
	}
	rr, err := ev.ReadResource(ctx, rs[0].Resource.URI)
	if err != nil || len(rr.Contents) == 0 {
		t.Errorf("read %s: %v", rs[0].Resource.URI, err)
	}
	ps := ev.Prompts()
	var simple string
	for _, p := range ps {
		if len(p.Prompt.Arguments) == 0 {
			simple = p.Prompt.Name
		}
	}
	if simple != "" {
		if pr, err := sup.GetPrompt(ctx, simple, nil); err != nil || len(pr.Messages) == 0 {
			t.Errorf("get prompt %s: %v", simple, err)
		}
	}
}

func TestReferenceFilesystem(t *testing.T) {
	node, script := referenceServer(t, "@modelcontextprotocol/server-filesystem")
	root := t.TempDir()
	file := filepath.Join(root, "notes.md")
	if err := os.WriteFile(file, []byte("# Notes\nkeep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := gate.ServerSpec{Command: node, Args: []string{script, root}, TimeoutMs: 30000, Allow: []string{"read_*", "list_*"}, Deny: []string{"read_media_file"}}
	sup, _ := startSupervisor(t, map[string]gate.ServerSpec{"fs": spec}, Options{})
	fs := sup.Server("fs")
	waitState(t, fs, Ready)
	var names []string
	for _, tl := range fs.Tools() {
		names = append(names, tl.Tool.Name)
		if strings.Contains(tl.Own, "write") || tl.Own == "read_media_file" || !(strings.HasPrefix(tl.Own, "read_") || strings.HasPrefix(tl.Own, "list_")) {
			t.Errorf("tool %s served despite allow %v deny %v", tl.Tool.Name, spec.Allow, spec.Deny)
		}
	}
	if len(names) < 3 {
		t.Errorf("got tools %v, want the read_ and list_ ones", names)
	}
	res, err := sup.CallTool(context.Background(), "fs__read_text_file", map[string]any{"path": file}, nil)
	if err != nil || res.IsError || !strings.Contains(resultText(t, res), "keep me") {
		t.Errorf("read_text_file: %v %+v", err, res)
	}
	// The server's own refusal is its isError result, passed through.
	res, err = sup.CallTool(context.Background(), "fs__read_text_file", map[string]any{"path": "/etc/passwd"}, nil)
	if err != nil || !res.IsError {
		t.Errorf("read outside the root: got %v %+v, want the server's isError result", err, res)
	}
	if _, err := sup.CallTool(context.Background(), "fs__write_file", map[string]any{"path": file, "content": "x"}, nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("denied write_file: got %v, want ErrUnknown", err)
	}
}
