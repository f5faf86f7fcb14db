package mcpserver

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/promptlib"
)

func sampleLibrary(n int) promptlib.Library { return promptlib.Sample(n, 1) }

// BenchmarkPromptsListFirstPage is prompts/list without a cursor, through the server's JSON-RPC
// handling, per library size. The goal: ≤ 20 ms at 10k prompts.
func BenchmarkPromptsListFirstPage(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			ts := newTestSurface(b, sampleLibrary(n))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var res mcp.ListPromptsResult
				if e := ts.rpc(b, "prompts/list", nil, &res); e != nil || len(res.Prompts) != min(n, promptPageSize) {
					b.Fatalf("prompts/list: %+v, %d prompts", e, len(res.Prompts))
				}
			}
		})
	}
}

// BenchmarkResourcesListFirstPage is resources/list without a cursor, per library size.
func BenchmarkResourcesListFirstPage(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			ts := newTestSurface(b, sampleLibrary(n))
			snap := ts.view.current()
			listed := 1 + len(snap.folders)
			if n <= maxListedPrompts {
				listed += snap.prompts.len()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var res mcp.ListResourcesResult
				if e := ts.rpc(b, "resources/list", nil, &res); e != nil || len(res.Resources) != min(listed, promptPageSize) {
					b.Fatalf("resources/list: %+v, %d resources", e, len(res.Resources))
				}
			}
		})
	}
}

// BenchmarkViewReload is the work after one library change: read, rebuild the snapshot
// (summaries and arguments come from the cache for unchanged prompts) and publish the diff.
// It also reports the heap the surface keeps (the snapshot plus mcp-go's prompt and resource
// registries) as retained-MB, and the first load (every summary and argument list computed,
// as at server start) as first-load-ms.
func BenchmarkViewReload(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			lib := sampleLibrary(n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			srv := server.NewMCPServer("mcpctl", "test", server.WithPromptCapabilities(true), server.WithResourceCapabilities(false, true))
			s := newView(newMemLibrary(lib), nil, nil)
			newPromptSurface(srv, s, nil)
			started := time.Now()
			if err := s.reload(b.Context()); err != nil {
				b.Fatal(err)
			}
			firstLoad := time.Since(started)
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := s.reload(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			runtime.KeepAlive(s)
			// Reported last: ResetTimer drops metrics reported before it.
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "retained-MB")
			b.ReportMetric(float64(firstLoad.Milliseconds()), "first-load-ms")
		})
	}
}

// BenchmarkCompleteResourceID is one keystroke of completion for prompteka://prompt/{id}: a
// scan of every served prompt's id, name and title.
func BenchmarkCompleteResourceID(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			ts := newTestSurface(b, sampleLibrary(n))
			c := idCompleter{ts.promptSurface}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := c.CompleteResourceArgument(b.Context(), promptURITemplate, mcp.CompleteArgument{Name: "id", Value: "rev"}, mcp.CompleteContext{})
				if err != nil || len(res.Values) == 0 {
					b.Fatalf("complete: %v, %d values", err, len(res.Values))
				}
			}
		})
	}
}

func benchSizes(b *testing.B) []int {
	if testing.Short() {
		return []int{1000, 10000}
	}
	return []int{1000, 10000, 100000}
}

// BenchmarkRestoreView is what a restart waits for before its first prompts/list is whole:
// reading the kept view back (decoding it and indexing it by id), per library size.
func BenchmarkRestoreView(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			v := newView(newMemLibrary(sampleLibrary(n)), nil, nil)
			if err := v.reload(b.Context()); err != nil {
				b.Fatal(err)
			}
			data := encodeView("lib", v.current())
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if snap := decodeView(bufio.NewReader(bytes.NewReader(data)), int64(len(data)), "lib"); snap == nil || snap.prompts.len() != n {
					b.Fatal("the kept view did not decode")
				}
			}
			t := &v.current().prompts
			b.ReportMetric(float64(len(data))/(1<<20), "file-MB")
			b.ReportMetric(float64(len(t.text))/(1<<20), "text-MB")
			b.ReportMetric(float64(len(t.argSets.text))/(1<<20), "args-MB")
		})
	}
}

// BenchmarkViewFollowEdit is what following one edit costs the view, per library size: reading
// the changed bucket and building the next snapshot's table.
func BenchmarkViewFollowEdit(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			lib := newMemLibrary(sampleLibrary(n))
			v := newView(lib, nil, nil)
			if err := v.reload(b.Context()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				lib.edit(func(l *promptlib.Library) { l.Prompts[n/2].Title = fmt.Sprint("Edited ", i) })
				if err := v.read(b.Context(), true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
