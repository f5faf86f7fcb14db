package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestPreparedResultReachesTheClient runs a prepared result through mcp-go's stdio server and the
// wire, with a middleware that puts content before it as the gate does: the client gets both
// contents and the structured result, text with characters JSON must escape, and no marker.
func TestPreparedResultReachesTheClient(t *testing.T) {
	const text = "{\"a\":\"<b> & \\\"q\\\" é \u2028 \\u0001\"}"
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	obs := &observer{log: slog.New(slog.DiscardHandler)}
	srv.Use(observeTool(obs))
	srv.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			res.Content = append([]mcp.Content{mcp.NewTextContent("briefing first")}, res.Content...)
			return res, err
		}
	})
	srv.AddTool(mcp.NewTool("t"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		buf := resultBuffers.get() // as the real handler does: the wire returns it
		buf.Reset()
		buf.WriteString(text)
		return prepareResult(callFrom(ctx), buf, buf.Bytes(), ""), nil
	})

	clientIn, toServer := io.Pipe()
	fromServer, clientOut := io.Pipe()
	w := obs.wire(clientIn, clientOut)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = server.NewStdioServer(srv).Listen(ctx, w.in(), w.out()) }()
	lines := bufio.NewScanner(fromServer)
	lines.Buffer(nil, 1<<20)
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(toServer, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if !lines.Scan() {
		t.Fatal("no answer to initialize")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// Ids that mcp-go writes back in another form than they were sent.
	for _, id := range []string{`2`, `3.0`, `"<x>"`, `"a\u0041"`, `"\u00e9"`} {
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
		if !lines.Scan() {
			t.Fatalf("id %s: no answer to tools/call", id)
		}
		checkPrepared(t, id, lines.Text(), text)
	}
}

func checkPrepared(t *testing.T, id, line, text string) {
	t.Helper()
	if strings.Contains(line, "mcpctl-"+preparedNonce) {
		t.Fatalf("id %s: a marker reached the client: %s", id, line)
	}
	var resp struct {
		Result struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
			Structured json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("id %s: the response is not JSON: %v\n%s", id, err, line)
	}
	r := resp.Result
	if len(r.Content) != 2 || r.Content[0].Text != "briefing first" || r.Content[1].Type != "text" || r.Content[1].Text != text {
		t.Fatalf("id %s: content = %+v, want the briefing and then %q", id, r.Content, text)
	}
	var got, want any
	if json.Unmarshal(r.Structured, &got) != nil || json.Unmarshal([]byte(text), &want) != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("id %s: structuredContent = %s, want %s", id, r.Structured, text)
	}
	if !isASCII([]byte(line)) {
		t.Fatalf("id %s: the line is not ASCII: %s", id, line)
	}
}

// TestSpliceOrders: the markers are replaced wherever they stand; a message without them is
// passed as it is.
func TestSpliceOrders(t *testing.T) {
	pr := &prepared{seq: 7, structured: []byte(`{"s":1}`), prose: "T"}
	textMarker, structuredMarker := marker(7, "text"), marker(7, "structured")
	for _, tc := range []struct{ in, want string }{
		{`{"c":[` + string(textMarker) + `],"s":` + string(structuredMarker) + `}`, `{"c":["T"],"s":{"s":1}}`},
		{`{"s":` + string(structuredMarker) + `,"c":[` + string(textMarker) + `]}`, `{"s":{"s":1},"c":["T"]}`},
		{`{"c":[],"s":` + string(structuredMarker) + `}`, `{"c":[],"s":{"s":1}}`},
		{`{"c":[]}`, `{"c":[]}`},
	} {
		if got := string(pr.splice(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("splice(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestPreparedWithoutWire: a handler called directly (no wire to splice) gets an ordinary result.
func TestPreparedWithoutWire(t *testing.T) {
	res := prepareResult(callFrom(context.Background()), nil, []byte(`{"x":1}`), "")
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok || tc.Text != `{"x":1}` {
		t.Fatalf("content = %#v, want the text", res.Content)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"x":1}` {
		t.Fatalf("structured = %s", b)
	}
}

// FuzzAppendJSONString: whatever the text, it is written as one ASCII JSON string that reads
// back as encoding/json's own encoding of it does (invalid UTF-8 as U+FFFD), from a string or
// from bytes.
func FuzzAppendJSONString(f *testing.F) {
	for _, seed := range []string{"", "plain", `q"b\s`, "tab\tnl\nnul\x00\x1f", "é\u2028😀", "bad\xff\xfe utf8 \xe2\x82", "<a & b>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		var wantS string
		if err := json.Unmarshal(want, &wantS); err != nil {
			t.Fatal(err)
		}
		for _, got := range [][]byte{appendJSONString([]byte("x"), s)[1:], appendJSONString(nil, []byte(s))} {
			var gotS string
			if err := json.Unmarshal(got, &gotS); err != nil || gotS != wantS || !isASCII(got) {
				t.Fatalf("appendJSONString(%q) = %s (%v), reads back as %q, want %q", s, got, err, gotS, wantS)
			}
		}
	})
}
