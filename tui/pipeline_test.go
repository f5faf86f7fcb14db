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
