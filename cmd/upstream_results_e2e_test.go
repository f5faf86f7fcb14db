package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/gate"
)

// addSizeTools gives the test upstream the results that used to pass the pipeline whole.
func addSizeTools(s *server.MCPServer) {
	// A 200 KB JSON text with the same JSON as structuredContent, as servers with an output
	// schema answer.
	s.AddTool(mcp.NewTool("structured", mcp.WithDescription("200 KB of records, also as structuredContent.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := bigRecords()
			return mcp.NewToolResultStructured(json.RawMessage(`{"records":`+text+`}`), text), nil
		})
	// 200 text blocks of 1.9 KB: each under any model's minBytes, 380 KB together.
	s.AddTool(mcp.NewTool("blocks", mcp.WithDescription("200 blocks of text.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: sizeBlocks()}, nil
		})
}

func sizeBlocks() []mcp.Content {
	var out []mcp.Content
	for i := range 200 {
		out = append(out, mcp.NewTextContent(fmt.Sprintf("## Block %d\n\n%s", i, strings.Repeat("a line of a block's text\n", 76))))
	}
	return out
}

// An upstream result is bounded as a whole: a transformed result carries no copy of itself as
// structuredContent (it was 568 KB for a 470 KB file), and many small text blocks are one text
// to the pipeline (200 blocks of 1.9 KB passed through as 383 KB).
func TestUpstreamResultIsBoundedWhole(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	res := callWhenUp(t, s, "db__structured")
	if wire, _ := json.Marshal(res); res.StructuredContent != nil || len(res.RawStructuredContent) > 0 || len(wire) > 16<<10 {
		t.Errorf("db__structured: %d bytes on the wire, structuredContent %v; want an index alone", len(wire), res.StructuredContent != nil || len(res.RawStructuredContent) > 0)
	}

	res = callWhenUp(t, s, "db__blocks")
	var texts []string
	for _, b := range sizeBlocks() {
		texts = append(texts, b.(mcp.TextContent).Text)
	}
	original := strings.Join(texts, "\n\n")
	if wire, _ := json.Marshal(res); len(res.Content) != 1 || len(wire) > 16<<10 {
		t.Fatalf("db__blocks: %d blocks, %d bytes on the wire; want one index", len(res.Content), len(wire))
	}
	_, joined := readSections(t, s, res)
	if joined != original {
		t.Errorf("the sections joined give %d bytes, want the blocks' %d, joined by blank lines", len(joined), len(original))
	}
}

// A model that leaves a 200 KB result as it is (passthrough alone, or a minBytes over it, even
// as a default.yaml) does not send it whole: the built-in default's pages bound every result.
func TestUpstreamResultOverTheBoundIsPaged(t *testing.T) {
	for _, c := range []struct{ file, model, use string }{
		{"raw", "stages:\n  - type: passthrough\n", "proxyModel: raw\n"},
		{"raw", "minBytes: 10000000\nstages:\n  - type: section-split\n", "proxyModel: raw\n"},
		{"default", "stages:\n  - type: passthrough\n", ""},
	} {
		lib := projectLibrary(t)
		env := testHome(t)
		config := envValue(env, "XDG_CONFIG_HOME")
		if err := os.MkdirAll(filepath.Join(config, "mcpctl", "proxymodels"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(config, "mcpctl", "proxymodels", c.file+".yaml"), []byte(c.model), 0o600); err != nil {
			t.Fatal(err)
		}
		writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\n%sservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", c.use, os.Args[0]))
		s := serve(t, env, "--library", lib.Dir, "--project", "web")
		res := callWhenUp(t, s, "db__big")
		text := resultText(res)
		if len(text) > 16<<10 || !strings.HasPrefix(bigRecords(), text[:8<<10/2]) || res.Meta == nil || res.Meta.AdditionalFields["mcpctl/sections"] == nil {
			t.Errorf("%s.yaml %q: %d bytes of text; want the first 8 KB page and the list of the others", c.file, c.model, len(text))
		}
	}
}

// The briefing names the tools open now: mcpctl's own, and each project server's by its prefix
// and count. It named the built-in tools only, fixed before the servers started.
func TestBriefingNamesTheServersTools(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	upstreamProject(t, env, "soft")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	eventually(t, 20*time.Second, "both servers' tools are listed", func() bool {
		got := toolNames(t, s)
		return slicesContains(got, "db__echo") && slicesContains(got, "docs__echo")
	})
	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &b)
	if !strings.Contains(b.Text, "search_prompts, ") || !strings.Contains(b.Text, "db__* (6)") || !strings.Contains(b.Text, "docs__* (6)") {
		t.Errorf("the briefing's open tools: %.600s", b.Text)
	}
}

// A project server's resource goes through that server's proxyModel: the pipeline finds the
// server the URI was read from on the call.
func TestUpstreamResourceUsesItsServersModel(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	config := filepath.Join(envValue(env, "XDG_CONFIG_HOME"), "mcpctl")
	for _, dir := range []string{"proxymodels", "stages"} {
		if err := os.MkdirAll(filepath.Join(config, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A stage that marks what it saw: the guide is too small for any built-in stage to change.
	if err := os.WriteFile(filepath.Join(config, "stages", "mark"), []byte("#!/bin/sh\nprintf 'MARKED '\ncat\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "proxymodels", "tiny.yaml"), []byte("minBytes: 1\nstages:\n  - type: mark\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("folder: Web App\ngated: false\nservers:\n")
	for _, name := range []string{"db", "docs"} {
		fmt.Fprintf(&b, "  %s:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: %q}\n", name, os.Args[0], name)
		if name == "db" {
			b.WriteString("    proxyModel: tiny\n")
		}
	}
	writeProject(t, env, "web", b.String())
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	read := func(uri string) string {
		t.Helper()
		var text string
		eventually(t, 20*time.Second, uri+" reads", func() bool {
			var req mcp.ReadResourceRequest
			req.Params.URI = uri
			res, err := s.ReadResource(context.Background(), req)
			if err != nil || len(res.Contents) == 0 {
				return false
			}
			tc, ok := res.Contents[0].(mcp.TextResourceContents)
			text = tc.Text
			return ok
		})
		return text
	}
	if text := read("test://db/guide"); !strings.HasPrefix(text, "MARKED # Guide from db") {
		t.Errorf("db's guide under db's model: %q, want it through the mark stage", text)
	}
	if text := read("test://docs/guide"); !strings.HasPrefix(text, "# Guide from docs") {
		t.Errorf("docs's guide under the project's model: %q, want it as it is", text)
	}
}
