package pipeline

import (
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
