package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/adrg/xdg"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// Library is a resolved library: where its database and queue are, and who processes its queue.
type Library = mcpserver.Library

// libraryFlags are the flags every subcommand that touches a library accepts.
type libraryFlags struct{ library, db, queue string }

// standaloneDefault is the Source of the library resolve falls back on when none is named.
const standaloneDefault = "standalone default"

func addLibraryFlags(fs *flagSet) *libraryFlags {
	f := &libraryFlags{}
	fs.StringVar(&f.library, "library", "", "library `DIR` holding prompts.db and import-queue/")
	fs.StringVar(&f.db, "db", "", "library database `FILE` (instead of --library)")
	fs.StringVar(&f.queue, "queue", "", "import queue `DIR` (default: import-queue/ beside the database)")
	return f
}

// The Prompteka app's library locations on macOS, sandboxed first.
var promptekaDirs = []string{
	"Library/Containers/com.robertgrow.prompteka/Data/Library/Application Support/prompteka",
	"Library/Application Support/prompteka",
}

// resolve finds the library, first hit wins: flags, environment, the Prompteka app's locations
// on macOS, then the standalone library under $XDG_DATA_HOME/mcpctl/library. With create set, a
// missing standalone library is made with the starter prompts.
func (f *libraryFlags) resolve(ctx context.Context, env Env, create bool) (Library, error) {
	var lib Library
	f.library, f.db, f.queue = expandHome(env, f.library), expandHome(env, f.db), expandHome(env, f.queue)
	switch {
	case f.library != "" && f.db != "":
		return lib, &usageError{msg: "--library and --db are alternatives; give one", hint: "use --library DIR for a library directory"}
	case f.library != "":
		lib = Library{DB: filepath.Join(f.library, queue.DBName), Source: "--library"}
	case f.db != "":
		lib = Library{DB: f.db, Source: "--db"}
	case env.Getenv("PROMPTEKA_DB_PATH") != "":
		lib = Library{DB: expandHome(env, env.Getenv("PROMPTEKA_DB_PATH")), Source: "PROMPTEKA_DB_PATH"}
	default:
		found, err := findPrompteka(env)
		if err != nil {
			return lib, err
		}
		if found != "" {
			lib = Library{DB: filepath.Join(found, queue.DBName), Source: "Prompteka app"}
		} else {
			lib = Library{DB: filepath.Join(dataHome(env), "mcpctl", "library", queue.DBName), Source: standaloneDefault}
			if create {
				if err := ensureStandalone(ctx, filepath.Dir(lib.DB)); err != nil {
					return lib, &hintError{msg: err.Error() + " (the standalone default: no --library, --db or PROMPTEKA_DB_PATH was given)",
						hint: fmt.Sprintf("make %s writable by the user mcpctl runs as (or set XDG_DATA_HOME to a directory that is), "+
							"or serve a library of your own with --library DIR, made with 'mcpctl library init DIR'", dataHome(env))}
				}
			}
		}
	}
	abs, err := filepath.Abs(lib.DB)
	if err != nil {
		return lib, err
	}
	lib.DB = abs
	lib.Dir = filepath.Dir(abs)
	switch {
	case f.queue != "":
		lib.Queue = f.queue
	case f.library == "" && f.db == "" && env.Getenv("PROMPTEKA_QUEUE_PATH") != "":
		lib.Queue = expandHome(env, env.Getenv("PROMPTEKA_QUEUE_PATH"))
	default:
		lib.Queue = filepath.Join(lib.Dir, queue.QueueName)
	}
	if lib.Queue, err = filepath.Abs(lib.Queue); err != nil {
		return lib, err
	}
	if _, err := os.Stat(lib.DB); err != nil {
		return lib, dbAccessError(lib, err)
	}
	lib.Standalone = queue.IsStandalone(lib.Dir)
	return lib, nil
}

// findPrompteka returns the first Prompteka library directory on this Mac, or "" when there is
// none. A library that exists but cannot be read (the sandbox asks for permission) is an error
// that says what to do, rather than a silent fall-through to the standalone library.
func findPrompteka(env Env) (string, error) {
	if runtime.GOOS != "darwin" {
		return "", nil
	}
	home := env.Getenv("HOME")
	if home == "" {
		return "", nil
	}
	for _, rel := range promptekaDirs {
		dir := filepath.Join(home, rel)
		_, err := os.Stat(filepath.Join(dir, queue.DBName))
		switch {
		case err == nil:
			return dir, nil
		case errors.Is(err, fs.ErrPermission):
			return "", dbAccessError(Library{DB: filepath.Join(dir, queue.DBName), Source: "Prompteka app"}, err)
		}
	}
	return "", nil
}

func dbAccessError(lib Library, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &hintError{msg: fmt.Sprintf("cannot read the library at %s (found by %s): permission denied", lib.DB, lib.Source),
			hint: "on macOS, give the app that starts mcpctl (Terminal, Claude, Cursor) Full Disk Access in " +
				"System Settings → Privacy & Security, then start it again"}
	case errors.Is(err, fs.ErrNotExist) && lib.Source == standaloneDefault:
		// Nobody gave a path to check: this is a fresh machine, where the first serve makes it.
		return &hintError{msg: fmt.Sprintf("no library yet: mcpctl keeps its prompts at %s, and nothing has created it", filepath.Dir(lib.DB)),
			hint: "the first 'mcpctl serve' creates it, with a few starter prompts (start your AI client, whose MCP config runs it; " +
				"'mcpctl mcp-config' prints the entry), or create it now with " + promptlib.Quoted("mcpctl library init "+promptlib.ShellWord(filepath.Dir(lib.DB)))}
	case errors.Is(err, syscall.ENOTDIR) && lib.Source == "--library":
		// --library took the database file for the directory holding it.
		return &hintError{msg: fmt.Sprintf("--library %s is not a directory", filepath.Dir(lib.DB)),
			hint: "--library takes the library's directory, the one holding prompts.db; give a database file with --db FILE"}
	case errors.Is(err, fs.ErrNotExist) && filepath.Base(lib.DB) != queue.DBName:
		// library init makes DIR/prompts.db: it cannot make a database of another name.
		return &hintError{msg: fmt.Sprintf("no library database at %s (found by %s)", lib.DB, lib.Source),
			hint: "check the path, or create a library with 'mcpctl library init DIR' and serve it with --library DIR"}
	case errors.Is(err, fs.ErrNotExist):
		return &hintError{msg: fmt.Sprintf("no library database at %s (found by %s)", lib.DB, lib.Source),
			hint: "check the path, or create a library there with " + promptlib.Quoted("mcpctl library init "+promptlib.ShellWord(filepath.Dir(lib.DB)))}
	default:
		return fmt.Errorf("cannot open the library at %s (found by %s): %v", lib.DB, lib.Source, err)
	}
}

// The XDG base directories mcpctl keeps its files under: the library ($XDG_DATA_HOME), config
// files, proxymodels and projects ($XDG_CONFIG_HOME), the content cache ($XDG_CACHE_HOME), trust
// records and traffic logs ($XDG_STATE_HOME).
func dataHome(env Env) string   { return xdgHome(env, "XDG_DATA_HOME", ".local/share", xdg.DataHome) }
func configHome(env Env) string { return xdgHome(env, "XDG_CONFIG_HOME", ".config", xdg.ConfigHome) }
func cacheHome(env Env) string  { return xdgHome(env, "XDG_CACHE_HOME", ".cache", xdg.CacheHome) }
func stateHome(env Env) string  { return xdgHome(env, "XDG_STATE_HOME", ".local/state", xdg.StateHome) }

// expandHome is path with a leading ~ (alone, or before a slash) as $HOME: an MCP client's
// config passes "--library", "~/prompts" to mcpctl as it is written, with no shell to expand it.
func expandHome(env Env, path string) string {
	home := env.Getenv("HOME")
	if home == "" || (path != "~" && !strings.HasPrefix(path, "~/")) {
		return path
	}
	return filepath.Join(home, path[1:])
}

// xdgHome reads the variable from env rather than the process, so tests and 'serve' started with
// another HOME agree. With HOME set it applies the XDG default below it itself (xdg resolved it once
// at start, from the process's HOME); on macOS it keeps xdg's ~/Library locations.
func xdgHome(env Env, variable, underHome, resolved string) string {
	if d := env.Getenv(variable); d != "" {
		return d
	}
	if h := env.Getenv("HOME"); h != "" && runtime.GOOS != "darwin" {
		return filepath.Join(h, filepath.FromSlash(underHome))
	}
	return resolved
}

// ensureStandalone creates the default standalone library with the starter prompts, once. It
// builds the library in a temporary sibling directory and renames it into place, so two servers
// started together on a fresh machine never both fill one database, and neither ever sees half a
// library.
func ensureStandalone(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, queue.DBName)); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("create the standalone library in %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".library-*")
	if err != nil {
		return fmt.Errorf("create the standalone library in %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp) // gone after a successful rename; the loser's copy otherwise
	if err := queue.CreateLibrary(ctx, tmp, promptlib.Starter()); err != nil {
		return fmt.Errorf("create the standalone library in %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, queue.DBName)); statErr == nil {
			return nil // another process made it first
		}
		return fmt.Errorf("create the standalone library in %s: %w", dir, err)
	}
	return nil
}
