package mcpserver

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A failed first call's error and briefing are one text block, the error first: Claude Code
// passes the model only an error result's first block.
func TestErrorWithBriefing(t *testing.T) {
	ours := errorWithBriefing([]mcp.Content{mcp.NewTextContent(`{"error":"PROMPT_NOT_FOUND","message":"m","hint":"h"}`)}, `<prompt name="a">read this</prompt>`)
	if len(ours) != 1 {
		t.Fatalf("%d blocks, want one", len(ours))
	}
	// The briefing's tags as they are: \u003c would cost the model's context 5 bytes a bracket.
	if got := ours[0].(mcp.TextContent).Text; got != `{"error":"PROMPT_NOT_FOUND","message":"m","hint":"h","briefing":"<prompt name=\"a\">read this</prompt>"}` {
		t.Errorf("mcpctl's error: %s", got)
	}
	img := mcp.NewImageContent("aGk=", "image/png")
	theirs := errorWithBriefing([]mcp.Content{mcp.NewTextContent("disk full"), mcp.NewTextContent("at /var"), img}, "read this")
	if len(theirs) != 2 || theirs[1] != img {
		t.Fatalf("%d blocks, want the text then the image", len(theirs))
	}
	if got := theirs[0].(mcp.TextContent).Text; !strings.HasPrefix(got, "disk full\n\nat /var\n\n") || !strings.HasSuffix(got, "read this") {
		t.Errorf("a server's error: %q", got)
	}
}
