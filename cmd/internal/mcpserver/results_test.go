package mcpserver

import (
	"slices"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// A result carries a prompt (the gate then never sends it again) only when it holds all of the
// content the gate would send.
func TestResultsCarried(t *testing.T) {
	body, link, web := "Body.", "mcp+docs:file:///rules.md", "https://example.com"
	one := func(pages int, status string) PromptResult {
		return PromptResult{Prompt: promptlib.Prompt{ID: "p"}, Page: 1, Pages: pages, LinkStatus: status}
	}
	for _, tt := range []struct {
		name string
		res  interface{ carried() []string }
		want []string
	}{
		{"a whole prompt", one(1, ""), []string{"p"}},
		{"a linked prompt read from its upstream", one(1, linkOK), []string{"p"}},
		{"one page of several", one(3, ""), nil},
		{"a dead link's stored body", one(1, linkDead), nil},
		{"a page with content", PromptsResult{Prompts: []PromptItem{
			{ID: "a", Content: &body},
			{ID: "b"},                             // summary only
			{ID: "c", ContentOmitted: true},       // over the result limit
			{ID: "d", Content: &body, URL: &link}, // the stored body, not the linked resource
			{ID: "e", Content: &body, URL: &web},  // an ordinary url
		}}, []string{"a", "e"}},
	} {
		if got := tt.res.carried(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: carried %v, want %v", tt.name, got, tt.want)
		}
	}
}
