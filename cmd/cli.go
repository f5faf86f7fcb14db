package cmd

import (
	"context"
	"errors"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/tui"
)

// readLibrary reads the resolved library once, read-only, for a one-shot command (no search
// sidecar).
func readLibrary(ctx context.Context, env Env, lf *libraryFlags) (promptlib.Library, error) {
	lib, err := lf.resolve(ctx, env, false)
	if err != nil {
		return promptlib.Library{}, err
	}
	db, err := dbread.Open(ctx, lib.DB, dbread.Options{})
	if err != nil {
		return promptlib.Library{}, err
	}
	defer db.Close()
	return db.Library(ctx)
}

// libraryFolders reads the resolved library's folders once, read-only, without its prompts.
func libraryFolders(ctx context.Context, env Env, lf *libraryFlags) ([]promptlib.Folder, error) {
	lib, err := lf.resolve(ctx, env, false)
	if err != nil {
		return nil, err
	}
	db, err := dbread.Open(ctx, lib.DB, dbread.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	infos, err := db.Folders(ctx)
	folders := make([]promptlib.Folder, len(infos))
	for i, f := range infos {
		folders[i] = f.Folder
	}
	return folders, err
}

// libraryHint says what to do about a library database that exists but is not one mcpctl can
// read: not SQLite at all, damaged, or another program's database. Every command that opens a
// library (get, describe, gate, queue process, serve …) reports its error through report, so
// this is the one place for the hint; the readers' own errors are written for code (the driver's
// "file is not a database") and would leave the user guessing.
func libraryHint(err error) string {
	var se sqlite3.Error
	notDB := errors.As(err, &se) && (se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt)
	// dbread says so with ErrDamaged; the driver's words are the fallback for other readers.
	msg := err.Error()
	notDB = notDB || errors.Is(err, dbread.ErrDamaged) ||
		strings.Contains(msg, "file is not a database") || strings.Contains(msg, "database disk image is malformed")
	switch {
	case notDB:
		return "a library's prompts.db is the SQLite database of the Prompteka app or of 'mcpctl library init', and this file " +
			"is not one or is damaged: check that --library, --db or PROMPTEKA_DB_PATH names the library you mean; " +
			"restore the file from a backup, or create a new library with 'mcpctl library init DIR'"
	case errors.Is(err, dbread.ErrSchema):
		return "this SQLite database does not have the tables of a Prompteka library: check that --library, --db or PROMPTEKA_DB_PATH " +
			"names the library you mean (not another program's database); if the Prompteka app was updated, update mcpctl too"
	}
	return ""
}

// reorder moves flags before positional arguments, so "describe project NAME --library D" works.
func reorder(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			flags = append(flags, args[i])
			if !strings.Contains(args[i], "=") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, args[i])
	}
	return append(flags, pos...)
}

// cell makes text that comes from a library, a project file, a queue, an upstream server or a
// client safe for one cell of a table on a terminal: control characters are shown
// (tui.Printable), so a prompt titled "\x1b[2J" cannot clear the screen of whoever lists it;
// and the newlines and tabs Printable keeps become spaces, as they would end the row or shift
// the columns of a tabwriter table.
func cell(s string) string { return cellSpaces.Replace(tui.Printable(s)) }

var cellSpaces = strings.NewReplacer("\n", " ", "\t", " ", "\r", " ")

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indentBlock(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
