package gate

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

var benchSizes = []int{1_000, 10_000}

// benchProject gives a tenth of the sample's prompts a high priority and a few priority 10, as a
// real project would.
func benchProject(lib promptlib.Library) Project {
	p := project(DefaultByteBudget, nil)
	names := promptlib.Names(lib.Prompts)
	for i, pr := range lib.Prompts {
		switch {
		case i%1000 == 3:
			p.Priorities[names[pr.ID]] = 10
		case i%10 == 0:
			p.Priorities[names[pr.ID]] = 8
		case i%7 == 0:
			p.Priorities[names[pr.ID]] = 2
		}
	}
	return p
}

// benchDocs are the Docs of a sample library, as the server's view caches them.
func benchDocs(tb testing.TB, lib promptlib.Library) []Doc {
	tb.Helper()
	names := promptlib.Names(lib.Prompts)
	paths := FolderPaths(lib.Folders)
	docs := make([]Doc, len(lib.Prompts))
	NewDocs(docs, func(i int) (promptlib.Prompt, string, string) {
		p := lib.Prompts[i]
		folder := ""
		if p.FolderID != nil {
			folder = paths[promptlib.Key(*p.FolderID)]
		}
		return p, names[p.ID], folder
	})
	return docs
}

// BenchmarkNewDoc is the cost of one prompt's Doc (stemming warm, as after the first build);
// the figure is per prompt.
func BenchmarkNewDoc(b *testing.B) {
	lib := promptlib.Sample(1_000, 1)
	names := promptlib.Names(lib.Prompts)
	total := 0
	for _, p := range lib.Prompts {
		total += len(p.Content)
	}
	benchDocs(b, lib) // warm the stem cache
	b.Run(fmt.Sprintf("prompts=%d/meanBytes=%d", len(lib.Prompts), total/len(lib.Prompts)), func(b *testing.B) {
		i := 0
		for b.Loop() {
			p := lib.Prompts[i%len(lib.Prompts)]
			NewDoc(p, names[p.ID], "")
			i++
		}
	})
}

// BenchmarkLibraryIndex is a cold build from a library in memory: every Doc, then the index.
func BenchmarkLibraryIndex(b *testing.B) {
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		p := benchProject(lib)
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := LibraryIndex(lib, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewIndex is the rebuild after a library change: one prompt's Doc recomputed, the
// index built again from the cached Docs.
func BenchmarkNewIndex(b *testing.B) {
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		p := benchProject(lib)
		docs := benchDocs(b, lib)
		names := promptlib.Names(lib.Prompts)
		edited := lib.Prompts[n/2]
		edited.Content += "\n## Edited\n\nOne more rule.\n"
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				next := slices.Clone(docs)
				next[n/2] = NewDoc(edited, names[edited.ID], next[n/2].FolderPath)
				if ix := NewIndex(next, p); ix.Len() != n {
					b.Fatalf("index of %d prompts, want %d", ix.Len(), n)
				}
			}
		})
	}
}

// BenchmarkBeginSession is a begin_session answer: ranking, packing and rendering, bodies
// loaded from memory.
func BenchmarkBeginSession(b *testing.B) {
	tags := []string{"error handling", "concurrency", "go", "logging", "review"}
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		ix := NewIndex(benchDocs(b, lib), benchProject(lib))
		load := LibraryBodies(lib)
		r := Renderer{Tools: []string{"list_prompts", "get_prompt", "search_prompts", "read_prompts"}}
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				s := NewSession(ix.Project())
				if text, _, err := r.Briefing(context.Background(), s.Begin(ix, tags), load); err != nil || text == "" {
					b.Fatalf("briefing %q, %v", text, err)
				}
			}
		})
	}
}

// BenchmarkIntercept is an intercepted first call with a long request.
func BenchmarkIntercept(b *testing.B) {
	args := []byte(`{"query": "We keep seeing intermittent failures when the orders service calls the inventory service over HTTP from our Go code; add sensible timeouts and retries"}`)
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		ix := NewIndex(benchDocs(b, lib), benchProject(lib))
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, ok := NewSession(ix.Project()).Intercept(ix, "search_prompts", args); !ok {
					b.Fatal("not intercepted")
				}
			}
		})
	}
}

// BenchmarkDocMemory reports what the gate keeps per prompt at 10k prompts: the live heap of the
// Docs (bytes/doc) and of the index built from them (index-bytes/doc), measured after a GC. One
// build per iteration; the figures are the same in every run of the same sample.
func BenchmarkDocMemory(b *testing.B) {
	const n = 10_000
	lib := promptlib.Sample(n, 1)
	p := benchProject(lib)
	benchDocs(b, lib) // the stem cache is process-wide: warm it so it is not counted
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var docBytes, ixBytes uint64
	for b.Loop() {
		base := live()
		docs := benchDocs(b, lib)
		withDocs := live()
		ix := NewIndex(docs, p)
		withIndex := live()
		docBytes, ixBytes = withDocs-base, withIndex-withDocs
		runtime.KeepAlive(docs)
		runtime.KeepAlive(ix)
	}
	b.ReportMetric(float64(docBytes)/n, "bytes/doc")
	b.ReportMetric(float64(ixBytes)/n, "index-bytes/doc")
}
