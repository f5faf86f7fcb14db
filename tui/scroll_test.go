package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// The keys ? lists for moving through text work in each view that scrolls text: g and G (and
// home and end) go to the top and the bottom, pgdn and pgup by a page, ↓ and ↑ by a line.
func TestScrollingViewsTakeTheListedKeys(t *testing.T) {
	var long strings.Builder
	for i := range 80 {
		fmt.Fprintf(&long, "line %d of a long text\n\n", i)
	}
	f := newFixture(t, 30)
	f.lib.Exec(t, `UPDATE prompts SET body = ? WHERE id = ?`, long.String(), f.lib.Data.Prompts[0].ID)
	text, _ := json.Marshal(long.String())
	ev := traffic.Event{TS: clock, Session: "a1b2c3d4", Kind: traffic.KindResponse, Method: "tools/call", ID: "1", Name: "get_prompt",
		Status: traffic.StatusOK, Payload: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`)}

	// Each view opened with a text longer than the screen, and its viewport.
	views := map[string]func(t *testing.T) (*Model, *viewport.Model){
		"traffic event detail": func(t *testing.T) (*Model, *viewport.Model) {
			m := newModel(t, f.cfg)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			m.Update(trafficMsg{events: []traffic.Event{ev}})
			m.Update(keyMsg("3"))
			openEvent(t, m)
			return m, &m.screens[2].(*trafficScreen).vp
		},
		"gate briefing": func(t *testing.T) (*Model, *viewport.Model) {
			m := newModel(t, f.cfg)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			m.Update(keyMsg("4"))
			m.Update(keyMsg("t"))
			m.Update(keyMsg("sql review"))
			_, cmd := m.Update(keyMsg("enter"))
			m.Update(cmd())
			m.Update(keyMsg("b"))
			return m, &m.screens[3].(*gateScreen).vp
		},
		"library preview": func(t *testing.T) (*Model, *viewport.Model) {
			m := newModel(t, f.cfg)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			loadLibrary(t, m)
			ls := m.screens[0].(*libraryScreen)
			for i, p := range ls.prompts {
				if p.ID == f.lib.Data.Prompts[0].ID {
					ls.pl.cursor = i
				}
			}
			drain(m, ls.selectPrompt())
			m.Update(keyMsg("l"))
			m.Update(keyMsg("l")) // the preview has the keys
			return m, &ls.preview
		},
	}
	special := map[string]tea.KeyMsg{"home": {Type: tea.KeyHome}, "end": {Type: tea.KeyEnd},
		"pgdown": {Type: tea.KeyPgDown}, "pgup": {Type: tea.KeyPgUp}, "down": {Type: tea.KeyDown}, "up": {Type: tea.KeyUp}}
	press := func(m *Model, k string) {
		if msg, ok := special[k]; ok {
			m.Update(msg)
			return
		}
		m.Update(keyMsg(k))
	}
	for name, open := range views {
		t.Run(name, func(t *testing.T) {
			m, vp := open(t)
			if vp.TotalLineCount() <= vp.Height {
				t.Fatalf("the text is %d lines, the view %d: nothing to scroll", vp.TotalLineCount(), vp.Height)
			}
			for _, bottom := range []string{"G", "end"} {
				m, vp := open(t)
				press(m, bottom)
				if !vp.AtBottom() {
					t.Errorf("%s: the view is at line %d of %d, not at the bottom:\n%s", bottom, vp.YOffset, vp.TotalLineCount(), m.View())
				}
				for _, top := range []string{"g", "home"} {
					press(m, bottom)
					press(m, top)
					if !vp.AtTop() {
						t.Errorf("%s after %s: the view is at line %d, not at the top:\n%s", top, bottom, vp.YOffset, m.View())
					}
				}
			}
			press(m, "pgdown")
			if got := vp.YOffset; got != vp.Height {
				t.Errorf("pgdown: the view is at line %d, want a page down, %d", got, vp.Height)
			}
			press(m, "down")
			if got := vp.YOffset; got != vp.Height+1 {
				t.Errorf("down: the view is at line %d, want one line further, %d", got, vp.Height+1)
			}
			press(m, "up")
			if got := vp.YOffset; got != vp.Height {
				t.Errorf("up: the view is at line %d, want one line back, %d", got, vp.Height)
			}
			press(m, "pgup")
			if !vp.AtTop() {
				t.Errorf("pgdown, down, up, pgup: the view is at line %d, want back at the top", vp.YOffset)
			}
		})
	}
}
