package cmd

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// The traffic a gated call records counts the priority-10 prompts apart: they are sent whatever
// the tags and are not among the matched, so a briefing whose tags match nothing read as sent 1
// of 0 matched. Sent less critical is of the matched.
func TestGateTrafficCountsCriticalApart(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", webProject) // security-policy: 10
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	s.call(t, "begin_session", map[string]any{"tags": []string{"gardening"}}, nil) // matches nothing
	s.call(t, "read_prompts", map[string]any{"tags": []string{"sql"}}, nil)
	var got []string
	for _, e := range stoppedTraffic(t, s, env) {
		if g := e.Gate; e.Kind == traffic.KindResponse && g != nil {
			got = append(got, fmt.Sprintf("%s matched %d sent %d critical %d", e.Name, g.Matched, g.Sent, g.Critical))
		}
	}
	want := []string{"begin_session matched 0 sent 1 critical 1", "read_prompts matched 1 sent 1 critical 0"}
	if !slices.Equal(got, want) {
		t.Errorf("traffic gate events %q, want %q", got, want)
	}
}
