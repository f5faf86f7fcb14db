package cmd

import (
	"context"
	"strings"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/tui"
)

// projectIndexes builds each project's prompt index from one read of the library.
func projectIndexes(ctx context.Context, env Env, lf *libraryFlags, projects []gate.Project) ([]*gate.Index, error) {
	db, err := openForCLI(ctx, env, lf)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	lib, err := db.Library(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*gate.Index, len(projects))
	for i, p := range projects {
		if out[i], _, err = gate.LibraryIndex(lib, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// openForCLI opens the resolved library read-only for a one-shot command (no search sidecar).
func openForCLI(ctx context.Context, env Env, lf *libraryFlags) (*dbread.DB, error) {
	lib, err := lf.resolve(ctx, env, false)
	if err != nil {
		return nil, err
	}
	return dbread.Open(ctx, lib.DB, dbread.Options{})
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

// printable is tui.Printable, for text of several lines (a greeting, an error message).
func printable(s string) string { return tui.Printable(s) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indentBlock(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
