package gate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// fixture builds small libraries for tests: folders by path, prompts with readable ids.
type fixture struct {
	lib   promptlib.Library
	paths map[string]string // "A / B" → folder id
	n     int
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	return &fixture{paths: map[string]string{}}
}

func (f *fixture) id() string {
	f.n++
	return fmt.Sprintf("%08X-0000-4000-8000-%012X", f.n, f.n)
}

// folder makes the folders of a path, "A / B", and returns the innermost id.
func (f *fixture) folder(path string) string {
	if id, ok := f.paths[path]; ok {
		return id
	}
	var parent *string
	name := path
	if i := lastSep(path); i >= 0 {
		p := f.folder(path[:i])
		parent = &p
		name = path[i+len(PathSep):]
	}
	id := f.id()
	f.lib.Folders = append(f.lib.Folders, promptlib.Folder{ID: id, Name: name, ParentID: parent})
	f.paths[path] = id
	return id
}

func lastSep(s string) int {
	for i := len(s) - len(PathSep); i >= 0; i-- {
		if s[i:i+len(PathSep)] == PathSep {
			return i
		}
	}
	return -1
}

// prompt adds a prompt in folder path ("" = top level) and returns its id.
func (f *fixture) prompt(folder, title, content string) string {
	p := promptlib.Prompt{ID: f.id(), Title: title, Content: content}
	if folder != "" {
		p.FolderID = promptlib.Ptr(f.folder(folder))
	}
	f.lib.Prompts = append(f.lib.Prompts, p)
	return p.ID
}

func (f *fixture) index(tb testing.TB, p Project) *Index {
	tb.Helper()
	ix, _, err := LibraryIndex(f.lib, p)
	if err != nil {
		tb.Fatalf("LibraryIndex: %v", err)
	}
	testBodies.Store(ix, LibraryBodies(f.lib))
	return ix
}

// project is NoProject with priorities and the given budget, gated.
func project(budget int, priorities map[string]int) Project {
	p := NoProject()
	p.Name = "demo"
	p.Gated = true
	p.ByteBudget = budget
	if priorities != nil {
		p.Priorities = priorities
	}
	return p
}

// testBodies remembers the bodies of every index a fixture built, so tests render briefings
// of an index without carrying its library around.
var testBodies sync.Map // *Index → Bodies

// render renders a briefing of ix with the bodies of the fixture that built it.
func render(tb testing.TB, r Renderer, ix *Index, b Briefing) (string, []string) {
	tb.Helper()
	load, ok := testBodies.Load(ix)
	if !ok {
		tb.Fatal("render: the index was not built by a fixture")
	}
	text, unknown, err := r.Briefing(context.Background(), b, load.(Bodies))
	if err != nil {
		tb.Fatalf("Briefing: %v", err)
	}
	return text, unknown
}

type spec struct {
	title    string
	priority int
	body     string
}

// buildIndex indexes prompts in one folder with the given priorities and budget.
func buildIndex(tb testing.TB, budget int, specs ...spec) *Index {
	tb.Helper()
	f := newFixture(tb)
	p := project(budget, nil)
	for _, s := range specs {
		f.prompt("Docs", s.title, s.body)
		p.Priorities[promptlib.Slug(s.title)] = s.priority
	}
	return f.index(tb, p)
}

// sized is a body about topic of n bytes.
func sized(topic string, n int) string {
	s := "About " + topic + "."
	return s + strings.Repeat(" ", max(0, n-len(s)))
}

// sixty indexes n top-level prompts "p01".. with priorities from prio.
func sixty(tb testing.TB, n int, prio func(i int) int) (*Index, Project) {
	f := newFixture(tb)
	p := project(DefaultByteBudget, nil)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("p%02d", i)
		f.prompt("", name, fmt.Sprintf("Prompt number %d.", i))
		p.Priorities[name] = prio(i)
	}
	return f.index(tb, p), p
}
