package upstream

import (
	"strings"
	"testing"
	"time"
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

// A restart further off than a call waits is the advice, alone: beside it, a crash's hint that a
// call made meanwhile waits for the restart said the opposite.
func TestRestartFarOffIsTheAdvice(t *testing.T) {
	e := ToolError(&UnavailableError{Server: "db", State: Failed, Reason: "exited during the call",
		Hint: "mcpctl restarts it, and a call made meanwhile waits for the restart", RestartIn: 25 * time.Second})
	if e == nil || !strings.Contains(e.Advice, "Its next start is in about 25 s") || strings.Contains(e.Advice, "meanwhile") {
		t.Errorf("advice %q, want only when its next start is", e.Advice)
	}
}
