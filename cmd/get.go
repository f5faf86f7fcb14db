package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/tui"
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

func getProjects(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("get projects", "mcpctl get projects [--library DIR]",
		"Lists the projects in $XDG_CONFIG_HOME/mcpctl/projects and, run inside a repository, its\n"+
			".mcpctl/project.yaml (FROM 'repository'), which serve uses when no project is named.\n"+
			"A file that is not a valid project is listed as invalid, with the reason; a project whose\n"+
			"folder the library does not have is warned of, as serve would refuse it.")
	lf := addLibraryFlags(fs)
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	// The folders are checked where there is a library to check them in: without one, the list
	// is still worth having, but a library the user named and that cannot be read is said.
	folders, libErr := libraryFolders(ctx, env, lf) // the prompts, a library's bulk, are not needed
	if ue := (*usageError)(nil); errors.As(libErr, &ue) {
		return libErr
	} else if libErr != nil && (lf.library != "" || lf.db != "") {
		defer fmt.Fprintf(env.Stderr, "warning: the projects' folders were not checked: %s\n", cell(libErr.Error()))
	}
	files, err := projectFiles(projectsDir(env))
	if err != nil {
		return err
	}
	repo, repoErr := repoProject(env)
	if len(files) == 0 && repo == nil && repoErr == nil {
		fmt.Fprintf(env.Stderr, "no projects in %s, and no .mcpctl/project.yaml in the working directory or above\n", projectsDir(env))
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFOLDER\tGATED\tMODE\tBUDGET\tINDEX CAP\tFROM")
	// A project's warnings follow the table on stderr, as its hint does: in the FROM cell, one
	// made a row of 250 characters.
	var warnings []string
	row := func(p gate.Project, from string) {
		problems := projectModelProblems(env, &p)
		if p.Folder != "" && libErr == nil {
			if _, err := gate.ResolveFolder(folders, p.Folder); err != nil {
				// serve answers PROJECT_UNAVAILABLE for it: first, as it stops the project.
				problems = append([]mcpserver.ModelProblem{{Field: "folder",
					Message: fmt.Sprintf("%s (%q), so serve refuses the project (PROJECT_UNAVAILABLE)", folderProblem(err), p.Folder)}}, problems...)
			}
		}
		if len(problems) > 0 {
			describe := "'mcpctl describe project " + p.Name + "'"
			if from != "projects" {
				// describe finds a repository's project from the working directory, not by name.
				describe = "'mcpctl describe project' in the repository"
			}
			from += " (" + countOf(len(problems), "warning") + ")"
			w := fmt.Sprintf("warning: %s: %s", p.DisplayName(), problems[0])
			if len(problems) > 1 {
				w += fmt.Sprintf("; %d more in %s", len(problems)-1, describe)
			}
			warnings = append(warnings, cell(w))
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%d\t%d\t%s\n", cell(p.Name), orDash(cell(p.Folder)), p.Gated, cell(string(p.GateMode)), p.ByteBudget, p.IndexCap, from)
	}
	// An invalid row fills every column, so that tabwriter keeps the others aligned (a row of
	// fewer cells ends the column block it would share), and ends with the reason.
	invalid := func(name, from string, err error) {
		fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s (invalid: %s)\n", cell(name), from, cell(err.Error()))
	}
	for _, f := range files {
		if f.err != nil {
			invalid(f.name, "projects", f.err)
			continue
		}
		p, err := gate.LoadProject(projectsDir(env), f.name)
		if err != nil {
			invalid(f.name, "projects", err)
			continue
		}
		row(p, "projects")
	}
	switch {
	case repoErr != nil:
		invalid("(repository)", "repository", repoErr)
	case repo != nil && repo.Trusted:
		row(repo.Project, "repository")
	case repo != nil:
		row(repo.Project, "repository, not trusted")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(env.Stderr, w)
	}
	if repo != nil && !repo.Trusted && len(repo.Project.Servers) > 0 {
		fmt.Fprintln(env.Stderr, "hint:", repo.Reason)
	}
	return nil
}

// folderProblem is why gate.ResolveFolder found no one folder: none of the name, or which to
// write instead of an ambiguous one (the last line of its message).
func folderProblem(err error) string {
	msg := err.Error()
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		return msg[i+1:]
	}
	return "the library has no such folder"
}

// projectFile is a *.yaml file in the projects directory: a project's, or, with err, one
// that cannot be (its name is not a project name).
type projectFile struct {
	name string
	err  error
}

// projectFiles lists the projects directory's *.yaml files, sorted by name. gate.ListProjects
// skips a file whose name is no project name ("My Web.yaml"); listed here with the reason, it
// is not left for the user to wonder why the project is missing.
func projectFiles(dir string) ([]projectFile, error) {
	names, err := gate.ListProjects(dir)
	if err != nil {
		return nil, err
	}
	var files []projectFile
	valid := make(map[string]bool, len(names))
	for _, n := range names {
		valid[n] = true
		files = append(files, projectFile{name: n})
	}
	entries, _ := os.ReadDir(dir) // ListProjects has read it; a race that removes it shows no more
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), gate.ProjectExt)
		if !ok || valid[name] || e.IsDir() {
			continue
		}
		files = append(files, projectFile{name: e.Name(), err: fmt.Errorf("%s: %q is not a project name: a project name is letters, "+
			"digits, '.', '_' and '-' (at most 64, starting with a letter or digit); rename the file", filepath.Join(dir, e.Name()), name)})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

func getPrompts(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("get prompts", "mcpctl get prompts [--project P | -A] [--library DIR]",
		"Lists the prompts a project's sessions see, by priority: PROJECT, NAME, PRIORITY, FOLDER, SUMMARY.\n"+
			"Without --project, $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml found from the\n"+
			"working directory up (the project 'mcpctl serve' would serve there), else the whole library.\n"+
			"With -A, every project in $XDG_CONFIG_HOME/mcpctl/projects and the repository's; a project that\n"+
			"cannot be listed (an invalid file, a folder the library lacks) is named on stderr, the others\n"+
			"are listed, and the command exits 1.")
	lf := addLibraryFlags(fs)
	name := fs.String("project", "", projectHelp)
	all := fs.Bool("A", false, "every project in $XDG_CONFIG_HOME/mcpctl/projects, and the repository's")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	if *all && *name != "" {
		return fs.usageError("--project and -A are alternatives")
	}
	if !*all {
		var p gate.Project
		c, err := chooseProject(env, *name)
		if err != nil {
			return err
		}
		if c.Project == nil {
			p = gate.NoProject()
		} else {
			p = *c.Project
		}
		lib, err := readLibrary(ctx, env, lf)
		if err != nil {
			return err
		}
		ix, _, err := gate.LibraryIndex(lib, p)
		if err != nil {
			return err
		}
		return printPrompts(env, []*gate.Index{ix})
	}

	// -A: one broken project must not hide the others; each failure is reported by name.
	var projects []gate.Project
	var broken []error
	files, err := projectFiles(projectsDir(env))
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.err != nil {
			broken = append(broken, fmt.Errorf("project file %s: %w", f.name, f.err))
			continue
		}
		p, err := gate.LoadProject(projectsDir(env), f.name)
		if err != nil {
			broken = append(broken, fmt.Errorf("project %s: %w", f.name, err))
			continue
		}
		projects = append(projects, p)
	}
	if repo, err := repoProject(env); err != nil {
		broken = append(broken, fmt.Errorf("the repository's project: %w", err))
	} else if repo != nil {
		projects = append(projects, repo.Project)
	}
	lib, err := readLibrary(ctx, env, lf)
	if err != nil {
		return err
	}
	var indexes []*gate.Index
	for _, p := range projects {
		ix, _, err := gate.LibraryIndex(lib, p)
		if err != nil {
			broken = append(broken, fmt.Errorf("project %s: %w", p.DisplayName(), err))
			continue
		}
		indexes = append(indexes, ix)
	}
	if err := printPrompts(env, indexes); err != nil {
		return err
	}
	if len(broken) == 0 {
		return nil
	}
	for _, err := range broken {
		fmt.Fprintf(env.Stderr, "mcpctl: %s\n", tui.Printable(err.Error()))
		var h interface{ UserHint() string }
		if errors.As(err, &h) && h.UserHint() != "" {
			fmt.Fprintf(env.Stderr, "hint: %s\n", tui.Printable(h.UserHint()))
		}
	}
	fmt.Fprintf(env.Stderr, "listed %d of %d projects; fix the files named above ('mcpctl describe project NAME' shows one in detail)\n",
		len(indexes), len(indexes)+len(broken))
	return exitError(1)
}

// printPrompts prints the indexes' prompts as one table.
func printPrompts(env Env, indexes []*gate.Index) error {
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tNAME\tPRIORITY\tFOLDER\tSUMMARY")
	for _, ix := range indexes {
		for _, e := range ix.Entries() {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", cell(ix.Project().DisplayName()), cell(e.Name), e.Priority, orDash(cell(e.FolderPath)), cell(e.Summary))
		}
	}
	return tw.Flush()
}
