package tui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/mcpctl/mcpctl/dbread"
)

// An attacker's text, as a prompt, a queue file or a client's request can hold it.
const (
	evilTitle   = "Escape \x1b[31mRed"
	evilContent = "before \x1b[2J\x1b[H CLEARED\n\x1b]0;pwned\x07 and \x1b]52;c;aGk=\x07"
)

func TestDisplay(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{evilTitle, "Escape ^[[31mRed"},
		{"a\tb\n\tc\nabcdefgh\ti", "a       b\n        c\nabcdefgh        i"},
		{"日本\tx", "日本    x"}, // a wide character's two columns count toward the stop
		{"👨‍💻 dev", "👨💻 dev"},
		{"⚙️ gear", "⚙ gear"},
		{"👍🏽", "👍"},
	} {
		if got := display(tc.in); got != tc.want {
			t.Errorf("display(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The layout measures with the Unicode rules (grapheme clusters); tmux and most terminals
// measure code point by code point. After display the two agree, so no row is drawn wider
// than it was padded to.
func TestDisplayWidthsAsTerminalsDraw(t *testing.T) {
	for _, s := range []string{"👨‍💻 Pair", "⚙️ Config", "👩🏽‍🔬 lab", "🏳️‍🌈 flag", "📝 Notes", "日本語チーム", "Données"} {
		d := display(s)
		perRune := 0
		for _, r := range d {
			perRune += uniseg.StringWidth(string(r))
		}
		if got := ansi.StringWidth(d); got != perRune {
			t.Errorf("%q shown as %q: measured %d columns, a terminal draws %d", s, d, got, perRune)
		}
	}
}

func TestGuardTerminal(t *testing.T) {
	in := "\x1b[31mred\x1b[0m \x1b]0;x\x07 \x1b[2J\x1b[H tab\tnl\n\u009b"
	want := "\x1b[31mred\x1b[0m ^[]0;x^G ^[[2J^[[H tab\tnl\n\ufffd"
	if got := guardTerminal(in); got != want {
		t.Errorf("guardTerminal = %q, want %q", got, want)
	}
}

// noControls fails when a view holds an escape or another control character: the tests run
// without color (TestMain), so the screens themselves write none.
func noControls(tb testing.TB, name, view string) {
	tb.Helper()
	for _, c := range view {
		if c < 0x20 && c != '\n' || c == 0x7f {
			tb.Errorf("%s screen writes control character %q:\n%s", name, c, view)
			return
		}
	}
}

// Text from the library, the queue and traffic files is shown, never obeyed.
func TestScreensNeutraliseControlSequences(t *testing.T) {
	f := newFixture(t, 3)
	id := f.lib.Data.Prompts[0].ID
	f.lib.Exec(t, `UPDATE prompts SET title = ?, body = ?, icon = ?, updated_at = updated_at + 1000000000 WHERE id = ?`, evilTitle, evilContent, "\x1b[2J", id)
	f.withQueue(t)
	writeFile(t, filepath.Join(f.cfg.QueueDir, "failed", failedID+".error"), "BAD: "+evilContent, time.Time{})
	evs := trafficEvents()
	evs[5].Name, evs[5].Session = evilTitle, "\x1b]52;c;aGk=\x07"
	f.withTraffic(t, evs)

	m := newModel(t, f.cfg)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	loadLibrary(t, m)
	ls := m.screens[0].(*libraryScreen)
	for i, p := range ls.prompts {
		if p.ID == id {
			ls.pl.cursor = i
		}
	}
	m.Update(ls.selectPrompt()())
	if v := ls.view(); !strings.Contains(v, "Escape ^[[31mRed") || !strings.Contains(v, "CLEARED") {
		t.Errorf("library: the prompt is not shown in caret notation:\n%s", v)
	}
	noControls(t, "library", ls.view())
	ls.focus = 1 // the raw text, shown until the rendering arrives
	ls.rendered = map[string]string{}
	ls.setPreview()
	noControls(t, "library (raw preview)", ls.view())

	qs := m.screens[1].(*queueScreen)
	m.Update(qs.scan()())
	for range 2 {
		m.Update(keyMsg("down")) // to the failed operation, whose reason is shown in full
	}
	noControls(t, "queue", qs.view())

	ts := m.screens[2].(*trafficScreen)
	for len(ts.events) < len(evs) {
		m.Update(m.src.waitTraffic()()) // blocks until the follower has read more
	}
	noControls(t, "traffic", ts.view())
	m.Update(keyMsg("3")) // enter goes to the screen shown
	for i := range ts.shown {
		ts.l.cursor = i
		openEvent(t, m)
		noControls(t, "traffic event", ts.view())
		m.Update(keyMsg("esc"))
	}
}

// A file with tabs (any Go source) or a binary: every line the Pipeline screen lays out is as
// wide as the terminal draws it, and no control byte reaches the terminal.
func TestPipelineTabsAndBinary(t *testing.T) {
	f := newFixture(t, 1)
	f.cfg.Pipeline = splitter{}
	dir := t.TempDir()
	gosrc := filepath.Join(dir, "main.go")
	writeFile(t, gosrc, "# main\n\nfunc main() {\n\tif x {\n\t\t\treturn \"a very long line behind three tabs that reaches the pane's edge\"\n\t}\n}\n", time.Time{})
	bin := filepath.Join(dir, "a.out")
	writeFile(t, bin, "\x7fELF\x02\x01\x01\x00\x00\x1b[2J\x1b]0;pwned\x07\r\x08\xff\xfe", time.Time{})
	s := newPipelineScreen(env{cfg: &f.cfg, st: newStyles(false)})
	s.resize(60, 22)
	for _, path := range []string{gosrc, bin} {
		s.source = "file:" + path
		settle(s, s.run())
		v := s.view()
		if strings.Contains(v, "\t") {
			t.Errorf("%s: a tab is drawn raw:\n%s", path, v)
		}
		noControls(t, "pipeline", v)
		for i, l := range strings.Split(fit(v, 60, 22), "\n") { // as the Model lays it out
			if w := termWidth(l); w > 60 {
				t.Errorf("%s: line %d is drawn in %d columns, the screen has 60: %q", path, i, w, l)
			}
		}
	}
}

// A console started before its library exists follows it once created: it tries again (on
// a timer; here the message is sent) and the Library screen reads it.
func TestLibraryOpensLate(t *testing.T) {
	f := newFixture(t, 4)
	cfg := f.cfg
	cfg.DB, cfg.LibraryErr = nil, errors.New("no library database")
	var ready bool
	cfg.OpenLibrary = func(ctx context.Context) (*dbread.DB, error) {
		if !ready {
			return nil, errors.New("still no library database")
		}
		return dbread.Open(ctx, f.lib.DB, dbread.Options{})
	}
	m := newModel(t, cfg)
	if m.Init() == nil {
		t.Fatal("Init schedules no attempt to open the library")
	}
	ls := m.screens[0].(*libraryScreen)
	retry := func() {
		_, cmd := m.Update(libraryRetryMsg{})
		if cmd == nil {
			t.Fatal("a retry does not try to open the library")
		}
		_, next := m.Update(cmd())
		if !ready {
			if next == nil {
				t.Error("a failed attempt schedules no next one")
			}
			return
		}
		// Run what the screens asked for as the program would, each command on its own
		// goroutine (one waits for the library's next change until the model closes), until
		// the Library screen has listed the prompts.
		msgs, done := make(chan tea.Msg), make(chan struct{})
		defer close(done)
		var run func(tea.Cmd)
		run = func(c tea.Cmd) {
			if c == nil {
				return
			}
			go func() {
				msg := c()
				if b, ok := msg.(tea.BatchMsg); ok {
					for _, c := range b {
						run(c)
					}
					return
				}
				select {
				case msgs <- msg:
				case <-done:
				}
			}()
		}
		if next == nil {
			t.Fatal("the library opened, and no screen reads it")
		}
		run(next)
		deadline := time.After(20 * time.Second) // a bound on a hang, not a timing
		for len(ls.prompts) == 0 {
			select {
			case msg := <-msgs:
				_, c := m.Update(msg)
				run(c)
			case <-deadline:
				t.Fatalf("the Library screen listed nothing within 20 s of the library opening:\n%s", ls.view())
			}
		}
	}
	retry()
	if v := ls.view(); !strings.Contains(v, "still no library database") {
		t.Errorf("after a failed attempt, the Library screen does not say why:\n%s", v)
	}
	ready = true
	retry()
	if len(ls.prompts) != 4 {
		t.Errorf("after the library appeared, the Library screen lists %d prompts, want 4:\n%s", len(ls.prompts), ls.view())
	}
	if m.screens[3].(*gateScreen).cfg.DB == nil {
		t.Error("the Gate screen does not see the library")
	}
}

// A resize asks for the preview at the new width: the rendered markdown, not the raw text
// until the cursor moves.
func TestPreviewRendersAgainOnResize(t *testing.T) {
	f := newFixture(t, 5)
	m := newModel(t, f.cfg)
	loadLibrary(t, m)
	ls := m.screens[0].(*libraryScreen)
	_, cmd := m.Update(tea.WindowSizeMsg{Width: 110, Height: 30})
	if cmd == nil {
		t.Fatal("a resize asks for no rendering")
	}
	var rendered bool
	for _, msg := range runBatch(cmd) {
		if r, ok := msg.(renderedMsg); ok {
			rendered = true
			m.Update(r)
		}
	}
	if !rendered {
		t.Fatal("a resize asks for no rendering of the preview")
	}
	if _, ok := ls.rendered[ls.renderKey(ls.prompts[ls.pl.cursor].Prompt)]; !ok {
		t.Error("the preview is not rendered at the new width")
	}
}

// runBatch runs a command and the commands of a batch, returning their messages.
func runBatch(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runBatch(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// termWidth is how many columns a terminal advances for l: code point by code point, a tab to
// the next stop.
func termWidth(l string) int {
	col := 0
	for _, r := range ansi.Strip(l) {
		if r == '\t' {
			col += tabStop - col%tabStop
			continue
		}
		col += uniseg.StringWidth(string(r))
	}
	return col
}
