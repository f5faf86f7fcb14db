package cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/gate"
)

// addSizeTools gives the test upstream the results that used to pass the pipeline whole.
func addSizeTools(s *server.MCPServer) {
	// A 200 KB JSON text with the same JSON as structuredContent, as servers with an output
	// schema answer.
	s.AddTool(mcp.NewTool("structured", mcp.WithDescription("200 KB of records, also as structuredContent (only there, with only: true; "+
		"beside a one-line summary, with summary: true; as an error, with fail: true)."), mcp.WithBoolean("only"), mcp.WithBoolean("summary"), mcp.WithBoolean("fail")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := bigRecords()
			res := mcp.NewToolResultStructured(json.RawMessage(`{"records":`+text+`}`), text)
			switch {
			case req.GetBool("only", false):
				res.Content = nil
			case req.GetBool("summary", false):
				res.Content = []mcp.Content{mcp.NewTextContent("1400 records")}
			case req.GetBool("fail", false):
				res.IsError = true
			}
			return res, nil
		})
	s.AddTool(mcp.NewTool("dense", mcp.WithDescription("60 KB of ids, about 38,000 tokens (with kb, that many KB).")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(denseIDs(req.GetInt("kb", 60))), nil
		})
	// 3,000 resource links, about 400 KB: a search that names every file it found.
	s.AddTool(mcp.NewTool("links", mcp.WithDescription("3,000 resource links.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: sizeLinks()}, nil
		})
	// A JSON-RPC error with a 1 MB message.
	s.AddTool(mcp.NewTool("rpcfail", mcp.WithDescription("Fails with a 1 MB message.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("failed: " + strings.Repeat("x", 1<<20) + " the end")
		})
	// A full-page screenshot, 400×3000 pixels, also as base64 in structuredContent, as some
	// servers answer.
	s.AddTool(mcp.NewTool("screenshot", mcp.WithDescription("A full-page screenshot, or with kind audio a 300 KB recording."), mcp.WithString("kind")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.GetString("kind", "") == "audio" {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a recording"),
					mcp.NewAudioContent(base64.StdEncoding.EncodeToString(make([]byte, 300<<10)), "audio/wav")}}, nil
			}
			data := screenshotData()
			res := mcp.NewToolResultStructured(map[string]any{"width": 400, "height": 3000, "png": data}, "the whole page")
			res.Content = append(res.Content, mcp.NewImageContent(data, "image/png"))
			return res, nil
		})
	// 200 text blocks of 1.9 KB: each under any model's minBytes, 380 KB together.
	s.AddTool(mcp.NewTool("blocks", mcp.WithDescription("200 blocks of text.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: sizeBlocks()}, nil
		})
}

// screenshotData is a 400×3000 PNG, base64: a long page's screenshot, stripes with some noise.
// It is small for one (BenchmarkFitMediaScreenshot has 1280×9000): the race detector makes
// decoding and scaling it twenty times slower, and a 1280×9000 one took 50 s a test.
var screenshotData = sync.OnceValue(func() string {
	img := image.NewGray(image.Rect(0, 0, 400, 3000))
	x := uint32(1)
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = uint8((i/16)%2*200) | uint8(x&1)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
})

func sizeLinks() []mcp.Content {
	var out []mcp.Content
	for i := range 3000 {
		out = append(out, mcp.NewResourceLink(fmt.Sprintf("test://db/files/%04d.go", i), fmt.Sprintf("%04d.go", i), "a source file of the project", "text/x-go"))
	}
	return out
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
	s := serveDB(t, "", "")
	res := callWhenUp(t, s, "db__structured")
	if wire, _ := json.Marshal(res); res.StructuredContent != nil || len(res.RawStructuredContent) > 0 || len(wire) > 16<<10 {
		t.Errorf("db__structured: %d bytes on the wire, structuredContent %v; want an index alone", len(wire), res.StructuredContent != nil || len(res.RawStructuredContent) > 0)
	}

	// Sent as structuredContent alone, the same records are text to the pipeline: paged like
	// any text, where they passed whole (the JSON is what Claude Code shows the model).
	only, err := callTool(context.Background(), s.Client, "db__structured", map[string]any{"only": true}, nil)
	if wire, _ := json.Marshal(only); err != nil || only.StructuredContent != nil || len(only.RawStructuredContent) > 0 || len(wire) > 16<<10 {
		t.Errorf("db__structured only: %v, %d bytes on the wire, structuredContent %v; want an index alone", err, len(wire), only != nil && (only.StructuredContent != nil || len(only.RawStructuredContent) > 0))
	}

	// Beside a one-line summary, the same records as structuredContent are what Claude Code
	// shows the model: text to the pipeline too, where they passed whole.
	summary, err := callTool(context.Background(), s.Client, "db__structured", map[string]any{"summary": true}, nil)
	if wire, _ := json.Marshal(summary); err != nil || summary.StructuredContent != nil || len(summary.RawStructuredContent) > 0 || len(wire) > 16<<10 {
		t.Errorf("db__structured summary: %v, %d bytes on the wire; want an index alone", err, len(wire))
	} else if _, joined := readSections(t, s, summary); !strings.Contains(joined, "1400 records") || !strings.Contains(joined, bigRecords()) {
		t.Errorf("the sections of db__structured summary hold %d bytes, want the summary and every record", len(joined))
	}

	// An error result is bounded too: a failing run's log passed whole.
	failed, err := callTool(context.Background(), s.Client, "db__structured", map[string]any{"fail": true}, nil)
	if wire, _ := json.Marshal(failed); err != nil || !failed.IsError || len(wire) > 16<<10 {
		t.Errorf("db__structured fail: %v, isError %v, %d bytes on the wire; want an error of an index", err, failed != nil && failed.IsError, len(wire))
	}

	// Resource links count: 3,000 of them were 400 KB no bound saw. They become lines of text,
	// paged.
	links, err := callTool(context.Background(), s.Client, "db__links", map[string]any{}, nil)
	if wire, _ := json.Marshal(links); err != nil || len(wire) > 16<<10 {
		t.Errorf("db__links: %v, %d bytes on the wire; want an index", err, len(wire))
	} else if _, joined := readSections(t, s, links); !strings.Contains(joined, "<test://db/files/0000.go>") || !strings.Contains(joined, "<test://db/files/2999.go>") {
		t.Errorf("the sections of db__links (%d bytes) do not list every link", len(joined))
	}

	// A server's JSON-RPC error message is clipped, its start and end kept.
	rpc, err := callTool(context.Background(), s.Client, "db__rpcfail", map[string]any{}, nil)
	if wire, _ := json.Marshal(rpc); err != nil || !rpc.IsError || len(wire) > 4<<10 || !strings.Contains(resultText(rpc), "bytes left out") || !strings.Contains(resultText(rpc), "the end") {
		t.Errorf("db__rpcfail: %v, %d bytes on the wire: %.300s; want UPSTREAM_ERROR with the message clipped", err, len(wire), wire)
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

// Under a model that splits by structure, a one-line summary beside big structuredContent is
// indexed as the JSON alone is, by its keys and elements, with the summary shown whole in the
// index: serve joins the two into one text, which was split by lines and bytes ("line 3, bytes
// 11947–23905") because it did not start with a bracket.
func TestUpstreamSummaryBesideStructuredIsIndexedAsJSON(t *testing.T) {
	s := serveDB(t, "", "    proxyModel: subindex\n")
	callWhenUp(t, s, "db__dense")
	res, err := callTool(context.Background(), s.Client, "db__structured", map[string]any{"summary": true}, nil)
	if err != nil || res.IsError {
		t.Fatalf("db__structured summary: %v, %s", err, resultText(res))
	}
	index := resultText(res)
	for _, want := range []string{"JSON object, ", "(before the JSON) (14 B): 1400 records", `"records"`} {
		if !strings.Contains(index, want) {
			t.Errorf("the index lacks %q:\n%s", want, index)
		}
	}
	if strings.Contains(index, "bytes ") {
		t.Errorf("the index has byte ranges, want the JSON's keys:\n%s", index)
	}
	if wire, _ := json.Marshal(res); len(wire) > 16<<10 {
		t.Errorf("%d bytes on the wire, want an index", len(wire))
	}
	t.Logf("index:\n%s", index)
	ref, _ := readSections(t, s, res)
	var summary struct {
		Content string `json:"content"`
	}
	if s.call(t, "read_section", map[string]any{"ref": ref, "section": "1"}, &summary); summary.Content != "1400 records\n\n" {
		t.Errorf("section 1 is %.200q (%d bytes), want the summary alone", summary.Content, len(summary.Content))
	}
}

// A screenshot over the Claude API's limits reaches the client scaled to them, with a note of
// its original size, and its copy in structuredContent does not come: Claude Code puts that copy
// into the model's context as text.
func TestUpstreamScreenshotFitsTheAPI(t *testing.T) {
	s := serveDB(t, "", "")
	res := callWhenUp(t, s, "db__screenshot")
	var texts []string
	var cfg image.Config
	images := 0
	for _, c := range res.Content {
		switch b := c.(type) {
		case mcp.TextContent:
			texts = append(texts, b.Text)
		case mcp.ImageContent:
			images++
			cfg = imageSize(t, b.Data, b.MIMEType)
		}
	}
	if images != 1 || cfg.Width != 266 || cfg.Height != 2000 {
		t.Errorf("%d images, %d×%d; want one, scaled to 266×2000", images, cfg.Width, cfg.Height)
	}
	if note := strings.Join(texts, "\n"); !strings.Contains(note, "the whole page") || !strings.Contains(note, "from 400×3000 pixels to 266×2000") {
		t.Errorf("the texts %q; want the server's and a note of the original size", note)
	}
	// The copy is marked, or gone with the rest of structuredContent when the images alone are
	// over a result's bound (the pipeline's rule).
	wire, _ := json.Marshal(res)
	if original := screenshotData(); strings.Contains(string(wire), original) || strings.Count(string(wire), `"data":"`) != 1 {
		t.Errorf("the original's data is on the wire, or more than one image: %.300s", wire)
	}
	t.Logf("%d bytes on the wire, from %d bytes of image data", len(wire), len(screenshotData()))
}

// denseIDs is kb KB of ids, one a line: 60 KB is within a result's 100 KB, but about 38,000
// tokens by Anthropic's tokenizer (ids take one for every 1.6 bytes), over Claude Code's 25,000;
// 28 KB is over the 20,000 mcpctl's estimate allows, under the default model's minBytes.
func denseIDs(kb int) string {
	var b strings.Builder
	for i := 0; b.Len() < kb*1000; i++ {
		fmt.Fprintf(&b, "%08x-%04x-4%03x-8%03x-%012x\n", uint32(i*2654435761), i%65536, i%4096, i*7%4096, i*40503)
	}
	return b.String()
}

// A model that leaves a 200 KB result, or 60 KB of ids, as it is (passthrough alone, or a
// minBytes over it, even as a default.yaml) does not send it whole: the built-in default's pages
// bound every result, in bytes and in tokens.
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
		callWhenUp(t, s, "db__big")
		for _, call := range []struct {
			args  map[string]any
			tool  string
			whole string
		}{{nil, "db__big", bigRecords()}, {nil, "db__dense", denseIDs(60)}, {map[string]any{"kb": 28}, "db__dense", denseIDs(28)}} {
			res, err := callTool(context.Background(), s.Client, call.tool, call.args, nil)
			if err != nil || res.IsError {
				t.Fatalf("%s %v: %v %v", call.tool, call.args, err, res)
			}
			text := resultText(res)
			if len(text) > 16<<10 || !strings.HasPrefix(call.whole, text[:8<<10/2]) || res.Meta == nil || res.Meta.AdditionalFields["mcpctl/sections"] == nil {
				t.Errorf("%s.yaml %q, %s %v: %d bytes of text; want the first 8 KB page and the list of the others", c.file, c.model, call.tool, call.args, len(text))
			}
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
	if !strings.Contains(b.Text, "search_prompts, ") || !strings.Contains(b.Text, "db__* (11)") || !strings.Contains(b.Text, "docs__* (11)") {
		t.Errorf("the briefing's open tools: %.600s", b.Text)
	}
}

// A briefing made while a server is still starting, or after it failed, names the server and
// its state: it listed mcpctl's own tools only, and the model took the project's for missing.
func TestBriefingNamesServersNotReady(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngateMode: soft\nservers:\n"+
		"  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db, MCPCTL_UPSTREAM_REVIEW: \"1\", MCPCTL_UPSTREAM_HOLD: %q}\n    timeoutMs: 20000\n"+
		"  gone:\n    command: %q\n",
		os.Args[0], filepath.Join(t.TempDir(), "never"), filepath.Join(t.TempDir(), "no-such-command")))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	eventually(t, 20*time.Second, "gone has failed", func() bool {
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		return len(h.Upstreams) == 2 && h.Upstreams[1].Name == "gone" && h.Upstreams[1].State == "failed"
	})
	var b gate.Result
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql"}}, &b)
	if !strings.Contains(b.Text, "db__* (starting)") || !strings.Contains(b.Text, "gone__* (failed: see health_check)") {
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
	// An error mcpctl made is its own JSON, not the server's answer: it passes as it is.
	s.callError(t, "db__rpcfail", map[string]any{}, "UPSTREAM_ERROR")
}
