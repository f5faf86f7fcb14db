package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/mcpctl/mcpctl/dbread"
)

// Config is what the console shows. cmd builds it from flags and the environment; tests build
// it around temp directories.
type Config struct {
	DB         *dbread.DB // the library, opened read-only; nil when it could not be opened
	LibraryErr error      // why DB is nil, said on the Library and Gate screens
	LibraryDir string     // where the library is, for messages
	LibraryDB  string     // its database file; "" for LibraryDir's prompts.db
	// OpenLibrary opens the library when DB is nil: the console calls it every libraryRetry
	// until it succeeds, so a library created after the console started (as the Library
	// screen advises) is followed without a restart. The console closes what it returns. nil:
	// no retry.
	OpenLibrary func(context.Context) (*dbread.DB, error)

	QueueDir    string // the library's import queue
	TrafficDir  string // traffic.Dir($XDG_STATE_HOME)
	ProjectsDir string // $XDG_CONFIG_HOME/mcpctl/projects
	Project     string // the project the Gate screen starts on ("" = none, or Repo's)
	// Repo is the repository's own project, listed on the Gate screen after "none", and the one it
	// starts on when Project is ""; nil when there is none.
	Repo *RepoProject

	// Brief builds the Gate screen's briefings as serve would (mcpserver.Briefer); nil: the
	// gate's index, without tables of contents, and "(the library tools)" and read_prompts.
	Brief Brief

	// Pipeline transforms content for the Pipeline screen; nil shows "no pipeline configured".
	Pipeline Transformer
	// ProxyModel is the proxymodel the Pipeline screen starts on and names as Project's (or
	// Repo's): the one serve applies to that project's content, so the screen first shows what
	// its sessions get. "" starts on the first of Pipeline's models.
	ProxyModel string

	Now     func() time.Time // the clock for ages; nil means time.Now
	NoColor bool             // NO_COLOR: no colors, markers instead
	// GOOS is the system, which decides who answers a Prompteka library's queue (the app runs
	// only on macOS); "" means runtime.GOOS.
	GOOS string
}

// screen is one of the console's screens. Screens are pointers updated in place; every
// message that is not a key reaches every screen, and each acts on its own types.
type screen interface {
	title() string
	init() tea.Cmd
	update(msg tea.Msg) tea.Cmd
	view() string
	resize(w, h int)
	// keys are the screen's own keys; the scrolling keys, which every screen takes, are added
	// to them by screenKeys.
	keys() []key.Binding
	// capturing is true while a text input has the keys: then only ctrl+c is global.
	capturing() bool
}

// Global keys.
var (
	keyQuit    = key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit"))
	keyHelp    = key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys"))
	keyNext    = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next screen"))
	keyPrev    = key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous screen"))
	keyScreens = key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "screens"))
	// keyInterrupt quits before any other key is looked at (Model.key), even while an input
	// has the keys.
	keyInterrupt = key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit, even while typing"))
)

// Keys the screens share.
var (
	keyLeft  = key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left pane"))
	keyRight = key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right pane"))
	keyEnter = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open"))
	keyBack  = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
)

// libraryRetry is how often a console without its library tries to open it again.
const libraryRetry = 2 * time.Second

// Messages of the library's late opening.
type (
	libraryRetryMsg  struct{}
	libraryOpenedMsg struct {
		db  *dbread.DB
		err error
	}
)

// Model is the console's root model: a header with the screens, the active screen, and a
// footer with its keys. Create it with New and Close it when the program ends.
type Model struct {
	cfg     Config // shared with the screens (env.cfg), so that a library opened late reaches them all
	ctx     context.Context
	opened  *dbread.DB // the library OpenLibrary opened, closed by Close
	src     *sources
	st      styles
	screens []screen
	active  int
	w, h    int
	full    bool // the full key help is shown
	helpTop int  // the help's first line shown, when the help is taller than the terminal
	help    help.Model
}

// New builds the console and starts its live sources (library changes, the queue directory,
// the traffic files), which run until ctx ends or Close is called.
func New(ctx context.Context, cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Model{cfg: cfg, ctx: ctx, st: newStyles(!cfg.NoColor), w: 80, h: 24, help: help.New()}
	m.src = startSources(ctx, cfg.DB, cfg.QueueDir, cfg.TrafficDir)
	m.screens = []screen{
		newLibraryScreen(m.env()),
		newQueueScreen(m.env()),
		newTrafficScreen(m.env()),
		newGateScreen(m.env()),
		newPipelineScreen(m.env()),
	}
	m.resize(m.w, m.h)
	return m
}

// env is what a screen gets of the console.
type env struct {
	cfg *Config // the Model's: DB changes when the library is opened late
	src *sources
	st  styles
}

func (m *Model) env() env { return env{cfg: &m.cfg, src: m.src, st: m.st} }

// Close stops the live sources and waits for them, and closes a library opened late.
func (m *Model) Close() {
	m.src.close()
	if m.opened != nil {
		m.opened.Close()
	}
}

// Run shows the console on the terminal until the user quits or ctx ends. NO_COLOR (cfg.NoColor)
// turns colors off for the whole program.
func Run(ctx context.Context, cfg Config, opts ...tea.ProgramOption) error {
	if cfg.NoColor {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	m := New(ctx, cfg)
	defer m.Close()
	opts = append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}, opts...)
	_, err := tea.NewProgram(m, opts...).Run()
	if err != nil && ctx.Err() != nil {
		return nil // interrupted: a normal way to leave
	}
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}

// Init starts every screen's first load and the live sources' first reads.
func (m *Model) Init() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.screens)+1)
	for _, s := range m.screens {
		cmds = append(cmds, s.init())
	}
	return tea.Batch(append(cmds, m.retryLibrary())...)
}

// retryLibrary schedules the next attempt to open the library, while there is none.
func (m *Model) retryLibrary() tea.Cmd {
	if m.cfg.DB != nil || m.cfg.OpenLibrary == nil {
		return nil
	}
	return tea.Tick(libraryRetry, func(time.Time) tea.Msg { return libraryRetryMsg{} })
}

// openLibrary tries OpenLibrary once.
func (m *Model) openLibrary() tea.Cmd {
	open, ctx := m.cfg.OpenLibrary, m.ctx
	if m.cfg.DB != nil || open == nil {
		return nil
	}
	return func() tea.Msg {
		db, err := open(ctx)
		return libraryOpenedMsg{db: db, err: err}
	}
}

// libraryOpened takes the outcome of an attempt: the library, which every screen sees through
// env.cfg and the Library and Gate screens start reading (libraryOpenedMsg reaches them), or
// the reason it still cannot be opened and the next attempt.
func (m *Model) libraryOpened(msg libraryOpenedMsg) tea.Cmd {
	if msg.err != nil || msg.db == nil {
		if msg.err != nil {
			m.cfg.LibraryErr = msg.err
		}
		return m.retryLibrary()
	}
	if m.cfg.DB != nil { // opened meanwhile: keep the first
		msg.db.Close()
		return nil
	}
	m.cfg.DB, m.cfg.LibraryErr, m.opened = msg.db, nil, msg.db
	m.src.followLibrary(msg.db)
	return nil
}

// Active is the index of the screen shown (0 Library … 4 Pipeline).
func (m *Model) Active() int { return m.active }

// Update routes a message: keys to the global bindings or the active screen, anything else
// to every screen.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height) // and on to the screens: the Library renders its preview again
	case tea.KeyMsg:
		return m, m.key(msg)
	case libraryRetryMsg:
		return m, m.openLibrary()
	case libraryOpenedMsg:
		if c := m.libraryOpened(msg); c != nil || m.cfg.DB != msg.db {
			return m, c // not opened (yet), or another one was first
		}
	}
	cmds := make([]tea.Cmd, 0, len(m.screens))
	for _, s := range m.screens {
		if c := s.update(msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	// Keys typed faster than the program reads them arrive as one message of several runes;
	// take them one at a time, so "4" followed by "t" is a screen switch and then a key there.
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.screens[m.active].capturing() {
		var cmds []tea.Cmd
		for i, r := range msg.Runes {
			if m.screens[m.active].capturing() { // the rest is typed into the input
				rest := msg
				rest.Runes = msg.Runes[i:]
				return tea.Batch(append(cmds, m.screens[m.active].update(rest))...)
			}
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	cur := m.screens[m.active]
	if key.Matches(msg, keyInterrupt) {
		return tea.Quit
	}
	if cur.capturing() {
		return cur.update(msg)
	}
	if m.full { // any key closes the help, but those that scroll one taller than the terminal
		if m.scrollHelp(msg) {
			return nil
		}
		m.full, m.helpTop = false, 0
		if key.Matches(msg, keyHelp) || key.Matches(msg, keyBack) {
			return nil
		}
	}
	switch {
	case key.Matches(msg, keyQuit):
		return tea.Quit
	case key.Matches(msg, keyHelp):
		m.full = true
		return nil
	case key.Matches(msg, keyNext):
		return m.show((m.active + 1) % len(m.screens))
	case key.Matches(msg, keyPrev):
		return m.show((m.active + len(m.screens) - 1) % len(m.screens))
	case key.Matches(msg, keyScreens):
		return m.show(int(msg.String()[0] - '1'))
	}
	return cur.update(msg)
}

// shower is a screen that reads something again each time it is shown: what it shows has no
// change notification to follow.
type shower interface{ shown() tea.Cmd }

// show makes screen i the active one.
func (m *Model) show(i int) tea.Cmd {
	m.active = i
	if s, ok := m.screens[i].(shower); ok {
		return s.shown()
	}
	return nil
}

func (m *Model) resize(w, h int) {
	m.w, m.h = max(w, 20), max(h, 6)
	for _, s := range m.screens {
		s.resize(m.w, m.h-2)
	}
}

// View is the header, the active screen (or the key help) and the footer, exactly the
// terminal's size.
func (m *Model) View() string {
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteByte('\n')
	if m.full {
		b.WriteString(fit(m.helpView(), m.w, m.h-2))
	} else {
		b.WriteString(fit(m.screens[m.active].view(), m.w, m.h-2))
	}
	b.WriteByte('\n')
	b.WriteString(m.footer())
	return guardTerminal(b.String())
}

// footer is the active screen's keys, as many as fit, then "? keys" and "q quit", which always
// show: ? is how to find the rest. The paging keys every screen shares are left to ?.
func (m *Model) footer() string {
	h := m.help
	h.Width = 0
	tail := h.ShortHelpView([]key.Binding{keyHelp, keyQuit})
	own := slices.Concat(m.screens[m.active].keys(), scrollKeys.lines())
	sep := h.ShortSeparator
	room := m.w - displayWidth(tail) - displayWidth(sep)
	h.Width = max(0, room)
	// ShortHelpView overruns its width by the key after which an ellipsis would not fit (at 60
	// columns, and 35, 48 …), which pushed "q quit" off the line: fewer keys until they fit.
	for n := len(own); n > 0 && room > 0; n-- {
		head := h.ShortHelpView(own[:n])
		if n < len(own) && !strings.HasSuffix(head, h.Ellipsis) {
			head += " " + h.Ellipsis
		}
		if displayWidth(head) <= room {
			tail = head + sep + tail
			break
		}
	}
	return padRight(tail, m.w)
}

func (m *Model) header() string {
	parts := []string{m.st.title.Render("mcpctl")}
	for i, s := range m.screens {
		label := fmt.Sprintf("%d %s", i+1, s.title())
		if i == m.active {
			parts = append(parts, m.st.tabActive.Render("["+label+"]"))
		} else {
			parts = append(parts, m.st.tab.Render(" "+label+" "))
		}
	}
	return padRight(strings.Join(parts, " "), m.w)
}

// screenKeys are a screen's keys as its help lists them: its own, then the scrolling keys.
func screenKeys(s screen) []key.Binding {
	return slices.Concat(s.keys(), scrollKeys.lines(), scrollKeys.paging())
}

// globalKeys are the keys of every screen, as the help lists them.
var globalKeys = []key.Binding{keyScreens, keyNext, keyPrev, keyHelp, keyQuit, keyInterrupt}

// helpCloses is how the help's heading says it is closed: by any key, or, when it is taller than
// the terminal, by any key but those that scroll it.
const (
	helpCloses       = "(any key closes this)"
	helpScrollCloses = "(↑/↓ scroll, other keys close)"
)

// helpLines is the key help, a line each: the screen's keys, then the global ones, side by side
// on a terminal too short for one above the other and wide enough for both.
func (m *Model) helpLines() []string {
	cur := m.screens[m.active]
	list := func(keys []key.Binding) string {
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "  %-12s %s\n", k.Help().Key, k.Help().Desc)
		}
		return b.String()
	}
	h := m.h - 2
	layout := func(closes string) []string {
		own := fmt.Sprintf("Keys on the %s screen %s\n\n", cur.title(), closes) + list(screenKeys(cur))
		all := "Everywhere\n\n" + list(globalKeys)
		ownN, allN := strings.Count(own, "\n"), strings.Count(all, "\n")
		text := own + "\n" + all
		if n := ownN + 1 + allN; n > h && m.w >= 80 {
			// The two lists side by side, so that they fit where they can.
			lw := m.w / 2
			text = sideBySide(own, lw, all, m.w-lw-1, max(ownN, allN))
		}
		return strings.Split(strings.TrimRight(text, "\n"), "\n")
	}
	if lines := layout(helpCloses); len(lines) <= h {
		return lines
	}
	return layout(helpScrollCloses)
}

// helpView is the key help as it fits the terminal: from helpTop, with a last line saying where
// the rest is, when it is taller than the terminal (a small one, 60×20, cut off its last lines,
// "q quit" among them).
func (m *Model) helpView() string {
	lines, h := m.helpLines(), m.h-2
	if len(lines) <= h {
		return strings.Join(lines, "\n")
	}
	rows := max(1, h-1) // the last line says where the rest is
	top := max(0, min(m.helpTop, len(lines)-rows))
	shown := append(lines[top:top+rows:top+rows], m.st.dim.Render(fmt.Sprintf("── lines %d-%d of %d %s", top+1, top+rows, len(lines), helpScrollCloses)))
	return strings.Join(shown, "\n")
}

// scrollHelp moves a help taller than the terminal by a scrolling key, and says whether msg
// was one.
func (m *Model) scrollHelp(msg tea.KeyMsg) bool {
	lines, h := len(m.helpLines()), m.h-2
	if lines <= h {
		return false
	}
	rows := max(1, h-1)
	top, ok := scrollKeys.scroll(msg, m.helpTop, rows, lines-rows)
	if ok {
		m.helpTop = top
	}
	return ok
}
