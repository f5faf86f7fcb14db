package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// pressName is the message a terminal sends for a key named as key.Binding names it.
func pressName(tb testing.TB, name string) tea.KeyMsg {
	tb.Helper()
	special := map[string]tea.KeyType{"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "ctrl+u": tea.KeyCtrlU, "ctrl+d": tea.KeyCtrlD, " ": tea.KeySpace}
	msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
	if t, ok := special[name]; ok {
		msg = tea.KeyMsg{Type: t}
	}
	if msg.String() != name {
		tb.Fatalf("the test sends %q for the key %q", msg.String(), name)
	}
	return msg
}

// Every key bound to scrolling moves every view that scrolls, as its help says: ↓/↑ a line,
// pgdn/pgup a page, g/G to the top and the bottom, each by every key it is bound to (j, space,
// ctrl+d, home …); and every screen's help lists them. The views: the Traffic screen's event
// detail, the Gate screen's briefing, the Library screen's preview, a list, the Pipeline screen's
// columns, and the key help on a terminal too small for it.
func TestScrollingViewsTakeTheScrollKeys(t *testing.T) {
	var long strings.Builder
	for i := range 80 {
		fmt.Fprintf(&long, "line %d of a long text\n\n", i)
	}
	f := newFixture(t, 30)
	f.cfg.Pipeline = splitter{}
	f.lib.Exec(t, `UPDATE prompts SET body = ? WHERE id = ?`, long.String(), f.lib.Data.Prompts[0].ID)
	doc := filepath.Join(t.TempDir(), "long.md")
	writeFile(t, doc, long.String(), time.Time{})
	var blocks []string // a text block a line: pretty-printed, four lines each
	for i := range 40 {
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":"line %d of a long text"}`, i))
	}
	ev := traffic.Event{TS: clock, Session: "a1b2c3d4", Kind: traffic.KindResponse, Method: "tools/call", ID: "1", Name: "get_prompt",
		Status: traffic.StatusOK, Payload: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[` + strings.Join(blocks, ",") + `]}}`)}

	// view is a view that scrolls, opened on a text longer than the screen: where it is, and how
	// far a page and the bottom are.
	type view struct {
		m          *Model
		pos        func() int
		page, last int
	}
	console := func(t *testing.T) *Model {
		m := newModel(t, f.cfg)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		return m
	}
	views := map[string]func(t *testing.T) view{
		"traffic event detail": func(t *testing.T) view {
			m := console(t)
			m.Update(trafficMsg{events: []traffic.Event{ev}})
			m.Update(keyMsg("3"))
			openEvent(t, m)
			vp := &m.screens[2].(*trafficScreen).vp
			return view{m, func() int { return vp.YOffset }, vp.Height, vp.TotalLineCount() - vp.Height}
		},
		"gate briefing": func(t *testing.T) view {
			m := console(t)
			m.Update(keyMsg("4"))
			m.Update(keyMsg("t"))
			m.Update(keyMsg("sql review"))
			_, cmd := m.Update(keyMsg("enter"))
			m.Update(cmd())
			m.Update(keyMsg("b"))
			vp := &m.screens[3].(*gateScreen).vp
			return view{m, func() int { return vp.YOffset }, vp.Height, vp.TotalLineCount() - vp.Height}
		},
		"library preview": func(t *testing.T) view {
			m := console(t)
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
			vp := &ls.preview
			return view{m, func() int { return vp.YOffset }, vp.Height, vp.TotalLineCount() - vp.Height}
		},
		"library prompt list": func(t *testing.T) view {
			m := console(t)
			loadLibrary(t, m)
			ls := m.screens[0].(*libraryScreen)
			m.Update(keyMsg("l"))
			return view{m, func() int { return ls.pl.cursor }, ls.pl.height, ls.pl.n - 1}
		},
		"pipeline columns": func(t *testing.T) view {
			m := console(t)
			m.Update(keyMsg("5"))
			m.Update(keyMsg("o"))
			m.Update(keyMsg(doc))
			_, cmd := m.Update(keyMsg("enter"))
			drain(m, cmd)
			ps := m.screens[4].(*pipelineScreen)
			return view{m, func() int { return ps.offset }, ps.colHeight(), ps.lastOffset()}
		},
		"key help": func(t *testing.T) view {
			m := console(t)
			m.Update(tea.WindowSizeMsg{Width: 60, Height: 10})
			m.Update(keyMsg("?"))
			rows := m.h - 3
			return view{m, func() int { return m.helpTop }, rows, len(m.helpLines()) - rows}
		},
	}
	clamp := func(pos, last int) int { return max(0, min(pos, last)) }
	moves := []struct {
		b    key.Binding
		want func(pos, page, last int) int
	}{
		{scrollKeys.Up, func(pos, _, last int) int { return clamp(pos-1, last) }},
		{scrollKeys.Down, func(pos, _, last int) int { return clamp(pos+1, last) }},
		{scrollKeys.PgUp, func(pos, page, last int) int { return clamp(pos-page, last) }},
		{scrollKeys.PgDn, func(pos, page, last int) int { return clamp(pos+page, last) }},
		{scrollKeys.Home, func(int, int, int) int { return 0 }},
		{scrollKeys.End, func(_, _, last int) int { return last }},
	}
	if got, want := len(moves), len(scrollKeys.lines())+len(scrollKeys.paging()); got != want {
		t.Fatalf("the test checks %d scrolling keys, scrollKeys has %d", got, want)
	}
	for name, open := range views {
		t.Run(name, func(t *testing.T) {
			v := open(t)
			if v.last <= 2*v.page {
				t.Fatalf("the last position is %d, a page %d: too short to scroll either way from two pages down", v.last, v.page)
			}
			for _, mv := range moves {
				for _, k := range mv.b.Keys() {
					v := open(t)
					pgdn := pressName(t, scrollKeys.PgDn.Keys()[0])
					v.m.Update(pgdn)
					v.m.Update(pgdn) // the middle: room to move either way
					from := v.pos()
					v.m.Update(pressName(t, k))
					if got, want := v.pos(), mv.want(from, v.page, v.last); got != want || got == from {
						t.Errorf("%q (%s): from %d to %d, want %d (a page is %d, the last position %d)", k, mv.b.Help().Desc, from, got, want, v.page, v.last)
					}
				}
			}
		})
	}

	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 60})
	for i := range m.screens {
		m.active, m.full = i, true
		help := m.View()
		for _, b := range append(scrollKeys.lines(), scrollKeys.paging()...) {
			if line := fmt.Sprintf("  %-12s %s", b.Help().Key, b.Help().Desc); !strings.Contains(help, line) {
				t.Errorf("the %s screen's help does not list %q:\n%s", m.screens[i].title(), line, help)
			}
		}
	}
}
