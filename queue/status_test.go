package queue

import (
	"os"
	"path/filepath"
	"testing"
)

// Inspect with a negative count of failures lists none: it once sliced Failures[:-3] and
// panicked `mcpctl queue status --failures -3`.
func TestInspectNegativeFailureCount(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, failedDir), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002"} {
		if err := os.WriteFile(filepath.Join(dir, failedDir, id+".json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{-3, 0, 1, 5} {
		s, err := Inspect(dir, n)
		if err != nil {
			t.Fatal(err)
		}
		want := min(max(n, 0), 2)
		if s.Failed != 2 || len(s.Failures) != want {
			t.Errorf("Inspect(dir, %d): %d failed, %d failures listed; want 2 and %d", n, s.Failed, len(s.Failures), want)
		}
	}
}
