package tui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// A path typed at o may start with ~, as in a shell: there is no shell here to expand it.
func TestPipelineOpenExpandsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFile(t, filepath.Join(home, "notes", "review.md"), "# Review\n\nintro\n\n## Scope\n\nall of it\n", time.Time{})
	f := newFixture(t, 1)
	f.cfg.Pipeline = splitter{}
	s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
	s.resize(100, 22)
	s.update(keyMsg("o"))
	s.update(keyMsg("~/notes/review.md"))
	settle(s, s.update(keyMsg("enter")))
	if v := s.view(); s.err != nil || !strings.Contains(v, "Scope") || !strings.Contains(v, filepath.Join(home, "notes", "review.md")) {
		t.Errorf("o ~/notes/review.md: err %v; want the file under $HOME transformed and named:\n%s", s.err, v)
	}
}

// o reads the file in a command, not on the UI goroutine: enter returns at once, the screen
// saying which file it reads, and the file is read when the command runs (here, written after
// enter). A read that m superseded is dropped; the one after it is transformed with the model
// chosen.
func TestPipelineOpenReadsInACommand(t *testing.T) {
	f := newFixture(t, 1)
	f.cfg.Pipeline = splitter{}
	path := filepath.Join(t.TempDir(), "later.md")
	s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
	s.resize(100, 22)
	s.update(keyMsg("o"))
	s.update(keyMsg(path))
	read := s.update(keyMsg("enter"))
	if v := s.view(); read == nil || !strings.Contains(v, "reading "+path+"…") {
		t.Fatalf("enter: a command %v; want the file read by one, and said meanwhile:\n%s", read != nil, v)
	}
	writeFile(t, path, "# Later\n\nintro\n\n## Written after enter\n\nyes\n", time.Time{})
	again := s.update(keyMsg("m")) // the default model: the file is read again
	if cmd := s.update(read()); cmd != nil || !strings.Contains(s.view(), "reading "+path+"…") {
		t.Errorf("the read m superseded is transformed (a command %v):\n%s", cmd != nil, s.view())
	}
	settle(s, again)
	if v := s.view(); s.err != nil || !strings.Contains(v, "model default") || !strings.Contains(v, "## Written after enter") {
		t.Errorf("the file read after m: err %v; want it shown whole by the default model:\n%s", s.err, v)
	}
}

// recorder is a Transformer that keeps the inputs it is given.
type recorder struct {
	splitter
	ins *[]Input
}

func (r recorder) Transform(ctx context.Context, model string, in Input) (Output, error) {
	*r.ins = append(*r.ins, in)
	return r.splitter.Transform(ctx, model, in)
}

// The Pipeline screen transforms content for the project it is served for, as serve does, which
// tells custom stages (a redaction, a stage configured per project): a file for the project the
// console runs for (named, or the repository's), a traced result for the project of the server
// that traced it, named when it is not the console's. Both were transformed for none.
func TestPipelineTransformsForTheProject(t *testing.T) {
	f := newFixture(t, 1)
	path := filepath.Join(t.TempDir(), "notes.md")
	writeFile(t, path, "# Notes\n\n## One\n\nfirst\n", time.Time{})
	ev := traffic.Event{TS: clock, Session: "s1", Project: "api", Kind: traffic.KindResponse, Method: "tools/call", Name: "get_prompt",
		Status: traffic.StatusOK, Payload: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"# Doc\n\n## One\n\nfirst"}]}}`)}
	for _, tc := range []struct {
		name, project string
		repo          *RepoProject
		want          string
	}{
		{"a project named", "web", nil, "web"},
		{"the repository's", "", &RepoProject{Name: "shop-front"}, "shop-front"},
		{"none", "", nil, ""},
	} {
		var ins []Input
		cfg := f.cfg
		cfg.Project, cfg.Repo, cfg.Pipeline = tc.project, tc.repo, recorder{ins: &ins}
		s := newPipelineScreen(env{cfg: &cfg, st: newStyles(false)})
		s.resize(100, 22)
		s.update(trafficMsg{events: []traffic.Event{ev}})
		s.update(keyMsg("o"))
		s.update(keyMsg(path))
		settle(s, s.update(keyMsg("enter")))
		settle(s, s.update(keyMsg("e")))
		if len(ins) != 2 || ins[0].Project != tc.want || ins[1].Project != "api" {
			t.Errorf("%s: transformed %+v; want the file for project %q, then the event for project api", tc.name, ins, tc.want)
		}
		if v := s.view(); !strings.Contains(v, "get_prompt of project api") {
			t.Errorf("%s: the source does not say the event was served for project api:\n%s", tc.name, v)
		}
	}
}
