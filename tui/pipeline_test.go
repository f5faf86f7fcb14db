package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	if cmd := s.update(keyMsg("enter")); cmd != nil {
		s.update(cmd())
	}
	if v := s.view(); s.err != nil || !strings.Contains(v, "Scope") || !strings.Contains(v, filepath.Join(home, "notes", "review.md")) {
		t.Errorf("o ~/notes/review.md: err %v; want the file under $HOME transformed and named:\n%s", s.err, v)
	}
}
