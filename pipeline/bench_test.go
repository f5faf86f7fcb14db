package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

// Benchmarks of the Engine on fixed fixtures; each prints its fixture's size and the bytes
// before and after (b.ReportMetric), so a figure is never read without its size.

func benchEngine(b *testing.B, disk bool) *Engine {
	b.Helper()
	opts := Options{ConfigDir: b.TempDir()}
	if disk {
		opts.CacheDir = b.TempDir()
	}
	e, err := NewEngine(opts)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func report(b *testing.B, out Output) {
	b.ReportMetric(float64(out.Metrics.BytesBefore), "bytes-before")
	b.ReportMetric(float64(out.Metrics.BytesAfter), "bytes-after")
}

// BenchmarkSubindex120KB: subindex of a 120 KB JSON array of 1,400 objects; cold (no cache),
// a hit in memory, and a hit on disk as after a restart.
func BenchmarkSubindex120KB(b *testing.B) {
	text := jsonArray(b, 1400)
	b.Run("cold", func(b *testing.B) {
		e := benchEngine(b, false)
		b.SetBytes(int64(len(text)))
		var out Output
		for b.Loop() {
			e.memo.clear()
			out = transform(b, e, "subindex", text)
		}
		report(b, out)
	})
	b.Run("hit-memory", func(b *testing.B) {
		e := benchEngine(b, true)
		transform(b, e, "subindex", text)
		b.SetBytes(int64(len(text)))
		var out Output
		for b.Loop() {
			out = transform(b, e, "subindex", text)
		}
		if !out.Metrics.CacheHit {
			b.Fatal("not a cache hit")
		}
		report(b, out)
	})
	b.Run("hit-disk", func(b *testing.B) {
		e := benchEngine(b, true)
		transform(b, e, "subindex", text)
		b.SetBytes(int64(len(text)))
		var out Output
		for b.Loop() {
			e.memo.clear()
			out = transform(b, e, "subindex", text)
		}
		if !out.Metrics.CacheHit {
			b.Fatal("not a cache hit")
		}
		report(b, out)
	})
}

// BenchmarkPaginate1MB: the default model (passthrough, paginate) on 1 MB of markdown, no cache.
func BenchmarkPaginate1MB(b *testing.B) {
	doc := markdownDoc(b)
	text := strings.Repeat(doc, 1_000_000/len(doc)+1)[:1_000_000]
	e := benchEngine(b, false)
	b.SetBytes(int64(len(text)))
	var out Output
	for b.Loop() {
		e.memo.clear()
		out = transform(b, e, "default", text)
	}
	report(b, out)
}

// BenchmarkSubindexKinds: subindex of every content kind, no cache.
func BenchmarkSubindexKinds(b *testing.B) {
	for _, tc := range contentKinds(b) {
		b.Run(strings.ReplaceAll(tc.name, " ", "-"), func(b *testing.B) {
			e := benchEngine(b, false)
			b.SetBytes(int64(len(tc.text)))
			var out Output
			for b.Loop() {
				e.memo.clear()
				out = transform(b, e, "subindex", tc.text)
			}
			report(b, out)
		})
	}
}

// manyFiles is what read_multiple_files answers for n small files of a source tree: about
// 200 bytes each, markdown, Go and plain text by turns.
func manyFiles(n int) string {
	files := make([][2]string, n)
	for i := range files {
		var body string
		switch i % 3 {
		case 0:
			body = fmt.Sprintf("# Notes %d\n\nWhat this directory holds, and who owns it: team %d.\n\n- Status: green\n", i, i%17)
		case 1:
			body = fmt.Sprintf("package p%d\n\n// F%d says hello.\nfunc F%d() string { return \"hello %d\" }\n", i%100, i, i, i)
		default:
			body = fmt.Sprintf("build %d passed at 12:%02d\nartifacts: %d\nwarnings: none\n", i, i%60, i%9)
		}
		body += "Last changed by the nightly job, which rewrites this file whenever its inputs change.\n"
		files[i] = [2]string{fmt.Sprintf("/repo/pkg%03d/sub%02d/file%06d.txt", i%1000, i%37, i), body}
	}
	return readMultipleFiles(files)
}

// BenchmarkManyFiles32MB: the paginate and section-split stages on 32 MB of 166,000 files as
// read_multiple_files gives them, which are cut and split where files start.
func BenchmarkManyFiles32MB(b *testing.B) {
	text := manyFiles(166_000)
	for _, st := range []struct {
		name string
		run  StageFunc
	}{{"paginate", paginate}, {"section-split", sectionSplit}} {
		b.Run(st.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			env := Env{Config: map[string]any{}}
			var r Result
			for b.Loop() {
				var err error
				if r, err = st.run(b.Context(), Content{Text: text}, env); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(text)), "bytes")
			b.ReportMetric(float64(len(r.Sections)), "sections")
		})
	}
}
