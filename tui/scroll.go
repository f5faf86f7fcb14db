package tui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// scrollText moves text shown in a viewport by the keys the help lists for it: ↑/↓ (k/j) a
// line, pgup/pgdn a page, g/G (home/end) to the top and the bottom. The Traffic screen's event
// detail, the Gate screen's briefing and the Library screen's preview all scroll through here,
// so the keys the help names do the same in each, and keys it does not name do nothing there
// (the viewport's own map would page on f and b, which those screens bind to other things).
func scrollText(vp *viewport.Model, msg tea.KeyMsg) {
	switch {
	case key.Matches(msg, keyUp):
		vp.ScrollUp(1)
	case key.Matches(msg, keyDown):
		vp.ScrollDown(1)
	case key.Matches(msg, keyPgUp):
		vp.PageUp()
	case key.Matches(msg, keyPgDn):
		vp.PageDown()
	case key.Matches(msg, keyHome):
		vp.GotoTop()
	case key.Matches(msg, keyEnd):
		vp.GotoBottom()
	}
}
