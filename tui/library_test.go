package tui

import (
	"fmt"
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

// hinted is an error that carries its fix, as cmd gives the console a library's errors.
type hinted struct{ msg, hint string }

func (e hinted) Error() string    { return e.msg }
func (e hinted) UserHint() string { return e.hint }

// A library that cannot be opened is said with the fix its error carries, the command line's
// hint, and no advice of the console's own beside it; a machine without a library yet is told,
// once and plainly, where it will be and what makes it.
func TestLibraryProblemsSayWhatToDo(t *testing.T) {
	f := newFixture(t, 3)
	view := func(err error) string {
		cfg := f.cfg
		cfg.DB, cfg.LibraryErr, cfg.LibraryDir = nil, err, "/home/me/.local/share/mcpctl/library"
		m := newModel(t, cfg)
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		return strings.Join(strings.Fields(m.View()), " ")
	}
	damaged := hinted{msg: "dbread: open /home/me/lib/prompts.db: dbread: the library file is damaged: file is not a database",
		hint: "a library's prompts.db is the SQLite database of the Prompteka app or of 'mcpctl library init', and this file is not " +
			"one or is damaged: check that --library, --db or PROMPTEKA_DB_PATH names the library you mean; restore the file from a " +
			"backup, or create a new library with 'mcpctl library init DIR'"}
	v := view(damaged)
	if want := "The library could not be opened: " + damaged.msg + " hint: " + damaged.hint; !strings.Contains(v, want) {
		t.Errorf("a damaged library: the screen does not say %q:\n%s", want, v)
	}
	if strings.Contains(v, "Start the console with --library") {
		t.Errorf("a damaged library: the console adds its own advice beside the error's:\n%s", v)
	}

	v = view(fmt.Errorf("%w: no library database at /home/me/.local/share/mcpctl/library/prompts.db (found by standalone default)", ErrNoLibraryYet))
	for _, want := range []string{"No library yet.", "/home/me/.local/share/mcpctl/library",
		"The first 'mcpctl serve' creates it there, with a few starter prompts",
		"mcpctl library init /home/me/.local/share/mcpctl/library", "shows the library as soon as it exists"} {
		if !strings.Contains(v, want) {
			t.Errorf("no library yet: the screen does not say %q:\n%s", want, v)
		}
	}
	for _, jargon := range []string{"standalone", "found by", "could not be opened", "Check the path"} {
		if strings.Contains(v, jargon) {
			t.Errorf("no library yet: the screen says %q, an error's words for what is no error:\n%s", jargon, v)
		}
	}
	if n := strings.Count(v, "library init"); n != 1 {
		t.Errorf("no library yet: 'library init' is advised %d times, want once:\n%s", n, v)
	}
}
