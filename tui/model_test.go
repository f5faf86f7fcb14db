package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

func newModel(tb testing.TB, cfg Config) *Model {
	tb.Helper()
	m := New(context.Background(), cfg)
	tb.Cleanup(m.Close)
	return m
}

// keyMsg turns a key name into a message: enter, esc, tab, shift+tab, up, down, or runes.
func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func TestKeys(t *testing.T) {
	f := newFixture(t, 10)
	for _, tc := range []struct {
		name      string
		keys      []string
		active    int
		capturing bool
		help      bool
		quit      bool
	}{
		{name: "starts on the library", active: 0},
		{name: "number keys", keys: []string{"3"}, active: 2},
		{name: "last number", keys: []string{"5"}, active: 4},
		{name: "tab wraps forward", keys: []string{"5", "tab"}, active: 0},
		{name: "shift+tab wraps back", keys: []string{"shift+tab"}, active: 4},
		{name: "q quits", keys: []string{"q"}, quit: true},
		{name: "? shows the keys", keys: []string{"?"}, help: true},
		{name: "a key closes the help", keys: []string{"?", "x"}},
		{name: "help then a screen key switches", keys: []string{"?", "2"}, active: 1},
		{name: "typing into search does not switch", keys: []string{"/", "3", "q"}, capturing: true},
		{name: "esc leaves the search", keys: []string{"/", "3", "esc", "4"}, active: 3},
		{name: "keys typed together are taken one by one", keys: []string{"4t"}, active: 3, capturing: true},
		{name: "and the rest goes into the input", keys: []string{"4tsql"}, active: 3, capturing: true},
		{name: "traffic filter captures", keys: []string{"3", "f", "1"}, active: 2, capturing: true},
		{name: "discard asks first", keys: []string{"2", "d"}, active: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, f.cfg)
			var quit bool
			for _, k := range tc.keys {
				_, cmd := m.Update(keyMsg(k))
				if cmd != nil {
					if _, ok := cmd().(tea.QuitMsg); ok {
						quit = true
					}
				}
			}
			if m.Active() != tc.active {
				t.Errorf("active screen %d, want %d", m.Active(), tc.active)
			}
			if got := m.screens[m.active].capturing(); got != tc.capturing {
				t.Errorf("capturing %v, want %v", got, tc.capturing)
			}
			if m.full != tc.help {
				t.Errorf("help shown %v, want %v", m.full, tc.help)
			}
			if quit != tc.quit {
				t.Errorf("quit %v, want %v", quit, tc.quit)
			}
		})
	}
	t.Run("typed tags reach the gate", func(t *testing.T) {
		m := newModel(t, f.cfg)
		m.Update(keyMsg("4tsql"))
		if got := m.screens[3].(*gateScreen).tags.Value(); got != "sql" {
			t.Errorf("tags %q, want %q", got, "sql")
		}
	})
}

// loadLibrary runs the Library screen's reads synchronously.
func loadLibrary(tb testing.TB, m *Model) {
	tb.Helper()
	ls := m.screens[0].(*libraryScreen)
	m.Update(ls.loadFolders()())
	m.Update(ls.loadPrompts()())
	if c := ls.selectPrompt(); c != nil {
		m.Update(c())
	}
}

func TestLibraryMovesAndFolders(t *testing.T) {
	f := newFixture(t, 30)
	m := newModel(t, f.cfg)
	loadLibrary(t, m)
	ls := m.screens[0].(*libraryScreen)
	if len(ls.prompts) != 30 {
		t.Fatalf("All prompts lists %d, want 30", len(ls.prompts))
	}
	m.Update(keyMsg("l")) // to the prompt list
	m.Update(keyMsg("j"))
	if ls.pl.cursor != 1 {
		t.Errorf("prompt cursor %d after j, want 1", ls.pl.cursor)
	}
	m.Update(keyMsg("h")) // back to the folders
	_, cmd := m.Update(keyMsg("j"))
	if cmd == nil || ls.source() != "root:" {
		t.Fatalf("after j on the folders the list shows %q (cmd %v), want the top level being read", ls.source(), cmd != nil)
	}
	m.Update(cmd())
	if want := ls.folders[1].count; len(ls.prompts) != want {
		t.Errorf("top level lists %d prompts, want its count %d", len(ls.prompts), want)
	}
}

func TestResize(t *testing.T) {
	f := newFixture(t, 30)
	f.withQueue(t)
	m := newModel(t, f.cfg)
	loadLibrary(t, m)
	for _, size := range [][2]int{{120, 40}, {80, 24}, {30, 8}, {200, 12}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for i := range m.screens {
			m.active = i
			checkSize(t, m.View(), size[0], size[1])
		}
	}
}

// The Queue screen's r and d, on a real queue directory.
func TestQueueRetryAndDiscard(t *testing.T) {
	f := newFixture(t, 5)
	f.withQueue(t)
	q := f.cfg.QueueDir
	screen := func(t *testing.T) *queueScreen {
		s := newQueueScreen(env{cfg: &f.cfg, st: newStyles(false)})
		s.resize(80, 22)
		s.update(s.scan()())
		return s
	}
	// run presses keys, following each key's commands (the action, then the rescan) to the end.
	run := func(s *queueScreen, keys ...string) {
		for _, k := range keys {
			for cmd := s.update(keyMsg(k)); cmd != nil; {
				cmd = s.update(cmd())
			}
		}
	}
	// toFailed moves the cursor to the failed operation.
	toFailed := func(t *testing.T, s *queueScreen) {
		for i, op := range s.state.Ops {
			if op.ID == failedID {
				s.l.cursor = i
				return
			}
		}
		t.Fatalf("no failed operation listed: %+v", s.state.Ops)
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	failed := filepath.Join(q, "failed", failedID+".json")

	// The reason reads as the processor wrote it, without the time on its last line.
	for _, op := range screen(t).state.Ops {
		if op.ID == failedID && op.Reason != "NOT_FOUND: prompt 9F0C0C8E-0000-4000-8000-000000000001 does not exist" {
			t.Errorf("failed operation's reason %q, want the reason alone", op.Reason)
		}
	}

	t.Run("only failed ones", func(t *testing.T) {
		s := screen(t)
		run(s, "r") // the cursor is on the pending operation
		if !strings.Contains(s.view(), "only a failed operation") {
			t.Errorf("r on a pending operation: view lacks the explanation:\n%s", s.view())
		}
	})
	t.Run("discard asks; n keeps", func(t *testing.T) {
		s := screen(t)
		toFailed(t, s)
		run(s, "d")
		if !strings.Contains(s.view(), "Discard failed operation "+failedID) {
			t.Fatalf("d did not ask:\n%s", s.view())
		}
		run(s, "n")
		if !exists(failed) {
			t.Error("n discarded the operation")
		}
	})
	t.Run("retry queues it again under a new id", func(t *testing.T) {
		s := screen(t)
		before, _ := os.ReadFile(failed)
		toFailed(t, s)
		run(s, "r")
		if exists(failed) || exists(filepath.Join(q, "failed", failedID+".error")) {
			t.Error("the failed operation is still in failed/")
		}
		st, err := scanQueue(q)
		if err != nil {
			t.Fatal(err)
		}
		if st.Counts["pending"] != 2 || st.Counts["failed"] != 0 {
			t.Fatalf("counts %v, want 2 pending and no failed", st.Counts)
		}
		var orig, again promptlib.Operation
		json.Unmarshal(before, &orig)
		for _, op := range st.Ops {
			if op.State == "pending" && op.ID != pendingID {
				b, err := os.ReadFile(filepath.Join(q, op.ID+".json"))
				if err != nil {
					t.Fatal(err)
				}
				json.Unmarshal(b, &again)
			}
		}
		if again.ID == "" || again.ID == failedID || !promptlib.ValidID(again.ID) {
			t.Errorf("retried operation has id %q, want a fresh UUID", again.ID)
		}
		if again.Operation != orig.Operation || string(again.Data) != string(orig.Data) {
			t.Errorf("retried %s %s, want %s %s", again.Operation, again.Data, orig.Operation, orig.Data)
		}
		if !strings.Contains(s.view(), "retrying "+failedID+" as "+again.ID[:8]) || !strings.Contains(s.view(), "pending 2") {
			t.Errorf("view does not say what happened:\n%s", s.view())
		}
	})
	t.Run("discard asks; y deletes", func(t *testing.T) {
		f.withQueue(t)
		s := screen(t)
		toFailed(t, s)
		run(s, "d", "y")
		if exists(failed) || exists(filepath.Join(q, "failed", failedID+".error")) {
			t.Error("y kept the operation or its reason")
		}
	})
	t.Run("a broken file cannot be retried", func(t *testing.T) {
		writeFile(t, failed, "not json", clock.Add(-time.Minute))
		if _, err := retryOp(q, failedID); err == nil || !strings.Contains(err.Error(), "discard it") {
			t.Errorf("retry of a broken file: err %v, want advice to discard", err)
		}
		if !exists(failed) {
			t.Error("a refused retry removed the file")
		}
	})
}

func TestTrafficFilter(t *testing.T) {
	evs := trafficEvents()
	for _, tc := range []struct {
		filter string
		want   int
	}{
		{"", len(evs)},
		{"session:e5f6", 2},
		{"project:web", 8},
		{"method:tools/call", 6},
		{"status:error", 1},
		{"kind:notification", 1},
		{"search", 4},
		{"session:a1 begin", 1},
		{"method:nope", 0},
		// What the columns show: STAT's "req" and "not", NAME's tool name and a notification's
		// METHOD and NAME, and the headers' names for the keys.
		{"kind:not", 1},
		{"kind:res", 8},
		{"status:req", 1},
		{"stat:not", 1},
		{"method:search_prompts", 4},
		{"method:notifications", 1},
		{"method:tools/list_changed", 1},
		{"name:search", 4},
		{"sess:e5f6", 2},
		{"Method:tools/call", 6},
		{"prompt://review", 1}, // a colon in a word, not a key
	} {
		terms, err := parseFilter(tc.filter)
		if err != nil {
			t.Errorf("filter %q: %v", tc.filter, err)
			continue
		}
		n := 0
		for _, e := range evs {
			if matchEvent(e, terms) {
				n++
			}
		}
		if n != tc.want {
			t.Errorf("filter %q keeps %d events, want %d", tc.filter, n, tc.want)
		}
	}
	for _, bad := range []string{"sttus:eror", "web method:", "tool:get_prompt"} {
		if _, err := parseFilter(bad); err == nil {
			t.Errorf("filter %q parses, want an error naming the keys", bad)
		}
	}
}

// The Library screen follows the library: a prompt the app adds shows without a key press.
func TestLibraryFollowsTheApp(t *testing.T) {
	f := newFixture(t, 30)
	tm := console(t, f.cfg)
	waitText(t, tm, "All prompts (30)")
	now := time.Now().Unix()
	f.lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('ABCDEF01-0000-4000-8000-000000000001', 'Brand new prompt', 'Written by the app.', NULL, '✨', NULL, NULL, ?, ?)`, now, now)
	waitText(t, tm, "All prompts (31)", "Brand new prompt")
}

// The Traffic screen follows the traffic files: a server that starts later shows up.
func TestTrafficFollowsServers(t *testing.T) {
	f := newFixture(t, 5)
	tm := console(t, f.cfg)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "All prompts") })
	tm.Send(keyMsg("3"))
	waitText(t, tm, "No traffic yet")
	f.withTraffic(t, trafficEvents())
	waitText(t, tm, "10 of 10 events", "search_prompts")
}

// An opened event stays on screen while newer events arrive.
func TestTrafficDetailStays(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	m.Update(trafficMsg{events: trafficEvents()})
	m.Update(keyMsg("3"))
	m.Update(keyMsg("j")) // the second newest: search_prompts #111 (8ms)
	openEvent(t, m)
	before := m.View()
	if !strings.Contains(before, "id 1111 search_prompts") {
		t.Fatalf("the detail does not show the selected event:\n%s", before)
	}
	late := trafficEvents()[0]
	late.TS, late.Method, late.Kind = clock, "ping", "request"
	m.Update(trafficMsg{events: []traffic.Event{late}})
	if after := m.View(); after != before {
		t.Errorf("a new event changed the open detail:\n%s\nwas:\n%s", after, before)
	}
	m.Update(keyMsg("esc"))
	if v := m.View(); !strings.Contains(v, "11 of 11 events") {
		t.Errorf("esc did not go back to the list:\n%s", v)
	}
}

// The Pipeline screen on a file: the chosen model's output beside the original, and m
// switching models.
func TestPipelineFile(t *testing.T) {
	f := newFixture(t, 5)
	f.cfg.Pipeline = splitter{}
	path := filepath.Join(t.TempDir(), "notes.md")
	writeFile(t, path, "# Notes\n\nintro\n\n## One\n\nfirst\n\n## Two\n\nsecond\n", time.Time{})
	s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
	s.resize(80, 22)
	run := func(keys ...string) {
		for _, k := range keys {
			cmd := s.update(keyMsg(k))
			if cmd != nil && (k == "enter" || k == "m") { // the others' are the cursor's blink
				settle(s, cmd)
			}
		}
	}
	run("o", path, "enter")
	v := s.view()
	for _, want := range []string{"model subindex", "stages section-split", "s2", "One", "Two"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	run("m")
	if v := s.view(); !strings.Contains(v, "model default") || !strings.Contains(v, "no sections") {
		t.Errorf("after m, want the default model serving the file whole:\n%s", v)
	}
	// Scrolling stops at the last page, so the first key back up moves the text.
	var long strings.Builder
	for i := range 60 {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	writeFile(t, path, long.String(), time.Time{})
	run("o", path, "enter")
	for range 100 {
		run("j")
	}
	end := s.view()
	if !strings.Contains(end, "line 59") {
		t.Errorf("after scrolling past the end, the last line is not shown:\n%s", end)
	}
	if run("k"); s.view() == end {
		t.Errorf("k after scrolling past the end did not move the text:\n%s", end)
	}
	run("o", filepath.Join(t.TempDir(), "missing.md"), "enter")
	if v := s.view(); !strings.Contains(v, "cannot read") {
		t.Errorf("a missing file: view lacks the reason:\n%s", v)
	}
}

// The Pipeline screen starts on the proxymodel of the project the console runs for, and says
// whose it is; one that does not exist is said, and the built-in default shown, as serve does.
func TestPipelineStartsOnTheProjectModel(t *testing.T) {
	f := newFixture(t, 5)
	f.cfg.Pipeline = splitter{} // subindex first, then default
	repo := &RepoProject{Name: "shop-front"}
	for _, tc := range []struct {
		name, project string
		repo          *RepoProject
		model, want   string
	}{
		{"a project's model", "web", nil, "default", "model default of project web (m)"},
		{"a repository's", "", repo, "default", "model default of project shop-front (m)"},
		{"no project", "", nil, "default", "model default (m)"},
		{"one that does not exist", "web", nil, "nosuch", `The proxyModel "nosuch" set for project web does not exist`},
	} {
		cfg := f.cfg
		cfg.Project, cfg.Repo, cfg.ProxyModel = tc.project, tc.repo, tc.model
		s := newPipelineScreen(env{cfg: &cfg, st: newStyles(false)})
		s.resize(80, 22)
		if v := s.view(); !strings.Contains(strings.ReplaceAll(v, "\n", " "), tc.want) {
			t.Errorf("%s: the screen does not start with %q:\n%s", tc.name, tc.want, v)
		}
		if got := s.models[s.model]; got != "default" {
			t.Errorf("%s: the screen starts on model %s, want default, which serve applies", tc.name, got)
		}
	}
	// Another model is not the project's.
	cfg := f.cfg
	cfg.Project, cfg.ProxyModel = "web", "default"
	s := newPipelineScreen(env{cfg: &cfg, st: newStyles(false)})
	s.resize(80, 22)
	s.update(keyMsg("m"))
	if v := s.view(); !strings.Contains(v, "model subindex (m)") {
		t.Errorf("after m, want subindex, not named as the project's:\n%s", v)
	}
}

// A file that cannot be transformed is said in plain words, with what to do: no package
// prefix and no "stat PATH:" from the os error.
func TestPipelineFileErrors(t *testing.T) {
	f := newFixture(t, 5)
	f.cfg.Pipeline = splitter{}
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.md")
	for _, tc := range []struct{ path, want string }{
		{missing, "cannot read " + missing + ": no such file or directory. Check the path, or press o to open another file"},
		{dir, dir + " is not a regular file"},
	} {
		s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
		s.resize(400, 22) // wide enough that the message is one line
		for _, k := range []string{"o", tc.path, "enter"} {
			if cmd := s.update(keyMsg(k)); cmd != nil && k == "enter" {
				settle(s, cmd)
			}
		}
		v := s.view()
		if !strings.Contains(v, tc.want) || strings.Contains(v, "tui:") || strings.Contains(v, "stat ") {
			t.Errorf("open %s: want %q, without a package prefix or the os operation, in:\n%s", tc.path, tc.want, v)
		}
	}
}

// payloadText reads what serve records: the whole JSON-RPC message, the content under result.
func TestPayloadText(t *testing.T) {
	for _, tc := range []struct {
		payload, want string
		ok            bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA=="},{"type":"text","text":"b"}]}}`, "a\n\nb", true},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource","resource":{"uri":"file:///x","text":"embedded"}}]}}`, "embedded", true},
		{`{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"prompt://x","mimeType":"text/markdown","text":"# X"}]}}`, "# X", true},
		{`{"jsonrpc":"2.0","id":3,"result":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}`, "hi", true},
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":""}]}}`, "", true}, // empty, but content
		// Nothing a pipeline would see.
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_prompt","arguments":{"id":"x"}}}`, "", false},
		{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`, "", false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", false},
		{`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"bad"}}`, "", false},
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"image","data":"AA=="}]}}`, "", false},
		{`{"content":[{"type":"text","text":"a bare result is not what serve records"}]}`, "", false},
		{`not json`, "", false},
	} {
		got, ok := payloadText([]byte(tc.payload))
		if got != tc.want || ok != tc.ok {
			t.Errorf("payloadText(%s) = %q, %v; want %q, %v", tc.payload, got, ok, tc.want, tc.ok)
		}
	}
}

// e takes the text of a traced result, as serve's pipeline would, and passes over the events
// that hold none: requests, initialize, notifications, errors.
func TestPipelineEventTakesResultText(t *testing.T) {
	f := newFixture(t, 5)
	f.cfg.Pipeline = splitter{}
	at := func(s int) time.Time { return clock.Add(time.Duration(s) * time.Second) }
	ev := func(s int, kind, method, name, status, payload string) traffic.Event {
		return traffic.Event{TS: at(s), Session: "s1", Kind: kind, Method: method, Name: name, Status: status, Payload: json.RawMessage(payload)}
	}
	contentless := []traffic.Event{
		ev(0, traffic.KindRequest, "initialize", "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`),
		ev(1, traffic.KindResponse, "initialize", "", traffic.StatusOK, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`),
		ev(2, traffic.KindNotification, "notifications/initialized", "", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		ev(3, traffic.KindRequest, "tools/call", "get_prompt", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_prompt"}}`),
	}
	result := ev(4, traffic.KindResponse, "tools/call", "get_prompt", traffic.StatusOK,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"# Doc\n\n## One\n\nfirst"}]}}`)
	later := ev(5, traffic.KindRequest, "tools/list", "", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)

	screen := func(evs ...traffic.Event) *pipelineScreen {
		s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
		s.resize(100, 30)
		s.update(trafficMsg{events: evs})
		return s
	}
	press := func(s *pipelineScreen) {
		if cmd := s.update(keyMsg("e")); cmd != nil {
			s.update(cmd())
		}
	}

	s := screen(append(append(contentless, result), later)...)
	for i := range 3 { // the only event with content, each time
		press(s)
		if s.input != "# Doc\n\n## One\n\nfirst" || !strings.Contains(s.source, "tools/call get_prompt") {
			t.Fatalf("e #%d: source %q input %q, want the tool result's text", i+1, s.source, s.input)
		}
	}
	if v := s.view(); !strings.Contains(v, "20B → ") || strings.Contains(v, "jsonrpc") {
		t.Errorf("the view does not show the result's text transformed:\n%s", v)
	}

	// A result serve's pipeline transformed: the screen starts from what it transformed, with
	// the model it applied (a server's own or an override's, not the project's), where the
	// payload holds only the page the client got. A result a failing stage withheld (an error)
	// is taken too: transforming it shows why.
	transformed := ev(6, traffic.KindResponse, "tools/call", "db__big", traffic.StatusOK,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"page 1 of 9"}]}}`)
	transformed.Pipeline = &traffic.Pipeline{Model: "default", Input: "# Big\n\n## Rows\n\nall of them", Type: "toolResult", Source: "db/big"}
	withheld := ev(7, traffic.KindResponse, "tools/call", "db__secret", traffic.StatusError,
		`{"jsonrpc":"2.0","id":4,"result":{"isError":true,"content":[{"type":"text","text":"CONTENT_WITHHELD"}]}}`)
	withheld.Pipeline = &traffic.Pipeline{Model: "subindex", Input: "# Secret\n\n## Key\n\nsk-1"}
	s = screen(append(contentless, transformed, withheld)...)
	for _, want := range []struct{ input, model string }{{"# Secret\n\n## Key\n\nsk-1", "subindex"}, {"# Big\n\n## Rows\n\nall of them", "default"}} {
		press(s)
		if s.input != want.input || s.models[s.model] != want.model {
			t.Errorf("e on a transformed event: input %q with model %s, want %q with %s", s.input, s.models[s.model], want.input, want.model)
		}
		if want.model == "default" && s.evIn.Source != "db/big" {
			t.Errorf("e on a transformed event: source %q, want serve's, db/big", s.evIn.Source)
		}
	}

	s = screen(contentless...)
	press(s)
	if v := s.view(); !strings.Contains(v, "Nothing for e to take") || s.out != nil {
		t.Errorf("e with only contentless events: want a note that there is nothing to transform:\n%s", v)
	}
}

// e with no traced event to take says so, and how to record some, and keeps the file shown.
func TestPipelineEventKeepsTheFile(t *testing.T) {
	f := newFixture(t, 5)
	f.cfg.Pipeline = splitter{}
	path := filepath.Join(t.TempDir(), "notes.md")
	writeFile(t, path, "# Notes\n\nintro\n\n## One\n\nfirst\n", time.Time{})
	untraced := traffic.Event{TS: clock, Session: "s1", Kind: traffic.KindResponse, Method: "tools/call", Name: "get_prompt", Status: traffic.StatusOK}
	request := traffic.Event{TS: clock, Session: "s1", Kind: traffic.KindRequest, Method: "tools/list",
		Payload: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}
	for _, tc := range []struct {
		name   string
		events []traffic.Event
		want   []string
	}{
		{"nothing traced", []traffic.Event{untraced}, []string{"No traced events yet", "--trace-content"}},
		{"nothing with content", []traffic.Event{request}, []string{"Nothing for e to take", "1 traced events"}},
	} {
		s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
		s.resize(80, 22)
		s.update(trafficMsg{events: tc.events})
		for _, k := range []string{"o", path, "enter", "e"} {
			if cmd := s.update(keyMsg(k)); cmd != nil && k == "enter" {
				settle(s, cmd)
			}
		}
		v := s.view()
		if s.source != "file:"+path {
			t.Errorf("%s: after e, the source is %q, want the file still", tc.name, s.source)
		}
		for _, want := range append(tc.want, "- s2 One") {
			if !strings.Contains(strings.ReplaceAll(v, "\n", " "), want) {
				t.Errorf("%s: after e, the view lacks %q:\n%s", tc.name, want, v)
			}
		}
		if n := strings.Count(v, "\n") + 1; n > 22 {
			t.Errorf("%s: with the note, the view is %d lines, more than the screen's 22:\n%s", tc.name, n, v)
		}
		s.update(keyMsg("j"))
		if v := s.view(); strings.Contains(v, tc.want[0]) {
			t.Errorf("%s: the note stays after the next key:\n%s", tc.name, v)
		}
	}
}

// The Traffic table's columns use the width there is: sizes are never cut, and a notification's
// NAME is what follows notifications/, so notifications can be told apart.
func TestTrafficColumnsUseTheWidth(t *testing.T) {
	f := newFixture(t, 5)
	evs := []traffic.Event{
		{TS: clock, Session: "a1b2c3d4", Kind: traffic.KindResponse, Method: "tools/call", ID: "7", Name: "list_folders", DurationMs: 9,
			BytesIn: 105, BytesOut: 11_200, Status: traffic.StatusOK},
		{TS: clock.Add(time.Second), Session: "a1b2c3d4", Kind: traffic.KindNotification, Method: "notifications/prompts/list_changed", BytesOut: 60},
		{TS: clock.Add(2 * time.Second), Session: "a1b2c3d4", Kind: traffic.KindNotification, Method: "notifications/initialized", BytesIn: 55},
		{TS: clock.Add(3 * time.Second), Session: "a1b2c3d4", Kind: traffic.KindResponse, Method: "tools/call", ID: "8",
			Name: "review-threat-model-in-depth-for-payments", DurationMs: 12_345, BytesIn: 147, BytesOut: 85_300, Status: traffic.StatusOK,
			Pipeline: &traffic.Pipeline{Model: "subindex", BytesBefore: 85_300, BytesAfter: 1_300}},
	}
	for _, w := range []int{160, 120, 80} {
		m := newModel(t, f.cfg)
		m.Update(tea.WindowSizeMsg{Width: w, Height: 20})
		m.Update(trafficMsg{events: evs})
		m.Update(keyMsg("3"))
		v := m.View()
		checkSize(t, v, w, 20)
		want := []string{"105B/11.2k", "147B/85.3k", "12345", "notifications", "initialized", "0B/60B"}
		if w >= 120 {
			want = append(want, "prompts/list_changed", "review-threat-model-in-depth-for-payments", "85.3k→1.3k")
		}
		for _, s := range want {
			if !strings.Contains(v, s) {
				t.Errorf("at %d columns the Traffic screen lacks %q:\n%s", w, s, v)
			}
		}
	}
}

// The Gate screen's NAME column grows with the terminal, so names of one family can be told apart.
func TestGateNamesGrowWithTheWidth(t *testing.T) {
	f := newFixture(t, 30)
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	for _, k := range []string{"4", "t", "sql review"} {
		m.Update(keyMsg(k))
	}
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter ran no preview")
	}
	m.Update(cmd())
	gs := m.screens[3].(*gateScreen)
	if gs.view_ == nil || len(gs.view_.Rows) == 0 {
		t.Fatalf("no rows to show (err %v)", gs.err)
	}
	v := m.View()
	for _, r := range gs.view_.Rows {
		if !strings.Contains(v, " "+r.Name+" ") {
			t.Errorf("at 160 columns the name %q is not shown whole:\n%s", r.Name, v)
		}
	}
}

// The Queue screen says whether anything processes the queue, as 'mcpctl queue status' does,
// and shows a failure's reason whole.
func TestQueueProcessorAndReason(t *testing.T) {
	f := newFixture(t, 5)
	f.withQueue(t)
	q := f.cfg.QueueDir
	long := "FOLDER_NOT_EMPTY: folder Engineering / Web App holds 37 prompts and 1 subfolder; use recursive: true to delete " +
		"it with everything in it, or move them out first with move_prompt and delete_folder on the subfolder, then try again; the end"
	writeFile(t, filepath.Join(q, "failed", failedID+".error"), long+"\n2026-01-02T03:04:05Z\n", time.Time{})
	screen := func() *queueScreen {
		s := newQueueScreen(env{cfg: &f.cfg, st: newStyles(false)})
		s.resize(80, 22)
		s.update(s.scan()())
		return s
	}
	if v := screen().view(); !strings.Contains(v, "processor: the Prompteka app") {
		t.Errorf("a Prompteka library's queue on macOS: want the app named as its processor:\n%s", v)
	}
	// The app runs only on macOS: elsewhere nothing answers its library's queue unforced.
	f.cfg.GOOS = "linux"
	// The command to start names the library, wrapped rather than cut: without --library it
	// would start a processor for the default library.
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if v := screen().view(); !strings.Contains(squash(v), squash("processor: none: the app is macOS-only (start 'mcpctl queue process --force --library "+f.lib.Dir+"')")) {
		t.Errorf("a Prompteka library's queue on Linux: want none named, and what to start:\n%s", v)
	}

	writeFile(t, filepath.Join(f.lib.Dir, queue.MarkerName), "{}", time.Time{}) // a standalone library
	s := screen()
	if v := s.view(); !strings.Contains(squash(v), squash("processor: mcpctl, not running (start 'mcpctl serve --library "+f.lib.Dir+"'")) {
		t.Errorf("no processor runs: the view does not say so:\n%s", v)
	}
	lock, err := queue.TryLock(q) // what a running processor holds
	if err != nil {
		t.Fatal(err)
	}
	s.update(s.scan()())
	if v := s.view(); !strings.Contains(v, "processor: mcpctl, running") {
		t.Errorf("a processor holds the lock: the view does not say it runs:\n%s", v)
	}
	lock.Release()

	for i, op := range s.state.Ops {
		if op.ID == failedID {
			s.l.cursor = i
		}
	}
	s.update(keyMsg("x")) // any key lays the screen out for the new selection, as a move would
	v := s.view()
	checkSize(t, fit(v, 80, 22), 80, 22)
	if got := strings.Join(strings.Fields(v), " "); !strings.Contains(got, failedID+": "+long) {
		t.Errorf("the failure's reason is not shown whole:\n%s", v)
	}
	if strings.Count(v, "\n") >= 22 {
		t.Errorf("the view is %d lines, more than the screen's 22:\n%s", strings.Count(v, "\n")+1, v)
	}
}

// The Gate screen reads the projects again each time it is shown, keeping the selection, and
// lists a file that is not a valid project with the reason, as 'mcpctl get projects' does.
func TestGateProjectsReadOnEachVisit(t *testing.T) {
	f := newFixture(t, 10)
	f.withProject(t, "web", "byteBudget: 2000\n")
	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	gs := m.screens[3].(*gateScreen)
	visit := func(n string) {
		_, cmd := m.Update(keyMsg(n))
		if cmd != nil {
			m.Update(cmd())
		}
	}
	m.Update(gs.init()())
	visit("4")
	m.Update(keyMsg("j")) // web
	if gs.project() != "web" {
		t.Fatalf("selected %q, want web (%q)", gs.project(), gs.projects)
	}

	f.withProject(t, "late", "byteBudget: 3000\n")
	f.withProject(t, "broken", "byteBudget: [\n")
	f.withProject(t, "My Web", "byteBudget: 3000\n")
	visit("1")
	visit("4")
	v := m.View()
	for _, want := range []string{"late", "✗ broken (invalid)", "✗ My Web.yaml (invalid)"} {
		if !strings.Contains(v, want) {
			t.Errorf("after a visit the project list lacks %q:\n%s", want, v)
		}
	}
	if gs.project() != "web" {
		t.Errorf("the visit moved the selection to %q, want it kept on web", gs.project())
	}
	for i, n := range gs.projects {
		if n == "My Web.yaml" {
			gs.pl.cursor = i
		}
	}
	if v := m.View(); !strings.Contains(strings.Join(strings.Fields(v), " "), "is not a project name") {
		t.Errorf("the invalid file selected: its reason is not shown:\n%s", v)
	}
}

// Without color the Library screen still shows which pane has the keys.
func TestFocusShowsWithoutColor(t *testing.T) {
	f := newFixture(t, 10)
	m := newModel(t, f.cfg) // the tests run as NO_COLOR does (TestMain): no style shows
	loadLibrary(t, m)
	views := map[string]int{}
	for pane := range 3 {
		if other, seen := views[m.View()]; seen {
			t.Errorf("focus on pane %d looks the same as on pane %d:\n%s", pane, other, m.View())
		}
		views[m.View()] = pane
		m.Update(keyMsg("l"))
	}
}

// Every key that does something on a screen is in that screen's ? help: a key pressed on each
// screen (in a state where moving and scrolling have somewhere to go) that changes what the
// screen shows must be one of its keys or a global one.
func TestHelpListsWorkingKeys(t *testing.T) {
	f := newFixture(t, 30)
	f.withQueue(t)
	f.withProject(t, "web", "byteBudget: 2000\n")
	f.withProject(t, "api", "byteBudget: 2000\n")
	f.cfg.Pipeline = splitter{}
	var long strings.Builder
	for i := range 80 {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	doc := filepath.Join(t.TempDir(), "long.md")
	writeFile(t, doc, long.String(), time.Time{})

	special := map[string]tea.KeyType{"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd, "ctrl+u": tea.KeyCtrlU,
		"ctrl+d": tea.KeyCtrlD, "enter": tea.KeyEnter, "esc": tea.KeyEsc, " ": tea.KeySpace}
	press := func(k string) tea.KeyMsg {
		if t, ok := special[k]; ok {
			return tea.KeyMsg{Type: t}
		}
		return keyMsg(k)
	}
	universe := []string{"up", "down", "left", "right", "pgup", "pgdown", "home", "end", "ctrl+u", "ctrl+d", "enter", "esc", " ",
		"k", "j", "h", "l", "g", "G", "/", "f", "b", "t", "m", "o", "e", "r", "d", "u", "n", "y", "x"}

	// ready is the console on screen n, with its data in and, on the Pipeline, a long file shown.
	// The caller closes it: this test makes 170 consoles, and each one's live sources hold file
	// watchers, a per-user limit that the tests running beside this one share.
	ready := func(n int) *Model {
		m := New(context.Background(), f.cfg)
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
		loadLibrary(t, m)
		m.Update(m.screens[1].(*queueScreen).scan()())
		m.Update(trafficMsg{events: trafficEvents()})
		m.Update(m.screens[3].(*gateScreen).init()())
		m.Update(keyMsg(fmt.Sprint(n + 1)))
		if n == 4 {
			for _, k := range []string{"o", doc} {
				m.Update(keyMsg(k))
			}
			_, cmd := m.Update(press("enter"))
			drain(m, cmd)
			m.Update(press("down")) // somewhere to go up from
		}
		return m
	}
	for n := range 5 {
		m := ready(n)
		bound := append(append([]key.Binding(nil), globalKeys...), screenKeys(m.screens[n])...)
		title := m.screens[n].title()
		m.Close()
		for _, k := range universe {
			m := ready(n)
			before := m.View()
			m.Update(press(k))
			changed := m.View() != before
			m.Close()
			if !changed {
				continue
			}
			listed := false
			for _, b := range bound {
				listed = listed || key.Matches(press(k), b)
			}
			if !listed {
				t.Errorf("on the %s screen %q does something, but its help does not list it", title, k)
			}
		}
	}
	m := ready(0)
	defer m.Close()
	m.Update(keyMsg("?"))
	if v := m.View(); !strings.Contains(v, "ctrl+c") {
		t.Errorf("the help does not say ctrl+c quits:\n%s", v)
	}
}

// A burst of changes costs the Library screen one reload in flight and one after it, however
// many changes arrive meanwhile, and the last change is shown.
func TestLibraryReloadsCoalesce(t *testing.T) {
	f := newFixture(t, 30)
	m := newModel(t, f.cfg)
	loadLibrary(t, m)
	m.src.unsubscribe()
	m.src.library = nil                   // the test sends the changes itself
	m.screens[0].(*libraryScreen).gap = 0 // the pause between reloads is time, which a test does not wait for
	reloads := 0
	// exec runs a command's work, as the program does off its goroutine, and returns what it says.
	var exec func(tea.Cmd) []tea.Msg
	exec = func(c tea.Cmd) []tea.Msg {
		if c == nil {
			return nil
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range b {
				out = append(out, exec(c)...)
			}
			return out
		}
		if _, ok := msg.(foldersMsg); ok {
			reloads++
		}
		return []tea.Msg{msg}
	}

	_, first := m.Update(libraryChangedMsg{})
	read := exec(first) // the first reload reads the library as it stands
	f.lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('ABCDEF01-0000-4000-8000-000000000002', 'Written during the reload', 'x', NULL, NULL, NULL, NULL, ?, ?)`, clock.Unix(), clock.Unix())
	var pending []tea.Cmd
	for range 99 { // the burst's other changes arrive before the first reload's answer
		_, c := m.Update(libraryChangedMsg{})
		pending = append(pending, c)
	}
	for _, msg := range read {
		_, c := m.Update(msg)
		pending = append(pending, c)
	}
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		for _, msg := range exec(c) {
			_, c := m.Update(msg)
			pending = append(pending, c)
		}
	}
	if reloads != 2 {
		t.Errorf("100 changes cost %d reloads, want 2: the one in flight and one for the changes during it", reloads)
	}
	if v := m.View(); !strings.Contains(v, "All prompts (31)") || !strings.Contains(v, "Written during the reload") {
		t.Errorf("the last change is not shown:\n%s", v)
	}
}

// The Gate screen's preview reads the whole library after a change: a burst costs the preview
// in flight and one more.
func TestGatePreviewsCoalesce(t *testing.T) {
	f := newFixture(t, 30)
	m := newModel(t, f.cfg)
	for _, k := range []string{"4", "t", "sql review"} {
		m.Update(keyMsg(k))
	}
	_, first := m.Update(keyMsg("enter"))
	previews := 1
	var pending []tea.Cmd
	gs := m.screens[3]
	for range 50 {
		if c := gs.update(libraryChangedMsg{}); c != nil {
			pending = append(pending, c)
		}
	}
	previews += len(pending)
	_, again := m.Update(first())
	for again != nil {
		previews++
		_, again = m.Update(again())
	}
	if previews != 2 {
		t.Errorf("50 changes during a preview cost %d previews, want 2", previews)
	}
}

// A burst of queue changes costs one scan in flight and one after it, and the last change shows.
func TestQueueScansCoalesce(t *testing.T) {
	f := newFixture(t, 5)
	f.withQueue(t)
	done, cancel := context.WithCancel(context.Background())
	cancel() // the wait for the next change returns at once: the test sends the changes itself
	s := newQueueScreen(env{cfg: &f.cfg, src: &sources{ctx: done, queue: make(chan struct{}, 1)}, st: newStyles(false)})
	s.gap = 0 // the pause between scans is time, which a test does not wait for
	s.resize(80, 22)
	scans := 0
	var exec func(tea.Cmd) []tea.Msg
	exec = func(c tea.Cmd) []tea.Msg {
		if c == nil {
			return nil
		}
		switch msg := c().(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			var out []tea.Msg
			for _, c := range msg {
				out = append(out, exec(c)...)
			}
			return out
		case queueMsg:
			scans++
			return []tea.Msg{msg}
		default:
			return []tea.Msg{msg}
		}
	}
	first := exec(s.update(queueChangedMsg{}))
	late := "44444444-4444-4444-8444-444444444444"
	writeFile(t, filepath.Join(f.cfg.QueueDir, late+".json"), opJSON(t, late, promptlib.OpCreatePrompt, `{"title":"Late","content":"x"}`), clock)
	var pending []tea.Cmd
	for range 50 {
		pending = append(pending, s.update(queueChangedMsg{}))
	}
	for _, msg := range first {
		pending = append(pending, s.update(msg))
	}
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		for _, msg := range exec(c) {
			pending = append(pending, s.update(msg))
		}
	}
	if scans != 2 {
		t.Errorf("51 changes cost %d scans, want 2", scans)
	}
	if v := s.view(); !strings.Contains(v, "pending 2") {
		t.Errorf("the last change is not shown:\n%s", v)
	}
}

// A rescan takes the kinds it decoded before from opKinds, and reads a file again once it
// changed; a file no longer there leaves the cache.
func TestScanQueueRemembersKinds(t *testing.T) {
	q := t.TempDir()
	write := func(id, op string) string {
		t.Helper()
		path := filepath.Join(q, id+".json")
		if err := os.WriteFile(path, []byte(`{"id":"`+id+`","operation":"`+op+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("a", "create_prompt")
	write("b", "delete_prompt")
	kinds := &opKinds{}
	kindOf := func() map[string]string {
		t.Helper()
		st, err := scanQueueWith(q, kinds)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, op := range st.Ops {
			out[op.ID] = op.Kind
		}
		return out
	}
	if got := kindOf(); got["a"] != "create_prompt" || got["b"] != "delete_prompt" || len(kinds.m) != 2 {
		t.Fatalf("first scan: %v, %d remembered", got, len(kinds.m))
	}
	// Remembered: a rescan does not read the file again (a kind only the cache holds shows).
	kinds.m[a] = opKind{size: kinds.m[a].size, at: kinds.m[a].at, kind: "remembered"}
	if got := kindOf(); got["a"] != "remembered" {
		t.Errorf("rescan: a is %q, want the remembered kind", got["a"])
	}
	// Rewritten (a new time): read again. Removed: forgotten.
	write("a", "update_folder")
	if err := os.Remove(filepath.Join(q, "b.json")); err != nil {
		t.Fatal(err)
	}
	if got := kindOf(); got["a"] != "update_folder" || len(kinds.m) != 1 {
		t.Errorf("after a change: %v, %d remembered; want a read again and b forgotten", got, len(kinds.m))
	}
}

// scanQueue reads the queue directory. It only reads: operation files are opened without
// following links and without blocking on a FIFO, and only their kind is decoded.
func scanQueue(dir string) (queueState, error) { return scanQueueWith(dir, nil) }
