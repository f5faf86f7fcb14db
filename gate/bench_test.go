package gate

import (
	"fmt"
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

func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		p := benchProject(lib)
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewIndex(lib, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexUpdate is the rebuild after a library change: one prompt edited, the index
// updated from the previous one.
func BenchmarkIndexUpdate(b *testing.B) {
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		p := benchProject(lib)
		prev, err := NewIndex(lib, p)
		if err != nil {
			b.Fatal(err)
		}
		edited := promptlib.Library{Folders: lib.Folders, Prompts: slices.Clone(lib.Prompts)}
		edited.Prompts[n/2].Content += "\n## Edited\n\nOne more rule.\n"
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := prev.Update(edited, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBeginSession(b *testing.B) {
	tags := []string{"error handling", "concurrency", "go", "logging", "review"}
	for _, n := range benchSizes {
		lib := promptlib.Sample(n, 1)
		ix, err := NewIndex(lib, benchProject(lib))
		if err != nil {
			b.Fatal(err)
		}
		r := Renderer{Tools: []string{"list_prompts", "get_prompt", "search_prompts", "read_prompts"}}
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			for b.Loop() {
				s := NewSession(ix.Project())
				if text, _ := r.Briefing(s.Begin(ix, tags)); text == "" {
					b.Fatal("empty briefing")
				}
			}
		})
	}
}
