package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcpctl/mcpctl/gate"
)

// The project commands show what a session of a project would see, without an MCP client.

// getSubjects are what 'mcpctl get' lists, each a table on stdout.
var getSubjects = map[string]func(ctx context.Context, env Env, args []string) error{
	"projects":    getProjects,
	"prompts":     getPrompts,
	"servers":     getServers,
	"stages":      getStages,
	"proxymodels": getProxymodels,
}

func runGet(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || getSubjects[args[0]] == nil {
		return &usageError{msg: "get: want one of " + subjectList(getSubjects), hint: "mcpctl get projects | prompts [--project P | -A] | servers [--project P] | proxymodels | stages"}
	}
	return getSubjects[args[0]](ctx, env, args[1:])
}

// subjectList names a command's subjects, sorted, for its usage error.
func subjectList[F any](m map[string]F) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, "'"+n+"'")
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func getProjects(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("get projects", "mcpctl get projects",
		"Lists the projects in $XDG_CONFIG_HOME/mcpctl/projects and, run inside a repository, its\n"+
			".mcpctl/project.yaml (FROM 'repository'), which serve uses when no project is named.")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	names, err := gate.ListProjects(projectsDir(env))
	if err != nil {
		return err
	}
	repo, repoErr := repoProject(env)
	if len(names) == 0 && repo == nil && repoErr == nil {
		fmt.Fprintf(env.Stderr, "no projects in %s, and no .mcpctl/project.yaml in the working directory or above\n", projectsDir(env))
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFOLDER\tGATED\tMODE\tBUDGET\tINDEX CAP\tFROM")
	row := func(p gate.Project, from string) {
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%d\t%d\t%s\n", cell(p.Name), orDash(cell(p.Folder)), p.Gated, cell(string(p.GateMode)), p.ByteBudget, p.IndexCap, from)
	}
	for _, n := range names {
		p, err := gate.LoadProject(projectsDir(env), n)
		if err != nil {
			fmt.Fprintf(tw, "%s\t(invalid: %s)\n", cell(n), cell(err.Error()))
			continue
		}
		row(p, "projects")
	}
	switch {
	case repoErr != nil:
		fmt.Fprintf(tw, "(repository)\t(invalid: %s)\n", cell(repoErr.Error()))
	case repo != nil && repo.Trusted:
		row(repo.Project, "repository")
	case repo != nil:
		row(repo.Project, "repository, not trusted")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if repo != nil && !repo.Trusted && len(repo.Project.Servers) > 0 {
		fmt.Fprintln(env.Stderr, "hint:", repo.Reason)
	}
	return nil
}

func getPrompts(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("get prompts", "mcpctl get prompts [--project P | -A] [--library DIR]",
		"Lists the prompts a project's sessions see, by priority: PROJECT, NAME, PRIORITY, FOLDER, SUMMARY.\n"+
			"Without --project, $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml found from the\n"+
			"working directory up (the project 'mcpctl serve' would serve there), else the whole library.\n"+
			"With -A, every project in $XDG_CONFIG_HOME/mcpctl/projects and the repository's.")
	lf := addLibraryFlags(fs)
	name := fs.String("project", "", projectHelp)
	all := fs.Bool("A", false, "every project in $XDG_CONFIG_HOME/mcpctl/projects, and the repository's")
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
		repo, err := repoProject(env)
		if err != nil {
			return err
		}
		if repo != nil {
			projects = append(projects, repo.Project)
		}
	default:
		c, err := chooseProject(env, *name)
		if err != nil {
			return err
		}
		if c.Project == nil {
			projects = append(projects, gate.NoProject())
		} else {
			projects = append(projects, *c.Project)
		}
	}
	indexes, err := projectIndexes(ctx, env, lf, projects)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tNAME\tPRIORITY\tFOLDER\tSUMMARY")
	for _, ix := range indexes {
		for _, e := range ix.Entries() {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", cell(ix.Project().DisplayName()), cell(e.Name), e.Priority, orDash(cell(e.FolderPath)), cell(e.Summary))
		}
	}
	return tw.Flush()
}
