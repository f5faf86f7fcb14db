package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The footer always ends with "? keys • q quit", on every screen at every width: ? is how to find
// the keys the footer has no room for.
func TestFooterKeepsHelpAndQuit(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	for w := 30; w <= 130; w++ {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		for i := range m.screens {
			m.active = i
			foot := m.footer()
			if got := displayWidth(foot); got != w {
				t.Errorf("%s screen at %d columns: the footer is %d columns: %q", m.screens[i].title(), w, got, foot)
			}
			if !strings.HasSuffix(strings.TrimRight(foot, " "), "? keys • q quit") {
				t.Errorf("%s screen at %d columns: the footer does not end with ? keys and q quit: %q", m.screens[i].title(), w, foot)
			}
		}
	}
}
