package pipeline

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Bounds on one hostile proxymodel file (TESTING.md, "hostile config"): refused or parsed
// within this time and this much allocation, naming the file.
const (
	parseTimeBound  = 5 * time.Second
	parseAllocBound = 256 << 20
)

func FuzzParseModel(f *testing.F) {
	f.Add("stages:\n  - type: section-split\n  - type: summarize-tree\n    config: {budgetBytes: 900}\n")
	f.Add("name: m\nappliesTo: [toolResult]\nminBytes: 10\nstages: [{type: paginate, config: {pageBytes: 4000}}]\n")
	f.Add("a: &a [*a, *a, *a, *a]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nstages: [{type: x}]\n")
	f.Add(strings.Repeat("[", 200) + strings.Repeat("]", 200))
	f.Add("stages:\n  - type: passthrough\n    config: {x: 1}\n  - type: p\n")
	f.Fuzz(func(t *testing.T, text string) {
		done := make(chan error, 1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		go func() {
			_, err := ParseModel("/cfg/proxymodels/m.yaml", []byte(text))
			done <- err
		}()
		select {
		case err := <-done:
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > parseAllocBound {
				t.Errorf("parsing %d bytes allocated %d bytes, over the bound of %d", len(text), alloc, parseAllocBound)
			}
			if err != nil {
				var me *ModelError
				if !errors.As(err, &me) || !strings.Contains(err.Error(), "/cfg/proxymodels/m.yaml") {
					t.Errorf("error %v is not a ModelError naming the file", err)
				}
			}
		case <-time.After(parseTimeBound):
			t.Fatalf("parsing %d bytes took longer than %v", len(text), parseTimeBound)
		}
	})
}
