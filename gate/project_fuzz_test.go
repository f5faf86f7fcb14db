package gate

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/schemas"
)

// aliasBomb is the 600-byte kind of file that once cost 86 s and 6.3 GB: each level repeats
// the one before nine times, 9^9 values in all.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(name + ": &" + name + " [")
		for j := range 9 {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	b.WriteString("folder: *i\n")
	return b.String()
}

// Bounds per input: a hostile project file is refused within these, never explored. The
// allocation bound is what shows a bomb was not expanded; the time bound only catches a hang, so
// it is far above the 0.2 s a bomb takes under the race detector and a loaded CI machine cannot
// trip it.
const (
	parseTimeBound  = 10 * time.Second
	parseAllocBound = 256 << 20
)

// parseBounded runs ParseProject on data and fails tb if it takes longer than parseTimeBound
// or allocates more than parseAllocBound.
func parseBounded(tb testing.TB, data []byte) (Project, error) {
	tb.Helper()
	type result struct {
		p   Project
		err error
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan result, 1)
	go func() {
		p, err := ParseProject("fuzz.yaml", data)
		done <- result{p, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(parseTimeBound):
		tb.Fatalf("ParseProject(%d bytes) did not return within %s", len(data), parseTimeBound)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > parseAllocBound {
		tb.Fatalf("ParseProject(%d bytes) allocated %d MB, bound %d MB", len(data), alloc>>20, parseAllocBound>>20)
	}
	return r.p, r.err
}

// TestParseProjectAliasBomb: the decoder's alias budget (schemas.MaxYAMLValues) refuses the bomb
// and names the file.
func TestParseProjectAliasBomb(t *testing.T) {
	bomb := aliasBomb()
	if len(bomb) > 1000 {
		t.Fatalf("fixture: the bomb is %d bytes, want a small one", len(bomb))
	}
	_, err := parseBounded(t, []byte(bomb))
	if err == nil || !strings.Contains(err.Error(), "fuzz.yaml") || !strings.Contains(err.Error(), "expands to more than") {
		t.Errorf("ParseProject(alias bomb) = %v; want a refusal naming the file and the expansion", err)
	}
	if schemas.MaxYAMLValues > 100_000 {
		t.Errorf("schemas.MaxYAMLValues = %d, want at most 100000", schemas.MaxYAMLValues)
	}
}

// FuzzParseProject: any bytes either parse into a project or are refused with an error naming
// the file, within the time and allocation bounds; ParseProject never panics.
func FuzzParseProject(f *testing.F) {
	for _, seed := range []string{
		"",
		"folder: Engineering / Backend\ngated: true\ngateMode: soft\nbyteBudget: 4096\nindexCap: 10\npriorities:\n  security-review: 10\n",
		"folder: [unclosed\n",
		"gated: yes\n",
		"priorities: {a: 11}\n",
		"folder: &x Engineering\nservers: {a: {command: *x}}\n",
		strings.Repeat("[", 200) + strings.Repeat("]", 200),
		aliasBomb(),
		"\x00\xff: \x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseBounded(t, data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if p.Name != "fuzz" || p.ByteBudget <= 0 {
			t.Errorf("parsed project %+v: want name fuzz and a positive byte budget", p)
		}
	})
}
