package gate

import (
	"context"
	"fmt"
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

// render renders a briefing with the fixture's bodies.
func (f *fixture) render(tb testing.TB, r Renderer, b Briefing) string {
	tb.Helper()
	text, _, err := r.Briefing(context.Background(), b, LibraryBodies(f.lib))
	if err != nil {
		tb.Fatalf("Briefing: %v", err)
	}
	return text
}
