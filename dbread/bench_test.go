package dbread

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// benchSizes are the fixture sizes every benchmark reports; 100k is skipped with -short.
func benchSizes(b *testing.B) []int {
	if testing.Short() {
		return []int{1_000, 10_000}
	}
	return []int{1_000, 10_000, 100_000}
}

// benchFixture is the database of a cached library of n sample prompts; the reader never
// writes it, so read benchmarks open it in place.
func benchFixture(b *testing.B, n int) string {
	b.Helper()
	return filepath.Join(librarytest.Cached(b, n), "prompts.db")
}

// benchCopy copies the fixture into a temp dir, for benchmarks that write the library.
func benchCopy(b *testing.B, n int) string {
	b.Helper()
	src, err := os.Open(benchFixture(b, n))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(b.TempDir(), "prompts.db")
	dst, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchDB opens the cached fixture with a sidecar cached beside it, ready.
func benchDB(b *testing.B, n int) *DB {
	b.Helper()
	cache := filepath.Join(os.TempDir(), "mcpctl-bench-cache")
	db := open(b, benchFixture(b, n), Options{CacheDir: cache, syncWait: waitLimit})
	waitIndex(b, db, IndexReady)
	if ok, err := db.side.current(context.Background()); !ok || err != nil {
		b.Fatal("sidecar not current")
	}
	return db
}

func BenchmarkListPrompts(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			db := benchDB(b, n)
			folders, err := db.Folders(ctx)
			if err != nil {
				b.Fatal(err)
			}
			biggest := folders[0]
			for _, f := range folders {
				if f.PromptCount > biggest.PromptCount {
					biggest = f
				}
			}
			for _, bc := range []struct {
				name string
				opts ListOptions
			}{
				{"all", ListOptions{Limit: 100}},
				{"all-brief", ListOptions{Limit: 100, Brief: true}}, // the first page: kept in memory (head.go)
				{"all-deep-page", ListOptions{Limit: 100, Offset: n / 2}},
				{"all-deep-page-brief", ListOptions{Limit: 100, Offset: n / 2, Brief: true}}, // from the index
				{"folder", ListOptions{FolderID: strings.ToLower(biggest.ID), Limit: 100}},
				{"root", ListOptions{Root: true, Limit: 100}},
			} {
				b.Run(bc.name, func(b *testing.B) {
					for b.Loop() {
						ps, _, err := db.ListPrompts(ctx, bc.opts)
						if err != nil || len(ps) == 0 {
							b.Fatalf("ListPrompts = %d prompts, %v", len(ps), err)
						}
					}
				})
			}
			if db.fallbacks.Load() != 0 {
				b.Errorf("%d lists answered without the sidecar", db.fallbacks.Load())
			}
		})
	}
}

func benchSearch(b *testing.B, query func(n int) string) { benchSearchIn(b, query, false) }

// benchSearchIn times query over the library, or with scoped over the folders holding the
// first half of its prompts (a gated project's scope).
func benchSearchIn(b *testing.B, query func(n int) string, scoped bool) {
	// The server's requests can be cancelled, and database/sql and go-sqlite3 watch such a
	// context in every query (about 70 µs of a search at 100k prompts): time what it pays.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			db := benchDB(b, n)
			q := query(n)
			var in []string
			if scoped {
				folders, err := db.Folders(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for held := 0; held < n/2 && len(in) < len(folders); held += folders[len(in)].PromptCount {
					in = append(in, folders[len(in)].ID)
				}
			}
			var total int
			for b.Loop() {
				var err error
				if _, total, err = db.SearchIn(ctx, q, SearchOptions{InFolders: in, Limit: 20}); err != nil || total == 0 {
					b.Fatalf("Search(%q) = total %d, %v", q, total, err)
				}
			}
			b.ReportMetric(float64(total), "matches")
			if db.fallbacks.Load() != 0 {
				b.Errorf("%d searches answered by LIKE scan", db.fallbacks.Load())
			}
		})
	}
}

// BenchmarkSearchSelective: two words of one title, not adjacent (the verb and the number).
func BenchmarkSearchSelective(b *testing.B) { benchSearch(b, selectiveQuery) }

// BenchmarkSearchScoped: two words in half the library's folders, a gated project's search
// (about 0.7% of the prompts hold both).
func BenchmarkSearchScoped(b *testing.B) {
	benchSearchIn(b, func(int) string { return "refactor caching" }, true)
}

// BenchmarkSearchTwoWords: two words in about 0.7% of the prompts ("refactor caching"), the
// search cmd's BenchmarkToolCall/…/search_two_words times through the server.
func BenchmarkSearchTwoWords(b *testing.B) {
	benchSearch(b, func(int) string { return "refactor caching" })
}

func selectiveQuery(n int) string {
	p := promptlib.Sample(min(n, 1000), 1).Prompts[n%1000/2]
	words := strings.Fields(p.Title)
	return words[0] + " " + strings.TrimPrefix(words[len(words)-1], "#") + " "
}

// BenchmarkSearchBroad: one word found in about half the library, ranked.
func BenchmarkSearchBroad(b *testing.B) {
	benchSearch(b, func(int) string { return "test " })
}

func BenchmarkGetPrompt(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			db := benchDB(b, n)
			all, _, err := db.ListPrompts(ctx, ListOptions{Limit: 1, Offset: n / 2})
			if err != nil {
				b.Fatal(err)
			}
			id := strings.ToLower(all[0].ID)
			for b.Loop() {
				if _, err := db.Prompt(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSidecarBuild: Open and a full build of the index, to ready.
func BenchmarkSidecarBuild(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			path := benchFixture(b, n)
			for b.Loop() {
				db, err := Open(context.Background(), path, Options{CacheDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				waitIndex(b, db, IndexReady)
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSidecarIncremental: the app edits one prompt; time until the index reflects it (what
// the next Search waits for).
func BenchmarkSidecarIncremental(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			path := benchCopy(b, n)
			db := open(b, path, Options{CacheDir: b.TempDir(), syncWait: waitLimit})
			waitIndex(b, db, IndexReady)
			w, err := librarytest.OpenWriter(path)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				if _, err := w.Exec("UPDATE prompts SET title = ?, updated_at = updated_at + 1 WHERE rowid = ?",
					fmt.Sprintf("Edited %d", i), 1+(i*7919)%n); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if ok, err := db.side.current(ctx); !ok || err != nil {
					b.Fatal("sidecar did not catch up")
				}
			}
		})
	}
}

// BenchmarkOpen: Open returns before the sidecar is built, at any size.
func BenchmarkOpen(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			path := benchFixture(b, n)
			for b.Loop() {
				db, err := Open(context.Background(), path, Options{CacheDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := db.Close(); err != nil { // cancels the build it started
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkSearchEverywhere: one word in every prompt of the library ("reviewer").
func BenchmarkSearchEverywhere(b *testing.B) {
	benchSearch(b, func(int) string { return "reviewer " })
}

// BenchmarkPollUnchanged is what a project's tool call pays before it runs (the server's view
// catching up, DESIGN §6) when the library did not change: the file's identity and one
// PRAGMA data_version. The same look precedes prompts/list, Search and ListPrompts.
func BenchmarkPollUnchanged(b *testing.B) {
	db := open(b, benchFixture(b, 1_000), Options{})
	ctx := context.Background()
	want, err := db.Poll(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if v, err := db.Poll(ctx); err != nil || v != want {
			b.Fatalf("Poll: version %d, %v; want %d unchanged", v, err, want)
		}
	}
}

// BenchmarkSearchUnspaced: a Japanese word inside a run of text, which only a scan finds.
func BenchmarkSearchUnspaced(b *testing.B) {
	benchSearch(b, func(int) string { return "説明" })
}
