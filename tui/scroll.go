package tui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// scrollKeys are the keys that move through text and lists, defined here once: every screen's
// key help lists them (screenKeys), and everything that scrolls moves by scroll: the viewports
// (scrollText), the lists (moveList), the Pipeline screen's columns and the key help itself. A
// key bound here moves each of them and is listed on each screen; none can take a key the help
// does not name, or miss one it does.
var scrollKeys = scrollKeyMap{
	Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
	Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
	PgUp: key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
	PgDn: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", " "), key.WithHelp("pgdn", "page down")),
	Home: key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
	End:  key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
}

// scrollKeyMap is a set of scrolling keys: a line, a page, or to an end, each way.
type scrollKeyMap struct{ Up, Down, PgUp, PgDn, Home, End key.Binding }

// lines are the keys that move a line, which the footer shows; paging, those that move
// further, it leaves to the help.
func (k scrollKeyMap) lines() []key.Binding  { return []key.Binding{k.Up, k.Down} }
func (k scrollKeyMap) paging() []key.Binding { return []key.Binding{k.PgUp, k.PgDn, k.Home, k.End} }

// scroll is where msg moves a position: the first line a view shows, or a list's cursor, at pos
// of 0 to last, page lines a page. ok is false when msg is no scrolling key.
func (k scrollKeyMap) scroll(msg tea.KeyMsg, pos, page, last int) (to int, ok bool) {
	switch {
	case key.Matches(msg, k.Up):
		pos--
	case key.Matches(msg, k.Down):
		pos++
	case key.Matches(msg, k.PgUp):
		pos -= page
	case key.Matches(msg, k.PgDn):
		pos += page
	case key.Matches(msg, k.Home):
		pos = 0
	case key.Matches(msg, k.End):
		pos = last
	default:
		return pos, false
	}
	return max(0, min(pos, last)), true
}

// scrollText moves text shown in a viewport by the scrolling keys. The Traffic screen's event
// detail, the Gate screen's briefing and the Library screen's preview all scroll through here;
// the viewport's own map would page on f and b, which those screens bind to other things.
func scrollText(vp *viewport.Model, msg tea.KeyMsg) {
	if top, ok := scrollKeys.scroll(msg, vp.YOffset, vp.Height, vp.TotalLineCount()-vp.Height); ok {
		vp.SetYOffset(top)
	}
}

// moveList moves a list's cursor by the scrolling keys.
func moveList(l *listView, msg tea.KeyMsg) {
	if c, ok := scrollKeys.scroll(msg, l.cursor, l.height, l.n-1); ok {
		l.cursor = c
		l.scroll()
	}
}
