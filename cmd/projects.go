package cmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
)

// The project commands show what a session of a project would see, without an MCP client:
// get projects, get prompts, describe project, gate preview.

func runGet(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || (args[0] != "projects" && args[0] != "prompts") {
		return &usageError{msg: "get: want 'projects' or 'prompts'", hint: "mcpctl get projects | mcpctl get prompts [--project P | -A]"}
	}
	if args[0] == "projects" {
		return getProjects(env, args[1:])
	}
	return getPrompts(ctx, env, args[1:])
}

func getProjects(env Env, args []string) error {
	fs := newFlagSet("get projects", "mcpctl get projects", "Lists the projects in $XDG_CONFIG_HOME/mcpctl/projects.")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	names, err := gate.ListProjects(projectsDir(env))
	if err != nil {
		return err
	}
	if len(names) == 0 {
		fmt.Fprintf(env.Stderr, "no projects in %s\n", projectsDir(env))
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFOLDER\tGATED\tMODE\tBUDGET\tINDEX CAP")
	for _, n := range names {
		p, err := gate.LoadProject(projectsDir(env), n)
		if err != nil {
			fmt.Fprintf(tw, "%s\t(invalid: %v)\n", n, err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%d\t%d\n", p.Name, orDash(p.Folder), p.Gated, p.GateMode, p.ByteBudget, p.IndexCap)
	}
	return tw.Flush()
}

func getPrompts(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("get prompts", "mcpctl get prompts [--project P | -A] [--library DIR]",
		"Lists the prompts a project's sessions see, by priority: PROJECT, NAME, PRIORITY, FOLDER, SUMMARY.\n"+
			"Without --project, the whole library; with -A, every project.")
	lf := addLibraryFlags(fs)
	name := fs.String("project", "", "the project `NAME`")
	all := fs.Bool("A", false, "every project")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if *all && *name != "" {
		return fs.usageError("--project and -A are alternatives")
	}
	var projects []gate.Project
	switch {
	case *all:
		names, err := gate.ListProjects(projectsDir(env))
		if err != nil {
			return err
		}
		for _, n := range names {
			p, err := gate.LoadProject(projectsDir(env), n)
			if err != nil {
				return err
			}
			projects = append(projects, p)
		}
	case *name != "":
		p, err := loadProject(env, *name)
		if err != nil {
			return err
		}
		projects = append(projects, *p)
	default:
		projects = append(projects, gate.NoProject())
	}
	indexes, err := projectIndexes(ctx, env, lf, projects)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tNAME\tPRIORITY\tFOLDER\tSUMMARY")
	for _, ix := range indexes {
		for _, e := range ix.Entries() {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", ix.Project().DisplayName(), e.Name, e.Priority, orDash(e.FolderPath), e.Summary)
		}
	}
	return tw.Flush()
}

func runDescribe(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "project" {
		return &usageError{msg: "describe: want 'project NAME'", hint: "mcpctl describe project NAME"}
	}
	fs := newFlagSet("describe project", "mcpctl describe project NAME [--library DIR]",
		"Shows a project's settings, the greeting a client receives, and its prompts by priority.")
	lf := addLibraryFlags(fs)
	if err := fs.parse(env, reorder(args[1:])); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one project NAME")
	}
	p, err := loadProject(env, fs.Arg(0))
	if err != nil {
		return err
	}
	indexes, err := projectIndexes(ctx, env, lf, []gate.Project{*p})
	if err != nil {
		return err
	}
	ix := indexes[0]
	w := env.Stdout
	fmt.Fprintf(w, "Project:     %s\nFile:        %s\nFolder:      %s\nGated:       %v (%s mode)\nByte budget: %d\nIndex cap:   %d\n",
		p.Name, p.File, orDash(p.Folder), p.Gated, p.GateMode, p.ByteBudget, p.IndexCap)
	if p.ProxyModel != "" {
		fmt.Fprintf(w, "Proxy model: %s\n", p.ProxyModel)
	}
	if u := ix.UnknownPriorities(); len(u) > 0 {
		fmt.Fprintf(w, "Warning:     priorities name prompts that do not exist: %s\n", strings.Join(u, ", "))
	}
	text, _ := gate.Renderer{}.Instructions(ix, p.Gated)
	fmt.Fprintf(w, "\nWhat a client receives at initialize:\n\n%s\n\n", indentBlock(text))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PRIORITY\tNAME\tFOLDER\tBYTES\tSUMMARY")
	entries := append([]gate.Entry(nil), ix.Entries()...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Priority > entries[j].Priority })
	for _, e := range entries {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", e.Priority, e.Name, orDash(e.FolderPath), e.Bytes, e.Summary)
	}
	return tw.Flush()
}

func runGate(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "preview" {
		return &usageError{msg: "gate: want 'preview'", hint: "mcpctl gate preview --project P TAG..."}
	}
	fs := newFlagSet("gate preview", "mcpctl gate preview --project P [--library DIR] TAG...",
		"Prints exactly what begin_session would return to a new session of project P for these tags.")
	lf := addLibraryFlags(fs)
	name := fs.String("project", "", "the project `NAME` (required)")
	if err := fs.parse(env, args[1:]); err != nil {
		return err
	}
	if *name == "" || fs.NArg() == 0 {
		return fs.usageError("want --project and at least one TAG")
	}
	p, err := loadProject(env, *name)
	if err != nil {
		return err
	}
	db, err := openForCLI(ctx, env, lf)
	if err != nil {
		return err
	}
	defer db.Close()
	lib, err := snapshot(ctx, db)
	if err != nil {
		return err
	}
	ix, err := gate.NewIndex(lib, *p)
	if err != nil {
		return err
	}
	b := gate.NewSession(*p).Begin(ix, fs.Args())
	text, _ := gate.Renderer{Texts: gate.SystemTexts(lib), Tools: []string{"(the library tools)", gate.ToolReadPrompts}}.Briefing(b)
	_, err = io.WriteString(env.Stdout, text+"\n")
	return err
}

// projectIndexes builds each project's prompt index from one read of the library.
func projectIndexes(ctx context.Context, env Env, lf *libraryFlags, projects []gate.Project) ([]*gate.Index, error) {
	db, err := openForCLI(ctx, env, lf)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	lib, err := snapshot(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make([]*gate.Index, len(projects))
	for i, p := range projects {
		if out[i], err = gate.NewIndex(lib, p); err != nil {
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indentBlock(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
