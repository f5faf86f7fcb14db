package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// On a terminal too small for the key help, nothing of it is lost: it says so and scrolls, and
// every line of it, "q quit" among them, can be brought on screen. Any other key closes it.
func TestHelpScrollsOnASmallTerminal(t *testing.T) {
	f := newFixture(t, 5)
	for _, size := range [][2]int{{60, 20}, {120, 12}} {
		m := newModel(t, f.cfg)
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m.Update(keyMsg("?"))
		// Every key's line of help, as the help lists it.
		var all []string
		for _, k := range append(screenKeys(m.screens[0]), globalKeys...) {
			all = append(all, fmt.Sprintf("  %-12s %s", k.Help().Key, k.Help().Desc))
		}
		seen := ""
		look := func() string {
			v := m.View()
			checkSize(t, v, size[0], size[1])
			seen += v
			return v
		}
		if v := look(); !strings.Contains(v, "(↑/↓ scroll, other keys close)") {
			t.Errorf("%v: the help does not say it scrolls:\n%s", size, v)
		}
		for range len(all) {
			m.Update(keyMsg("j"))
			look()
		}
		for _, l := range all {
			if !strings.Contains(seen, l) {
				t.Errorf("%v: the help line %q never shows", size, l)
			}
		}
		if v := look(); !strings.Contains(v, "quit, even while typing") {
			t.Errorf("%v: at the end of the help, its last line is not shown:\n%s", size, v)
		}
		m.Update(keyMsg("g"))
		if v := look(); !strings.Contains(v, "Keys on the Library screen") {
			t.Errorf("%v: g does not go back to the help's top:\n%s", size, v)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEnd})
		if v := look(); !strings.Contains(v, "quit, even while typing") {
			t.Errorf("%v: end does not go to the help's last line:\n%s", size, v)
		}
		m.Update(keyMsg("x"))
		if m.full {
			t.Errorf("%v: a key that does not scroll leaves the help open", size)
		}
	}
}
