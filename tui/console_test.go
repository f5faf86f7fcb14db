package tui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
)

// console runs the console in a test program of 80×24 until the test ends.
func console(tb testing.TB, cfg Config) *teatest.TestModel {
	tb.Helper()
	m := New(context.Background(), cfg)
	tb.Cleanup(m.Close) // runs after the program has quit (cleanups run last-in first-out)
	tm := teatest.NewTestModel(tb, m, teatest.WithInitialTermSize(80, 24))
	tb.Cleanup(func() { tm.Quit() })
	return tm
}

// waitText waits until the program has drawn every one of texts since the last wait.
func waitText(tb testing.TB, tm *teatest.TestModel, texts ...string) {
	tb.Helper()
	var seen []byte
	teatest.WaitFor(tb, tm.Output(), func(b []byte) bool {
		seen = b
		for _, t := range texts {
			if !bytes.Contains(b, []byte(t)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	_ = seen
}

// press sends keys by name: enter, esc, tab, up, down; anything else is typed.
func press(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
		case "tab":
			tm.Send(tea.KeyMsg{Type: tea.KeyTab})
		case "down":
			tm.Send(tea.KeyMsg{Type: tea.KeyDown})
		case "up":
			tm.Send(tea.KeyMsg{Type: tea.KeyUp})
		default:
			tm.Type(k)
		}
	}
}

// finalView quits the program and returns the screen as it last stood.
func finalView(tb testing.TB, tm *teatest.TestModel) string {
	tb.Helper()
	tm.Quit()
	return tm.FinalModel(tb, teatest.WithFinalTimeout(10*time.Second)).View()
}

// previewStart is how the rendered preview of a prompt begins: the renderer indents paragraphs by
// two, which the raw text shown while rendering does not.
func previewStart(tb testing.TB, db *dbread.DB, query string) string {
	tb.Helper()
	var content string
	if query == "" {
		ps, _, err := db.ListPrompts(context.Background(), dbread.ListOptions{Limit: 1})
		if err != nil || len(ps) == 0 {
			tb.Fatalf("no prompt to preview: %v", err)
		}
		content = ps[0].Content
	} else {
		ps, _, err := db.Search(context.Background(), query, 1, 0)
		if err != nil || len(ps) == 0 {
			tb.Fatalf("no prompt found for %q: %v", query, err)
		}
		content = ps[0].Content
	}
	words := strings.Fields(content)
	return "│  " + strings.Join(words[:3], " ")
}

// Each screen at 80×24 with a fixed clock, against golden files (go test -update rewrites them).
func TestScreensGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, f *fixture)
		drive func(t *testing.T, f *fixture, tm *teatest.TestModel)
	}{
		{"library", nil, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			waitText(t, tm, "All prompts (30)", previewStart(t, f.db, ""))
		}},
		{"library_search", nil, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			waitText(t, tm, "All prompts (30)")
			press(tm, "/", "sql", "enter")
			waitText(t, tm, `search "sql"`, previewStart(t, f.db, "sql"))
		}},
		{"library_broken", func(t *testing.T, f *fixture) {
			f.cfg.DB, f.cfg.LibraryErr = nil, errors.New("dbread: open /home/me/lib/prompts.db: file is not a database")
		}, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			waitText(t, tm, "could not be opened")
		}},
		{"queue", func(t *testing.T, f *fixture) { f.withQueue(t) }, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "2")
			waitText(t, tm, "failed 1")
			press(tm, "j")
			waitText(t, tm, failedID+": NOT_FOUND")
		}},
		{"queue_empty", nil, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "2")
			waitText(t, tm, "The queue is empty")
		}},
		{"traffic", func(t *testing.T, f *fixture) { f.withTraffic(t, trafficEvents()) }, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "3")
			waitText(t, tm, "10 of 10 events", "search_prompts")
		}},
		{"traffic_detail", func(t *testing.T, f *fixture) { f.withTraffic(t, trafficEvents()) }, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "3")
			waitText(t, tm, "10 of 10 events")
			press(tm, "f", "method:resources/read", "enter")
			waitText(t, tm, "1 of 10 events")
			press(tm, "enter")
			waitText(t, tm, "(esc closes)", "payload:")
		}},
		{"traffic_empty", nil, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "3")
			waitText(t, tm, "No traffic yet")
		}},
		{"gate", func(t *testing.T, f *fixture) {
			f.withProject(t, "web", "byteBudget: 2000\nindexCap: 10\n")
		}, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "4")
			waitText(t, tm, "web")
			press(tm, "j", "t", "sql review", "enter")
			waitText(t, tm, "budget ")
		}},
		{"gate_repo", func(t *testing.T, f *fixture) {
			// The repository's project, which the console starts on, is read through Load.
			f.withProject(t, "web", "byteBudget: 2000\nindexCap: 10\n")
			f.cfg.Repo = &RepoProject{Name: "shop-front", Load: func() (gate.Project, string, error) {
				p, err := gate.ParseProject("/src/shop-front/.mcpctl/project.yaml", []byte("byteBudget: 3000\nindexCap: 10\n"))
				return p, "", err
			}}
		}, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "4")
			waitText(t, tm, "shop-front (repo)", "web")
			press(tm, "t", "sql review", "enter")
			waitText(t, tm, "budget ")
		}},
		{"pipeline_none", nil, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "5")
			waitText(t, tm, "No pipeline configured")
		}},
		{"pipeline", func(t *testing.T, f *fixture) {
			f.cfg.Pipeline = splitter{}
			f.withTraffic(t, trafficEvents())
		}, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			press(tm, "3")
			waitText(t, tm, "10 of 10 events") // the traced event has arrived
			press(tm, "5", "e")
			waitText(t, tm, "cache miss")
		}},
		{"help", nil, func(t *testing.T, f *fixture, tm *teatest.TestModel) {
			waitText(t, tm, "All prompts (30)")
			press(tm, "?")
			waitText(t, tm, "Everywhere")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 30)
			if tc.setup != nil {
				tc.setup(t, f)
			}
			tm := console(t, f.cfg)
			tc.drive(t, f, tm)
			view := finalView(t, tm)
			checkSize(t, view, 80, 24)
			golden.RequireEqual(t, []byte(f.normalize(view)))
		})
	}
}

// normalize replaces the fixture's temporary directories with fixed names and drops trailing
// blanks, so golden files do not depend on where the test ran.
func (f *fixture) normalize(view string) string {
	view = strings.NewReplacer(f.lib.Dir, "/home/me/lib", f.cfg.TrafficDir, "/home/me/.local/state/mcpctl/traffic",
		f.cfg.ProjectsDir, "/home/me/.config/mcpctl/projects").Replace(view)
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// checkSize fails unless view is exactly h lines of at most w columns.
func checkSize(tb testing.TB, view string, w, h int) {
	tb.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		tb.Errorf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := len([]rune(l)); got > 2*w { // a quick bound; the exact width is checked below
			tb.Errorf("line %d is %d runes", i, got)
		}
		if got := displayWidth(l); got > w {
			tb.Errorf("line %d is %d columns wide, want at most %d: %q", i, got, w, l)
		}
	}
}
