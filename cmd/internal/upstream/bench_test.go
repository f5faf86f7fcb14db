package upstream

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpctl/mcpctl/gate"
)

// BenchmarkCallTool measures one round trip through the supervisor to the test upstream, for a
// small result and a 200 KB one; bytes/s counts the result's text.
func BenchmarkCallTool(b *testing.B) {
	spec, _ := testSpec(b, nil)
	sup, _ := startSupervisor(b, map[string]gate.ServerSpec{"tu": spec}, Options{})
	waitState(b, sup.Server("tu"), Ready)
	for _, bc := range []struct {
		tool string
		size int
	}{{"tu__small", len("small: ")}, {"tu__big", bigResult}} {
		b.Run(fmt.Sprintf("result=%dB", bc.size), func(b *testing.B) {
			b.SetBytes(int64(bc.size))
			for b.Loop() {
				if _, err := sup.CallTool(context.Background(), bc.tool, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStartToReady measures starting the test upstream (14 tools over 7 pages, a prompt,
// a resource and a template) until its lists are in, and stopping it.
func BenchmarkStartToReady(b *testing.B) {
	spec, _ := testSpec(b, nil)
	for b.Loop() {
		sup := New(map[string]gate.ServerSpec{"tu": spec}, Options{Logger: discardLogger()})
		sup.Start(context.Background())
		if st := sup.Server("tu").Wait(context.Background()); st.State != Ready {
			b.Fatalf("state %s: %s", st.State, st.LastError)
		}
		sup.Close()
	}
}
