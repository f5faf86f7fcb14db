package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/tui"
)

// The console says what is wrong with a library, and what to do, in the words the command line
// prints (report): its error line and, apart, its hint, which the console shows under the error.
// A machine where no library was made yet is no error to the console (tui.ErrNoLibraryYet).
func TestConsoleLibraryErrorsAreTheCommandLines(t *testing.T) {
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_CACHE_HOME": filepath.Join(home, "cache")}
	env := Env{Getenv: func(k string) string { return vars[k] }}
	damaged := filepath.Join(home, "damaged")
	if err := os.MkdirAll(damaged, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(damaged, "prompts.db"), []byte("not a database, not even close; a page of junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{damaged, filepath.Join(home, "missing")} {
		_, err := openConsoleLibrary(context.Background(), env, &libraryFlags{library: dir})
		var h interface{ UserHint() string }
		if err == nil || !errors.As(err, &h) || h.UserHint() == "" {
			t.Fatalf("--library %s: error %v carries no hint", dir, err)
		}
		_, _, stderr := run(t, vars, "get", "prompts", "--library", dir)
		if !strings.HasPrefix(stderr, "mcpctl: "+err.Error()+"\nhint: "+h.UserHint()+"\n") {
			t.Errorf("--library %s: the console says\n%s\nhint: %s\nwhere the command line says\n%s", dir, err, h.UserHint(), stderr)
		}
		if strings.Contains(err.Error(), h.UserHint()) {
			t.Errorf("--library %s: the error %q says its fix too: the console would say it twice", dir, err)
		}
	}
	if _, err := openConsoleLibrary(context.Background(), env, &libraryFlags{library: damaged}); !strings.Contains(err.(interface{ UserHint() string }).UserHint(), "restore the file from a backup") {
		t.Errorf("a damaged prompts.db: the hint does not say to restore a backup: %v", err)
	}
	if _, err := openConsoleLibrary(context.Background(), env, &libraryFlags{}); !errors.Is(err, tui.ErrNoLibraryYet) {
		t.Errorf("no library named and none made: error %v, want tui.ErrNoLibraryYet", err)
	}
}
