package cmd

import (
	"os"
	"strings"
	"testing"
)

// The demo is what a newcomer runs first: it must get through every step against the real
// server, including a write through the queue.
//
// It is the throw-away library's session alone: a project of the user's (which does not even
// exist here) does not gate it, and its traffic is not written among the user's.
func TestDemoTranscript(t *testing.T) {
	t.Setenv("MCPCTL_BE_MAIN", "1") // the demo re-executes this binary as `mcpctl serve`
	t.Setenv("TMPDIR", t.TempDir())
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("MCPCTL_PROJECT", "web")
	code, out, stderr := run(t, nil, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, stderr)
	}
	if written, _ := os.ReadDir(state); len(written) > 0 {
		t.Errorf("the demo wrote %s into the user's state directory", written[0].Name())
	}
	for _, want := range []string{
		"→ tools/list", "→ list_folders", `1 found: "Code Review"`, "→ get_prompt",
		"success: Prompt 'Demo: Bug Report' created", `found: "Demo: Bug Report"`,
		"error INVALID_UUID", "healthy, mode standalone",
		"/code-review", "Review this Go change",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo transcript lacks %q:\n%s", want, out)
		}
	}
}
