package tui

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// previewOn shows the Gate screen's preview for the project at index i of the list and tags.
func previewOn(t *testing.T, m *Model, i int, tags string) *gateScreen {
	t.Helper()
	gs := m.screens[3].(*gateScreen)
	m.Update(gs.listProjects()())
	m.Update(keyMsg("4"))
	gs.pl.cursor = i
	m.Update(keyMsg("t"))
	m.Update(keyMsg(tags))
	if _, cmd := m.Update(keyMsg("enter")); cmd != nil {
		m.Update(cmd())
	}
	return gs
}

// The Gate screen counts the critical prompts apart from the matched ones it sends, as the
// Traffic screen does: they are sent whatever the tags.
func TestGateCountsCriticalApart(t *testing.T) {
	f := newFixture(t, 30)
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	gs := previewOn(t, m, 0, "sql review")
	if gs.view_ == nil || len(gs.view_.Rows) < 2 {
		t.Fatalf("the preview without a project has too few rows to test with (err %v)", gs.err)
	}
	critical := gs.view_.Rows[1].Name
	f.withProject(t, "web", "priorities:\n  "+critical+": 10\n")
	m = newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	gs = previewOn(t, m, 1, "sql review")
	if gs.project() != "web" || gs.view_ == nil {
		t.Fatalf("no preview of web (selected %q, err %v)", gs.project(), gs.err)
	}
	want := "1 critical + " + strconv.Itoa(countGroup(gs.view_.Rows, "matched")) + " matched sent · "
	if v := m.View(); !strings.Contains(v, want) {
		t.Errorf("the counts do not say %q:\n%s", want, v)
	}
}

// A project whose folder the library does not have is marked in the list, and selected it says
// what serve would tell its sessions with the fix 'mcpctl describe project' prints (create the
// folder, or change folder: in the file).
func TestGateProjectWithoutItsFolder(t *testing.T) {
	f := newFixture(t, 30)
	f.withProject(t, "nofolder", "folder: Does Not Exist\n")
	file := filepath.Join(f.cfg.ProjectsDir, "nofolder.yaml")
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	gs := m.screens[3].(*gateScreen)
	m.Update(gs.listProjects()())
	m.Update(keyMsg("4"))
	if v := m.View(); !strings.Contains(v, "✗ nofolder (no folder)") {
		t.Errorf("the project without its folder is not marked in the list:\n%s", v)
	}
	want := []string{"No session of this project can start: gate: resolve folder Does Not Exist: project folder not found",
		`hint: create the folder "Does Not Exist" in the library`, "or change folder: in " + file}
	check := func(when string) {
		t.Helper()
		v := rightPane(m.View())
		for _, w := range want {
			if !strings.Contains(v, w) {
				t.Errorf("%s: the screen does not say %q:\n%s", when, w, m.View())
			}
		}
	}
	m.Update(keyMsg("j")) // nofolder
	check("selected")
	m.Update(keyMsg("t"))
	m.Update(keyMsg("sql"))
	_, cmd := m.Update(keyMsg("enter"))
	m.Update(cmd())
	check("previewed")

	// The folder made meanwhile: the next preview, which reads the library as it is, clears the mark.
	f.lib.Exec(t, `INSERT INTO folders (id, name, parent_id, position, created_at, updated_at)
		VALUES ('F0000000-0000-4000-8000-0000000000AA', 'Does Not Exist', NULL, 9, 1700000000, 1700000000)`)
	if _, err := f.db.Poll(t.Context()); err != nil { // as the watcher would report the write
		t.Fatal(err)
	}
	m.Update(m.screens[3].(*gateScreen).preview()())
	if v := m.View(); strings.Contains(v, "✗ nofolder") || !strings.Contains(v, "budget ") {
		t.Errorf("with the folder made, the project is still marked, or not previewed:\n%s", v)
	}
}

// rightPane is the text of a two-pane screen's right pane, its lines joined by spaces: what a
// wrapped sentence reads as.
func rightPane(view string) string {
	var b strings.Builder
	for _, l := range strings.Split(view, "\n") {
		if _, r, ok := strings.Cut(l, "│"); ok {
			b.WriteString(r + " ")
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
