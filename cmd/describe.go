package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/tui"
)

// describeSubjects are what 'mcpctl describe' shows in detail.
var describeSubjects = map[string]func(ctx context.Context, env Env, args []string) error{
	"project":    describeProject,
	"server":     describeServer,
	"proxymodel": describeProxymodel,
}

func runDescribe(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || describeSubjects[args[0]] == nil {
		return &usageError{msg: "describe: want one of " + subjectList(describeSubjects) + " and a NAME", hint: "mcpctl describe project [NAME] | server NAME [--project P] | proxymodel NAME"}
	}
	return describeSubjects[args[0]](ctx, env, args[1:])
}

func describeProject(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("describe project", "mcpctl describe project [NAME] [--library DIR]",
		"Shows a project's settings, the greeting a client receives, and its prompts by priority.\n"+
			"Without NAME, $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml found from the\n"+
			"working directory up: the project 'mcpctl serve' would serve there.")
	lf := addLibraryFlags(fs)
	if err := fs.parse(env, reorder(args)); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fs.usageError("want at most one project NAME")
	}
	c, err := needProject(env, fs.Arg(0), "a project NAME")
	if err != nil {
		return err
	}
	p := c.Project
	lib, err := readLibrary(ctx, env, lf)
	if err != nil {
		return err
	}
	br, done := briefer(env)
	defer done()
	br.Untrusted = c.untrusted()
	// The briefing's own index: the table below lists what the client was just shown.
	text, ix, err := br.Instructions(ctx, lib, *p)
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "Project:     %s\nFile:        %s\nFolder:      %s\nGated:       %v (%s mode)\nByte budget: %d\nIndex cap:   %d\n",
		cell(p.Name), cell(p.File), orDash(cell(p.Folder)), p.Gated, cell(string(p.GateMode)), p.ByteBudget, p.IndexCap)
	if p.ProxyModel != "" {
		fmt.Fprintf(w, "Proxy model: %s\n", cell(p.ProxyModel))
	}
	if len(p.Servers) > 0 {
		// Named, not started: starting them is what get servers is for. It finds the project
		// as describe did, by the NAME given or else the same way.
		get := "mcpctl get servers"
		if fs.Arg(0) != "" {
			get += " --project " + promptlib.ShellWord(fs.Arg(0))
		}
		fmt.Fprintf(w, "Servers:     %s (%s starts them and lists what they offer)\n", cell(strings.Join(sortedKeys(p.Servers), ", ")), cell(promptlib.Quoted(get)))
	}
	for _, pr := range projectModelProblems(env, p) {
		fmt.Fprintf(w, "Warning:     %s\n", cell(pr.String()))
	}
	if u := ix.UnknownPriorities(); len(u) > 0 {
		fmt.Fprintf(w, "Warning:     priorities name prompts that do not exist: %s\n", cell(strings.Join(u, ", ")))
	}
	fmt.Fprintf(w, "\nWhat a client receives at initialize:\n\n%s\n\n", indentBlock(tui.Printable(text)))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PRIORITY\tNAME\tFOLDER\tBYTES\tSUMMARY")
	entries := append([]gate.Entry(nil), ix.Entries()...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Priority > entries[j].Priority })
	for _, e := range entries {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", e.Priority, cell(e.Name), orDash(cell(e.FolderPath)), e.Bytes, cell(e.Summary))
	}
	return tw.Flush()
}
