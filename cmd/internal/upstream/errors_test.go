package upstream

import (
	"strings"
	"testing"
)

// A server whose start failed without a hint of its own (it could not be connected to) is
// advised in whole sentences, not ". It failed as it started…".
func TestStartFailedAdviceWithoutAHint(t *testing.T) {
	for _, hint := range []string{"", "Run servers.db.command by hand"} {
		e := ToolError(&UnavailableError{Server: "db", State: Failed, Reason: "exited", Hint: hint, StartFailed: true})
		if e == nil || strings.HasPrefix(e.Advice, ".") || strings.Contains(e.Advice, ". .") || !strings.Contains(e.Advice, "only the user can fix this") {
			t.Errorf("hint %q: advice %q", hint, e.Advice)
		}
	}
}
