package cmd

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

func runLibrary(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		return &usageError{msg: "library: want 'init'", hint: "mcpctl library init [--sample N] DIR"}
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, "Usage: mcpctl library <init> [flags]\n\n"+
			"  init   create a standalone library in DIR (schema, WAL, queue directories, marker)\n")
		groupHelp(ctx, env, runLibraryInit)
		return nil
	}
	switch args[0] {
	case "init":
		return runLibraryInit(ctx, env, args[1:])
	default:
		return &usageError{msg: fmt.Sprintf("library: unknown subcommand %q", args[0]), hint: "run 'mcpctl library -h'"}
	}
}

func runLibraryInit(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("library init", "mcpctl library init [--sample N] DIR",
		"Creates a standalone library in DIR: prompts.db (Prompteka schema, WAL mode), import-queue/ with mode 0700,\n"+
			"and the marker file that tells 'mcpctl serve' to process its queue itself. Without --sample it holds\n"+
			"a few starter prompts; with --sample N, N generated prompts in nested folders (for trying things at scale).")
	sample := fs.Int("sample", 0, "fill the library with `N` generated prompts instead of the starter prompts")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want exactly one DIR, got %d arguments", fs.NArg())
	}
	// A leading ~ is the home directory, as serve --library takes it: a client's config or a
	// script passes "~/prompts" without a shell to expand it, and init made ./~/prompts.
	dir, err := filepath.Abs(expandHome(env, fs.Arg(0)))
	if err != nil {
		return err
	}
	// DIR, or a directory above it, being a file is the likely mistake; say so in those words
	// rather than as mkdir's "not a directory".
	for p := dir; ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			if !fi.IsDir() {
				return &hintError{msg: fmt.Sprintf("library init: %s is a file, not a directory; nothing was created", p),
					hint: "give the path of a directory to create (or of an empty one) for the library"}
			}
			break
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	lib := promptlib.Starter()
	if fs.isSet("sample") { // --sample 0 is an empty library
		if *sample < 0 || *sample > 1_000_000 {
			return fs.usageError("--sample %d: give a number of prompts from 0 to 1000000", *sample)
		}
		fmt.Fprintf(env.Stderr, "generating %d sample prompts…\n", *sample)
		lib = promptlib.Sample(*sample, 1)
	}
	if err := queue.CreateLibrary(ctx, dir, lib); errors.Is(err, queue.ErrLibraryExists) {
		return &hintError{msg: fmt.Sprintf("library init: %s already holds a library; nothing was changed", dir),
			hint: "serve it with " + promptlib.Quoted("mcpctl serve --library "+promptlib.ShellWord(dir)) + ", or give another DIR"}
	} else if pe := (*iofs.PathError)(nil); errors.As(err, &pe) {
		return &hintError{msg: fmt.Sprintf("library init: cannot create the library in %s: %s %s: %v", dir, pe.Op, pe.Path, pe.Err),
			hint: "give a DIR in a place you can write to (check the permissions of its parent directory)"}
	} else if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "created a standalone library with %s prompts in %d folders at %s\n",
		strconv.Itoa(len(lib.Prompts)), len(lib.Folders), dir)
	fmt.Fprintf(env.Stdout, "serve it with: mcpctl serve --library %s\n", promptlib.ShellWord(dir))
	return nil
}
