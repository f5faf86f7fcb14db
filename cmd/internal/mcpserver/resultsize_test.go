package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// Every tool listed declares the bound of its results to Claude Code; a project server's tool
// keeps its own _meta, and its own bound when lower.
func TestDeclareResultSize(t *testing.T) {
	own := &mcp.Meta{AdditionalFields: map[string]any{"vendor/x": "y", metaMaxResultChars: float64(500_000)}}
	lower := &mcp.Meta{AdditionalFields: map[string]any{metaMaxResultChars: float64(20_000)}}
	tools := declareResultSize(context.Background(), []mcp.Tool{
		{Name: "ours"}, {Name: "db__big", Meta: own}, {Name: "db__small", Meta: lower},
	})
	want := map[string]string{
		"ours":      `{"anthropic/maxResultSizeChars":100000}`,
		"db__big":   `{"anthropic/maxResultSizeChars":100000,"vendor/x":"y"}`,
		"db__small": `{"anthropic/maxResultSizeChars":20000}`,
	}
	for _, tl := range tools {
		got, err := json.Marshal(tl.Meta)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[tl.Name] {
			t.Errorf("%s: _meta %s, want %s", tl.Name, got, want[tl.Name])
		}
	}
	if own.AdditionalFields[metaMaxResultChars] != float64(500_000) {
		t.Errorf("the server's own _meta was changed: %v", own.AdditionalFields)
	}
}
