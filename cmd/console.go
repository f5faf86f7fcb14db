package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mcpctl/mcpctl/cmd/internal/trust"
	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/tui"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

func runConsole(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("console", "mcpctl console [--library DIR] [--project NAME]",
		"Shows the library, the import queue, the live traffic of every running server, the gate's briefing\n"+
			"and content pipelines in one terminal. Keys 1-5 and tab switch screens, ? shows the keys, q quits.\n"+
			"The console only reads, except retrying or discarding a failed operation on the Queue screen.")
	lf := addLibraryFlags(fs)
	project := fs.String("project", "", "the project the Gate screen shows first: "+projectHelp)
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	if !isTerminal(env.Stdout) || !ttyReadable(env.Stdin) {
		return &hintError{msg: "console needs a terminal to draw on and read keys from, and has none here",
			hint: "run 'mcpctl console' in a terminal window; in a script, 'mcpctl queue status', 'mcpctl traffic tail' " +
				"and 'mcpctl gate preview' print what its screens show"}
	}
	cfg := tui.Config{
		TrafficDir:  traffic.Dir(stateHome(env)),
		ProjectsDir: projectsDir(env),
		NoColor:     env.Getenv("NO_COLOR") != "",
	}
	br, done := briefer(env)
	defer done()
	cfg.Brief = func(ctx context.Context, lib promptlib.Library, p gate.Project, untrusted string) (*gate.Index, tui.Render, error) {
		br := br
		br.Untrusted = untrusted
		ix, render, err := br.Brief(ctx, lib, p)
		return ix, tui.Render(render), err
	}
	c, err := chooseProject(env, *project)
	switch {
	case err != nil:
		return err
	case c.repo:
		// Listed beside the user's projects; read again for each preview, as their files are.
		dir := trust.RepoDir(c.File)
		cfg.Repo = &tui.RepoProject{Name: c.Name, Load: func() (gate.Project, string, error) {
			r, err := trustStore(env).LoadRepo(dir)
			return r.Project, projectChoice{repo: true, trusted: r.Trusted, why: r.Reason}.untrusted(), err
		}}
	case c.Project != nil:
		cfg.Project = c.Name
	}
	// The Pipeline screen starts on the model this project's content gets from serve when no
	// override or server of its names another (mcpserver's contentPipeline.named): its
	// proxyModel, else the built-in default.
	cfg.ProxyModel = pipeline.DefaultModel
	if c.Project != nil && c.ProxyModel != "" {
		cfg.ProxyModel = c.ProxyModel
	}
	// A library that cannot be found or opened is said on the screens that need it; the queue,
	// traffic and gate texts stay useful. resolve names the directories even when it fails.
	lib, _ := lf.resolve(ctx, env, false)
	cfg.LibraryDir, cfg.LibraryDB, cfg.QueueDir = lib.Dir, lib.DB, lib.Queue
	open := func(ctx context.Context) (*dbread.DB, error) { return openConsoleLibrary(ctx, env, lf) }
	db, err := open(ctx)
	if err == nil {
		defer db.Close()
		cfg.DB = db
	}
	// Without it, the console keeps trying: the Library screen says how to make one, and the
	// library made is followed without a restart.
	cfg.LibraryErr, cfg.OpenLibrary = err, open
	// The program owns the terminal: the pipeline's diagnostics go nowhere.
	if e, perr := pipeline.NewEngine(pipeline.Options{ConfigDir: filepath.Join(configHome(env), "mcpctl"),
		CacheDir: filepath.Join(cacheHome(env), "mcpctl"), Logger: slog.New(slog.DiscardHandler), Getenv: env.Getenv}); perr == nil {
		defer e.Close()
		cfg.Pipeline = consolePipeline{e}
	}
	return tui.Run(ctx, cfg)
}

// openConsoleLibrary opens the library for the console, read-only. Its error is the one the
// command line reports, with the hint the command line prints under it as the error's UserHint,
// which the console shows (report's words, so a damaged prompts.db is told to be restored from
// a backup there as here). A library that no one has made yet, where none was named, is
// tui.ErrNoLibraryYet: the console says where it will be and what makes it.
func openConsoleLibrary(ctx context.Context, env Env, lf *libraryFlags) (*dbread.DB, error) {
	lib, err := lf.resolve(ctx, env, false)
	if err == nil {
		var db *dbread.DB
		db, err = dbread.Open(ctx, lib.DB, dbread.Options{
			CacheDir: filepath.Join(cacheHome(env), "mcpctl"),
			// The program owns the terminal: the reader's log lines would tear the screen.
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err == nil {
			return db, nil
		}
	}
	if lib.Source == standaloneDefault && lib.DB != "" && !exists(lib.DB) {
		return nil, fmt.Errorf("%w: %w", tui.ErrNoLibraryYet, err)
	}
	if h := libraryHint(err); h != "" {
		return nil, &hintError{msg: err.Error(), hint: h, err: err}
	}
	return nil, err // a *hintError with its fix already, or one the command line has none for
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
