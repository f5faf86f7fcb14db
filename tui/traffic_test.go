package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// The event detail shows a payload's strings as they read: serve writes JSON escaped for any
// transport (🚀 as \ud83d\ude80, < as \u003c), and the detail decodes it, keeping the members in
// their order and escaped what would act on the terminal or hide text: control characters, line
// separators and bidirectional overrides.
func TestEventDetailDecodesStrings(t *testing.T) {
	payload := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",` +
		`"text":"From client \ud83d\ude80 \u003cprompt name=\"code-review\"\u003e \u0026 caf\u00e9\n\u001b[2J\u0007 \u202eright-to-left\u2028 a\\b \u009b hid\u200bden \udb40\udc49\udb40\udc47 soft\u00ad"}]}}`
	e := traffic.Event{TS: clock, Session: "s1", Kind: traffic.KindResponse, Method: "tools/call", ID: "7", Name: "get_prompt",
		Status: traffic.StatusOK, Payload: json.RawMessage(payload)}
	got := eventText(e, time.UTC)
	want := `"text": "From client 🚀 <prompt name=\"code-review\"> & café\n\u001b[2J\u0007 \u202eright-to-left\u2028 a\\b \u009b hid\u200bden \udb40\udc49\udb40\udc47 soft\u00ad"`
	if !strings.Contains(got, want) {
		t.Errorf("the detail does not show the text decoded, its controls escaped:\n%s\nwant it to hold:\n%s", got, want)
	}
	if i, j, k := strings.Index(got, `"jsonrpc"`), strings.Index(got, `"id": 7`), strings.Index(got, `"result"`); !(0 <= i && i < j && j < k) {
		t.Errorf("the members are not in the message's order:\n%s", got)
	}
	noControls(t, "traffic event", got)

	// A payload that is not JSON is shown as it is, made safe.
	e.Payload = json.RawMessage("not json \x1b[2J")
	if got := eventText(e, time.UTC); !strings.Contains(got, "not json ^[[2J") {
		t.Errorf("a payload that is not JSON:\n%s", got)
	}
}

// A filter that keeps nothing says so, with the filter, instead of showing an empty table; one
// with a key that is not one says which keys there are and stays open to be corrected. The keys
// take what the table shows.
func TestTrafficFilterSaysWhyNothingMatches(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(trafficMsg{events: trafficEvents()})
	m.Update(keyMsg("3"))
	filter := func(text, end string) string {
		m.Update(keyMsg("f"))
		ts := m.screens[2].(*trafficScreen)
		ts.filter.SetValue(text)
		m.Update(keyMsg(end))
		return strings.Join(strings.Fields(m.View()), " ")
	}
	for _, tc := range []struct{ filter, want string }{
		{"kind:not", "1 of 10 events"},              // STAT shows "not"
		{"method:search_prompts", "4 of 10 events"}, // NAME shows the tool's name
		{"kind:foo", "None of the 10 events matches the filter kind:foo: f edits it, esc clears it."},
		{"status:error project:web", "None of the 10 events matches the filter status:error project:web"},
	} {
		if v := filter(tc.filter, "enter"); !strings.Contains(v, tc.want) {
			t.Errorf("filter %s: the screen does not say %q:\n%s", tc.filter, tc.want, m.View())
		}
	}
	m.Update(keyMsg("esc"))

	v := filter("sttus:eror", "enter")
	for _, want := range []string{`"sttus" is not a filter key (in sttus:eror): the keys are session, project, method, name, status and kind, each before a colon`,
		"esc keeps the one before"} {
		if !strings.Contains(v, want) {
			t.Errorf("an unknown key: the screen does not say %q:\n%s", want, m.View())
		}
	}
	if !m.screens[2].capturing() {
		t.Error("after an unknown key the filter closed; want it open to correct")
	}
	m.Update(keyMsg("esc"))
	if v := m.View(); m.screens[2].capturing() || !strings.Contains(v, "10 of 10 events") {
		t.Errorf("esc after an unknown key: want the filter before (none) kept:\n%s", v)
	}
}

// The gate's counts add up: priority-10 prompts are sent whatever the tags and are not among the
// matched, so they are counted apart, and no call reads as more sent than matched ("open 1/0").
func TestTrafficGateCountsAddUp(t *testing.T) {
	f := newFixture(t, 5)
	for _, tc := range []struct {
		name         string
		gate         traffic.Gate
		cell, detail string
	}{
		{"only a critical prompt", traffic.Gate{State: "open", Matched: 0, Sent: 1, Critical: 1, Bytes: 1887},
			"open 0/0 +1 crit", "gate open; 1 critical prompt (priority 10) always sent; 0 matched the tags, 0 of them sent; briefing 1.9k"},
		{"critical and matched", traffic.Gate{State: "gated", Matched: 9, Sent: 6, Critical: 2, Bytes: 7100},
			"gated 4/9 +2 crit", "gate gated; 2 critical prompts (priority 10) always sent; 9 matched the tags, 4 of them sent; briefing 7.1k"},
		{"matched only", traffic.Gate{State: "open", Matched: 9, Sent: 4, Bytes: 7100},
			"open 4/9", "gate open; 9 matched the tags, 4 of them sent; briefing 7.1k"},
		// A server that did not record critical ones counted them in sent only.
		{"an older server's", traffic.Gate{State: "open", Matched: 0, Sent: 1, Bytes: 1887},
			"open 0/0 +1 crit", "gate open; 1 critical prompt (priority 10) always sent; 0 matched the tags, 0 of them sent"},
	} {
		g := tc.gate
		e := traffic.Event{TS: clock, Session: "a1b2c3d4", Project: "web", Kind: traffic.KindResponse, Method: "tools/call", ID: "2",
			Name: "begin_session", DurationMs: 1, Status: traffic.StatusOK, Gate: &g}
		m := newModel(t, f.cfg)
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
		m.Update(trafficMsg{events: []traffic.Event{e}})
		m.Update(keyMsg("3"))
		if v := m.View(); !strings.Contains(v, " "+tc.cell+" ") {
			t.Errorf("%s: the GATE/PIPE column does not show %q:\n%s", tc.name, tc.cell, v)
		}
		openEvent(t, m)
		if v := strings.Join(strings.Fields(m.View()), " "); !strings.Contains(v, tc.detail) {
			t.Errorf("%s: the detail does not say %q:\n%s", tc.name, tc.detail, m.View())
		}
	}
}

// An open event's detail is wrapped again for a new terminal width: wrapped for the old one, its
// lines were cut at the new edge.
func TestTrafficDetailFollowsTheWidth(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(trafficMsg{events: trafficEvents()})
	m.Update(keyMsg("3"))
	for range 5 { // resources/read, the event with the longest payload line
		m.Update(keyMsg("j"))
	}
	openEvent(t, m)
	if v := m.View(); !strings.Contains(v, "payload:") {
		t.Fatalf("no event detail open:\n%s", v)
	}
	for _, w := range []int{60, 200} {
		layOut(m, resize(m, w, 40))
		v := m.View()
		checkSize(t, v, w, 40)
		// The screen's lines, without the tabs above and the keys below, which are cut at 60.
		if body := strings.Split(v, "\n"); strings.Contains(strings.Join(body[1:len(body)-1], "\n"), "…") {
			t.Errorf("at %d columns the detail's lines are cut, not wrapped:\n%s", w, v)
		}
		if got := strings.Join(strings.Fields(v), ""); !strings.Contains(got, `##Checklist\n\n-names\n-tests\n"`) {
			t.Errorf("at %d columns the payload's end is not shown:\n%s", w, v)
		}
	}
}

// Laying an event out (decoding, indenting and wrapping its payload: a fifth of a second for
// 5 MB) is a command's work, never the UI goroutine's: enter and a resize return at once, the
// screen saying so, or showing the last layout until the new width's arrives. A burst of
// resizes costs the layout on its way and one for the last width; a layout for an event closed
// since is dropped.
func TestTrafficDetailLaidOutOffTheUIGoroutine(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(trafficMsg{events: trafficEvents()})
	m.Update(keyMsg("3"))
	for range 5 { // resources/read, the event with the longest payload line
		m.Update(keyMsg("j"))
	}
	ts := m.screens[2].(*trafficScreen)
	_, open := m.Update(keyMsg("enter"))
	if v := m.View(); open == nil || !strings.Contains(v, "Laying out the event (186B of payload)…") {
		t.Fatalf("enter laid the event out itself (command %v):\n%s", open != nil, v)
	}
	layOut(m, open)
	wide := ts.vp.TotalLineCount()

	var layouts []detailMsg
	for _, w := range []int{60, 70, 40} {
		for _, msg := range runBatch(resize(m, w, 40)) {
			if d, ok := msg.(detailMsg); ok {
				layouts = append(layouts, d)
			}
		}
		if got := ts.vp.TotalLineCount(); got != wide {
			t.Errorf("the resize to %d columns laid the event out itself: %d lines, %d at 160 columns", w, got, wide)
		}
	}
	if len(layouts) != 1 || layouts[0].width != 60 {
		t.Fatalf("three resizes asked for %d layouts; want one, for the first width (60), while it is on its way", len(layouts))
	}
	_, next := m.Update(layouts[0]) // for 60 columns, where the screen has 40 now: the next is asked
	var last []detailMsg
	for _, msg := range runBatch(next) {
		if d, ok := msg.(detailMsg); ok {
			last = append(last, d)
		}
	}
	if len(last) != 1 || last[0].width != 40 {
		t.Fatalf("the layout for 60 columns arrived at 40: %d asked next, want one for 40", len(last))
	}
	m.Update(last[0])
	v := m.View()
	checkSize(t, v, 40, 40)
	if got := ts.vp.TotalLineCount(); got <= wide || strings.Contains(strings.Join(strings.Split(v, "\n")[2:39], "\n"), "…") {
		t.Errorf("at 40 columns the detail is %d lines (%d at 160), or cut, not wrapped:\n%s", got, wide, v)
	}

	m.Update(keyMsg("esc"))
	_, first := m.Update(keyMsg("enter"))
	m.Update(keyMsg("esc"))
	m.Update(keyMsg("k")) // get_prompt, answered NOT_FOUND
	openEvent(t, m)
	before := m.View()
	m.Update(first())
	if after := m.View(); after != before || !strings.Contains(after, "NOT_FOUND") {
		t.Errorf("the layout of an event closed since replaced the open one's:\n%s\nwas:\n%s", after, before)
	}
}
