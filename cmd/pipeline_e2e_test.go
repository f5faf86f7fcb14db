package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// proxyModelOverrides keyed by a prompt's name pick the model for that prompt: the pipeline saw
// every prompts/get under the router's name, so an override never matched.
func TestProxyModelOverrideByPromptName(t *testing.T) {
	lib := projectLibrary(t)
	var body strings.Builder
	body.WriteString("Use migrations for every schema change.\n")
	for _, h := range []string{"Naming", "Indexes", "Migrations", "Queries", "Transactions"} {
		body.WriteString("\n## " + h + "\n\n" + strings.Repeat("A rule of "+h+" that the team keeps to in every change.\n", 40))
	}
	lib.Exec(t, "UPDATE prompts SET body = ? WHERE title = 'SQL Conventions'", body.String())
	env := testHome(t)
	// The project's model (default) leaves a 12 KB prompt whole; the override makes it an index.
	writeProject(t, env, "web", "folder: Web App\ngated: false\nproxyModelOverrides:\n  sql-conventions: subindex\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	get := func(name string) string {
		t.Helper()
		res, err := s.GetPrompt(context.Background(), getPromptRequest(name, nil))
		if err != nil || len(res.Messages) == 0 {
			t.Fatalf("prompts/get %s: %v", name, err)
		}
		tc, _ := mcp.AsTextContent(res.Messages[0].Content)
		return tc.Text
	}
	if text := get("sql-conventions"); len(text) >= body.Len() || !strings.Contains(text, "read_section") {
		t.Errorf("sql-conventions under its override: %d bytes of %d, want subindex's table:\n%.300s", len(text), body.Len(), text)
	}
	if text := get("security-policy"); !strings.Contains(text, "Never log secrets") || strings.Contains(text, "read_section") {
		t.Errorf("security-policy, no override: %q, want it whole", text)
	}
}
