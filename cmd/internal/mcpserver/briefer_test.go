package mcpserver

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// Briefs of projects with other servers, built at once as the console's Gate screen builds
// them, each name their own servers and no other's.
func TestBriefsAtOnceNameTheirOwnServers(t *testing.T) {
	lib := promptlib.Sample(20, 1)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("srv%d", i)
			p, err := gate.ParseProject(fmt.Sprintf("/p/%d.yaml", i), fmt.Appendf(nil, "servers:\n  %s:\n    command: x\n", name))
			if err != nil {
				t.Error(err)
				return
			}
			for range 20 {
				ix, render, err := Briefer{}.Brief(t.Context(), lib, p)
				if err != nil {
					t.Error(err)
					return
				}
				text, err := render(t.Context(), gate.NewSession(p).Begin(ix, []string{"review"}), gate.LibraryBodies(lib))
				if err != nil {
					t.Error(err)
					return
				}
				tools, _, _ := strings.Cut(text, "\n")
				if !strings.HasSuffix(tools, "read_prompts, "+name+"__*.") {
					t.Errorf("project %s's briefing says %q; want its own server after read_prompts", name, tools)
					return
				}
			}
		})
	}
	wg.Wait()
}
