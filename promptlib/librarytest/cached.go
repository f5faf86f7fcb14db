package librarytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Cached returns the directory of a library of n sample prompts (promptlib.Sample(n, 1)),
// made once and kept under os.TempDir() keyed by size, for benchmarks: building 100k takes
// seconds. Callers must not write it (copy it first). It is made in a temporary directory and
// renamed into place, so concurrent test processes never see half a library.
func Cached(tb testing.TB, n int) string {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("mcpctl-bench-library-%d", n))
	if _, err := os.Stat(filepath.Join(dir, "prompts.db")); err == nil {
		return dir
	}
	tmp, err := os.MkdirTemp(os.TempDir(), fmt.Sprintf("mcpctl-bench-library-%d-*", n))
	if err != nil {
		tb.Fatal(err)
	}
	w, err := OpenWriter(filepath.Join(tmp, "prompts.db"))
	if err != nil {
		tb.Fatal(err)
	}
	err = promptlib.Create(context.Background(), w, promptlib.Sample(n, 1))
	if err == nil {
		_, err = w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = os.Rename(tmp, dir); err != nil {
			if _, statErr := os.Stat(filepath.Join(dir, "prompts.db")); statErr == nil {
				err = nil // another process made it first
			}
		}
	}
	os.RemoveAll(tmp) // gone after a rename; the loser's copy otherwise
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}
