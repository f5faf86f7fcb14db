package tui

import (
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
