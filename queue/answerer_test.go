package queue

import (
	"testing"
)

// Who answers a queue: the app only for its own library on macOS; otherwise whichever mcpctl
// processor holds the lock, and when none does, what to start.
func TestWhoAnswers(t *testing.T) {
	dir := t.TempDir()
	free := []struct {
		standalone bool
		goos, want string
	}{
		{false, "darwin", "the Prompteka app"},
		{false, "linux", "none: the app is macOS-only (start 'mcpctl queue process --force')"},
		{true, "darwin", "mcpctl, not running (start 'mcpctl serve' or 'mcpctl queue process')"},
		{true, "linux", "mcpctl, not running (start 'mcpctl serve' or 'mcpctl queue process')"},
	}
	for _, c := range free {
		a := WhoAnswers(c.standalone, dir, c.goos)
		if a.String() != c.want || a.Idle() != !a.App {
			t.Errorf("standalone %v on %s, no processor: %q (idle %v); want %q", c.standalone, c.goos, a, a.Idle(), c.want)
		}
	}
	lock, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	for _, standalone := range []bool{false, true} {
		if a := WhoAnswers(standalone, dir, "linux"); a.String() != "mcpctl, running" || a.Idle() {
			t.Errorf("standalone %v, a processor holds the lock: %q (idle %v); want mcpctl, running", standalone, a, a.Idle())
		}
	}
}
