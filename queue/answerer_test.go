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
		a := WhoAnswers(c.standalone, "--library '/my lib'", dir, c.goos)
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
		if a := WhoAnswers(standalone, "--library '/my lib'", dir, "linux"); a.String() != "mcpctl, running" || a.Idle() {
			t.Errorf("standalone %v, a processor holds the lock: %q (idle %v); want mcpctl, running", standalone, a, a.Idle())
		}
	}
}

// The flags that name a library to a processor's command: --library only where the database and
// the queue are the directory's own; a queue given apart (--queue, PROMPTEKA_QUEUE_PATH) is named
// with the database, as --library alone would start a processor on another queue.
func TestLibraryArgs(t *testing.T) {
	for _, tc := range []struct{ db, queue, want string }{
		{"/lib/prompts.db", "/lib/import-queue", "--library /lib"},
		{"/my lib/prompts.db", "/my lib/import-queue/", "--library '/my lib'"},
		{"/lib/prompts.db", "/elsewhere/q", "--db /lib/prompts.db --queue /elsewhere/q"},
		{"/lib/other.db", "/lib/import-queue", "--db /lib/other.db --queue /lib/import-queue"},
	} {
		if got := LibraryArgs(tc.db, tc.queue); got != tc.want {
			t.Errorf("LibraryArgs(%q, %q) = %q, want %q", tc.db, tc.queue, got, tc.want)
		}
	}
}
