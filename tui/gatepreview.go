package tui

// This file is the console's only use of package gate, so that a change of the gate's API is
// adapted here and nowhere else.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// gateView is what begin_session would return for a project and tags, in the console's terms.
type gateView struct {
	Project    string
	Tags       []string
	Budget     int // the project's byte budget
	Used       int // bytes sent in full
	IndexCap   int
	Rows       []gateRow
	MoreListed int    // matched, over the budget and beyond the cap
	Remaining  int    // the rest of the index, named by summary lines
	Omitted    int    // beyond the index cap
	Text       string // the briefing exactly as begin_session returns it
}

// gateRow is one prompt the briefing names, and why.
type gateRow struct {
	Group    string // "critical", "matched", "over budget" or "weak match"
	Name     string
	Priority int
	Hits     int
	Bytes    int
	Why      string
}

// RepoProject is a repository's own project (REPO/.mcpctl/project.yaml): it is not in the
// projects directory, so the console cannot find it by name; cmd finds and reads it as serve does.
type RepoProject struct {
	Name string // the project's name, as the Gate screen lists it
	// Load reads the file and its trust again: a preview sees them as they are now. A project
	// its user has not trusted is served without its servers; untrusted says why ("" when it is
	// trusted).
	Load func() (p gate.Project, untrusted string, err error)
}

// repoEntry stands for the repository project in the Gate screen's list of project names; no
// project file's name holds a '/', so it is never one of theirs.
const repoEntry = "/repository"

// gateProjects lists the project names, "" (no project: the whole library) first, then the
// repository's project (repoEntry) when there is one. Files that are not valid projects are
// listed too, as 'mcpctl get projects' lists them, with the reason in invalid: a file whose name
// is not a project name under its file name (which no project name can be, as it ends in
// .yaml), one that does not load under its project name. With the library's folders (nil: not
// known), a project whose folder the library does not have is in noFolder, with the error serve
// gives its sessions, which carries the fix (gate.Error's UserHint).
func gateProjects(dir string, repo *RepoProject, folders []promptlib.Folder) (names []string, invalid, noFolder map[string]error, err error) {
	valid, err := gate.ListProjects(dir)
	names = []string{""}
	invalid, noFolder = map[string]error{}, map[string]error{}
	checkFolder := func(name string, p gate.Project) {
		if folders == nil {
			return
		}
		if _, ferr := gate.NewScope(folders, p); errors.Is(ferr, gate.ErrNoFolder) {
			noFolder[name] = ferr
		}
	}
	if repo != nil {
		names = append(names, repoEntry)
		if repo.Load != nil {
			if p, _, rerr := repo.Load(); rerr == nil {
				checkFolder(repoEntry, p)
			}
		}
	}
	listed := map[string]bool{}
	for _, n := range valid {
		listed[n] = true
		p, perr := gate.LoadProject(dir, n)
		if perr != nil {
			invalid[n] = perr
			continue
		}
		checkFolder(n, p)
	}
	entries, _ := os.ReadDir(dir) // ListProjects has read it (or said why not)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), gate.ProjectExt)
		if !ok || listed[name] || e.IsDir() {
			continue
		}
		valid = append(valid, e.Name())
		invalid[e.Name()] = fmt.Errorf("%s: %q is not a project name: a project name is letters, digits, '.', '_' and '-' "+
			"(at most 64, starting with a letter or digit); rename the file", filepath.Join(dir, e.Name()), name)
	}
	sort.Strings(valid)
	return append(names, valid...), invalid, noFolder, err
}

// Brief builds what a new session of project p is briefed from: the gate's index of lib, and
// the briefing's text, as serve builds them. untrusted, when set, says why serve does not start
// p's servers: p is a repository's project that its user has not trusted.
type Brief func(ctx context.Context, lib promptlib.Library, p gate.Project, untrusted string) (*gate.Index, Render, error)

// Render is a briefing's text.
type Render func(ctx context.Context, b gate.Briefing, load gate.Bodies) (string, error)

// libraryBrief is the Brief of the gate package alone: no tables of contents, and the tools
// said in general.
func libraryBrief(_ context.Context, lib promptlib.Library, p gate.Project, _ string) (*gate.Index, Render, error) {
	ix, scope, err := gate.LibraryIndex(lib, p)
	if err != nil {
		return nil, nil, err
	}
	r := gate.Renderer{Texts: gate.SystemTexts(scope.SystemPrompts(lib.Prompts)), Tools: []string{"(the library tools)", gate.ToolReadPrompts}}
	return ix, func(ctx context.Context, b gate.Briefing, load gate.Bodies) (string, error) {
		text, _, err := r.Briefing(ctx, b, load)
		return text, err
	}, nil
}

// previewGate loads the project (repoEntry: the repository's) and runs a new session's
// begin_session with tags against a snapshot of the library.
func previewGate(ctx context.Context, lib promptlib.Library, projectsDir, project string, repo *RepoProject, brief Brief, tags []string) (gateView, error) {
	p, untrusted := gate.NoProject(), ""
	var err error
	switch {
	case project == repoEntry && repo != nil:
		p, untrusted, err = repo.Load()
	case project != "":
		p, err = gate.LoadProject(projectsDir, project)
	}
	if err != nil {
		return gateView{}, err
	}
	if brief == nil {
		brief = libraryBrief
	}
	ix, render, err := brief(ctx, lib, p, untrusted)
	if err != nil {
		return gateView{}, err
	}
	b := gate.NewSession(p).Begin(ix, tags)
	text, err := render(ctx, b, gate.LibraryBodies(lib))
	if err != nil {
		return gateView{}, err
	}
	why := map[string]gate.Explanation{}
	for _, x := range gate.Explain(ix, b.Tags, p.ByteBudget, p.IndexCap, nil) {
		why[x.Name] = x
	}
	hits := func(name string) (int, float64) {
		x := why[name]
		n := 0
		for _, t := range x.Tags {
			if t.Score > 0 {
				n++
			}
		}
		return n, x.Relevance
	}
	v := gateView{Project: p.DisplayName(), Tags: b.Tags, Budget: p.ByteBudget, IndexCap: p.IndexCap,
		MoreListed: b.MoreListed, Remaining: len(b.Remaining), Omitted: b.Omitted, Text: text}
	n := len(b.Tags)
	for _, e := range b.Critical {
		v.Used += e.Bytes
		h, _ := hits(e.Name)
		v.Rows = append(v.Rows, gateRow{Group: "critical", Name: e.Name, Priority: e.Priority, Hits: h, Bytes: e.Bytes,
			Why: "priority 10: always sent in full"})
	}
	for _, e := range b.Full {
		v.Used += e.Bytes
		h, rel := hits(e.Name)
		v.Rows = append(v.Rows, gateRow{Group: "matched", Name: e.Name, Priority: e.Priority, Hits: h, Bytes: e.Bytes,
			Why: fmt.Sprintf("%d of %d tags match (relevance %.2f); priority %d; fits the budget", h, n, rel, e.Priority)})
	}
	for _, e := range b.Listed {
		h, rel := hits(e.Name)
		v.Rows = append(v.Rows, gateRow{Group: "over budget", Name: e.Name, Priority: e.Priority, Hits: h, Bytes: e.Bytes,
			Why: fmt.Sprintf("%d of %d tags match (relevance %.2f), but %s does not fit the budget: named for read_prompts", h, n, rel, size(e.Bytes))})
	}
	for _, e := range b.Weak {
		h, rel := hits(e.Name)
		v.Rows = append(v.Rows, gateRow{Group: "weak match", Name: e.Name, Priority: e.Priority, Hits: h, Bytes: e.Bytes,
			Why: fmt.Sprintf("%d of %d tags match, but relevance %.2f is below the floor %.2f: named for read_prompts", h, n, rel, why[e.Name].Floor)})
	}
	return v, nil
}
