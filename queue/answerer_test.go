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
		{false, "linux", "none: the app is macOS-only (start `mcpctl queue process --force --library '/my lib'`)"},
		{true, "darwin", "mcpctl, not running (start `mcpctl serve --library '/my lib'` or `mcpctl queue process --library '/my lib'`)"},
		{true, "linux", "mcpctl, not running (start `mcpctl serve --library '/my lib'` or `mcpctl queue process --library '/my lib'`)"},
	}
	// The command names the library: without --library it would start a processor for the
	// default library, and this one's operations would wait on.
	for _, c := range free {
		a := WhoAnswers(c.standalone, "/my lib", dir, c.goos)
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
		if a := WhoAnswers(standalone, "/my lib", dir, "linux"); a.String() != "mcpctl, running" || a.Idle() {
			t.Errorf("standalone %v, a processor holds the lock: %q (idle %v); want mcpctl, running", standalone, a, a.Idle())
		}
	}
}
