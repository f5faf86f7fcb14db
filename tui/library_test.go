package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// drain runs a command and every command its messages lead to, as the program would, one
// after another: for the Library screen's reads and renderings, which end on their own.
func drain(m *Model, cmd tea.Cmd) {
	for pending := []tea.Cmd{cmd}; len(pending) > 0; {
		c := pending[0]
		pending = pending[1:]
		if c == nil {
			continue
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			pending = append(pending, b...)
			continue
		}
		_, next := m.Update(msg)
		pending = append(pending, next)
	}
}

// Two edits of one prompt within a second each show in the preview: the library keeps
// updated_at in whole seconds, so a client that updates a prompt twice in a row leaves the
// second edit with the first one's time.
func TestLibraryPreviewFollowsEditsWithinASecond(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	loadLibrary(t, m)
	ls := m.screens[0].(*libraryScreen)
	id := ls.prompts[0].ID
	for _, body := range []string{"The first edit of this prompt.", "The second edit, in the same second."} {
		f.lib.Exec(t, `UPDATE prompts SET body = ? WHERE id = ?`, body, id) // updated_at as it was
		drain(m, ls.reload())
		if ls.prompts[0].ID != id || ls.prompts[0].Content != body {
			t.Fatalf("the reload read %q, want the edit %q", ls.prompts[0].Content, body)
		}
		if v := m.View(); !strings.Contains(v, body) {
			t.Errorf("after the edit to %q the preview shows:\n%s", body, v)
		}
	}
}
