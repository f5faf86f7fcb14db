package gate

import (
	"context"
	"runtime"
	"slices"
	"sync"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Bodies loads prompt bodies by id, for what a briefing sends in full (the server reads them
// from the DB). An id it cannot find is left out of the map; the briefing says so.
type Bodies func(ctx context.Context, ids []string) (map[string]string, error)

// LibraryIndex builds a project's index and scope from a whole library in memory: the prompts
// the scope sees, named with promptlib.Names over them, each made a Doc. It is the composition
// the server's library view does in streaming form, for the CLI and tests. The only error is a
// project folder that is not in the library (ErrNoFolder).
func LibraryIndex(lib promptlib.Library, p Project) (*Index, *Scope, error) {
	return LibraryIndexTOC(lib, p, nil)
}

// LibraryIndexTOC is LibraryIndex with each Doc's table of contents from toc (nil: none), as
// the server's content pipeline makes them.
func LibraryIndexTOC(lib promptlib.Library, p Project, toc func(promptlib.Prompt) string) (*Index, *Scope, error) {
	scope, err := NewScope(lib.Folders, p)
	if err != nil {
		return nil, nil, err
	}
	var visible []promptlib.Prompt
	for _, pr := range lib.Prompts {
		if scope.Sees(pr.FolderID) {
			visible = append(visible, pr)
		}
	}
	// Names are given over the visible prompts, the same set the server serves as MCP prompts,
	// so a name means the same prompt in a briefing, in priorities and as a slash command.
	names := promptlib.Names(visible)
	paths := FolderPaths(lib.Folders)
	docs := make([]Doc, len(visible))
	NewDocs(docs, func(i int) (promptlib.Prompt, string, string) {
		pr := visible[i]
		folder := ""
		if pr.FolderID != nil {
			folder = paths[promptlib.Key(*pr.FolderID)]
		}
		return pr, names[pr.ID], folder
	})
	if toc != nil {
		for i := range docs {
			docs[i].SetTOC(toc(visible[i]))
		}
	}
	return NewIndex(docs, p), scope, nil
}

// NewDocs fills docs[i] with NewDoc of what at(i) returns, spread over the CPUs for large
// libraries (NewDoc is the costly part of an index). It returns when all are done.
func NewDocs(docs []Doc, at func(i int) (p promptlib.Prompt, name, folderPath string)) {
	do := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			docs[i] = NewDoc(at(i))
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(docs)/256+1)
	if workers <= 1 {
		do(0, len(docs))
		return
	}
	var wg sync.WaitGroup
	size := (len(docs) + workers - 1) / workers
	for lo := 0; lo < len(docs); lo += size {
		wg.Go(func() { do(lo, min(lo+size, len(docs))) })
	}
	wg.Wait()
}

// LibraryBodies loads bodies from a library in memory, ids in either case.
func LibraryBodies(lib promptlib.Library) Bodies {
	byID := make(map[string]int, len(lib.Prompts))
	for i, p := range lib.Prompts {
		byID[promptlib.Key(p.ID)] = i
	}
	prompts := slices.Clone(lib.Prompts)
	return func(_ context.Context, ids []string) (map[string]string, error) {
		out := make(map[string]string, len(ids))
		for _, id := range ids {
			if i, ok := byID[promptlib.Key(id)]; ok {
				out[id] = prompts[i].Content
			}
		}
		return out, nil
	}
}
