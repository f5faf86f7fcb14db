package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

var (
	keyTags     = key.NewBinding(key.WithKeys("t", "/"), key.WithHelp("t", "type tags"))
	keyBriefing = key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "briefing text"))
)

type (
	projectsMsg struct {
		names    []string
		invalid  map[string]error
		noFolder map[string]error
		err      error
	}
	gateMsg struct {
		project string
		tags    string
		version uint64
		lib     *promptlib.Library
		view    gateView
		err     error
	}
)

// gateScreen is screen 4: pick a project, type tags, and see what begin_session would return.
type gateScreen struct {
	env
	w, h     int
	projects []string
	invalid  map[string]error // the entries that are not valid projects, and why
	noFolder map[string]error // the projects whose folder the library does not have, and the fix
	listed   bool             // the projects have been read once: later reads keep the selection
	listErr  error            // why the projects directory cannot be read
	pl       listView
	tags     textinput.Model
	view_    *gateView
	err      error
	rows     listView
	text     bool // the briefing text is shown
	onRows   bool // ↑/↓ move through the prompts, not the projects
	vp       viewport.Model
	lib      *promptlib.Library // the snapshot the last preview used
	version  uint64
	// A preview reads the whole library after a change (half a second at 10,000 prompts): during
	// a burst of changes, one runs at a time and the changes meanwhile make one more.
	inflight int  // previews asked for and not answered
	stale    bool // the library changed while one was in flight
}

func newGateScreen(e env) *gateScreen {
	ti := textinput.New()
	ti.Prompt = "tags: "
	ti.Placeholder = "e.g. sql migrations testing"
	return &gateScreen{env: e, tags: ti, vp: viewport.New(40, 10)}
}

func (s *gateScreen) title() string   { return "Gate" }
func (s *gateScreen) capturing() bool { return s.tags.Focused() }
func (s *gateScreen) keys() []key.Binding {
	return []key.Binding{keyLeft, keyRight, keyTags, keyBriefing}
}

func (s *gateScreen) init() tea.Cmd { return s.listProjects() }

// shown reads the projects again each time the screen is shown: files added, removed or broken
// since are listed as they are now.
func (s *gateScreen) shown() tea.Cmd { return s.listProjects() }

func (s *gateScreen) listProjects() tea.Cmd {
	dir, repo, db := s.cfg.ProjectsDir, s.cfg.Repo, s.cfg.DB
	return func() tea.Msg {
		// The folders, so that a project whose folder is missing is marked in the list before it
		// is picked: reading them is cheap, unlike the whole library a preview reads.
		var folders []promptlib.Folder
		if db != nil {
			if fs, ferr := db.Folders(context.Background()); ferr == nil {
				folders = make([]promptlib.Folder, len(fs))
				for i, f := range fs {
					folders[i] = f.Folder
				}
			}
		}
		names, invalid, noFolder, err := gateProjects(dir, repo, folders)
		return projectsMsg{names: names, invalid: invalid, noFolder: noFolder, err: err}
	}
}

func (s *gateScreen) resize(w, h int) {
	s.w, s.h = w, h
	s.pl.setHeight(max(1, h-2))
	s.rows.setHeight(max(1, h-5))
	s.vp.Width, s.vp.Height = s.rightWidth(), max(1, h-3)
	s.tags.Width = s.rightWidth() - 8
}

// leftWidth fits the longest project entry, in at most a quarter of the screen.
func (s *gateScreen) leftWidth() int {
	longest := 0
	for i := range s.projects {
		longest = max(longest, displayWidth(s.label(i)))
	}
	return min(max(20, longest+2), s.w/4)
}

// label is how the project list shows entry i.
func (s *gateScreen) label(i int) string {
	switch n := s.projects[i]; {
	case n == "":
		return "(none: all)"
	case n == repoEntry:
		return display(s.cfg.Repo.Name) + " (repo)"
	case s.invalid[n] != nil:
		return "✗ " + display(n) + " (invalid)" // a file's name
	case s.noFolder[n] != nil:
		return "✗ " + display(n) + " (no folder)"
	default:
		return display(n)
	}
}
func (s *gateScreen) rightWidth() int { return max(10, s.w-s.leftWidth()-1) }

func (s *gateScreen) project() string {
	if len(s.projects) == 0 {
		return ""
	}
	return s.projects[s.pl.cursor]
}

// preview runs begin_session for the selected project and the typed tags, reading the library
// again only when it changed since the last preview.
func (s *gateScreen) preview() tea.Cmd {
	cmd := s.previewCmd()
	if cmd != nil {
		s.inflight++
	}
	return cmd
}

func (s *gateScreen) previewCmd() tea.Cmd {
	db := s.cfg.DB
	if db == nil || len(strings.Fields(s.tags.Value())) == 0 {
		return nil
	}
	project, tags, dir, repo, brief := s.project(), s.tags.Value(), s.cfg.ProjectsDir, s.cfg.Repo, s.cfg.Brief
	lib, version := s.lib, s.version
	// Ends when the console does: a custom stage making a table of contents is stopped with it.
	ctx := s.src.ctx
	if err := s.invalid[project]; err != nil {
		return func() tea.Msg { return gateMsg{project: project, tags: tags, err: err} }
	}
	return func() tea.Msg {
		m := gateMsg{project: project, tags: tags}
		if v := db.Version(); lib == nil || v != version {
			l, err := db.Library(ctx)
			if err != nil {
				m.err = err
				return m
			}
			lib, version = &l, v
		}
		m.lib, m.version = lib, version
		m.view, m.err = previewGate(ctx, *lib, dir, project, repo, brief, strings.Fields(tags))
		// The briefing quotes the library's prompts: make it safe to lay out (display).
		m.view.Text = display(m.view.Text)
		for i := range m.view.Rows {
			r := &m.view.Rows[i]
			r.Name, r.Why = display(r.Name), display(r.Why)
		}
		return m
	}
}

func (s *gateScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case projectsMsg:
		before, wasInvalid := s.project(), s.invalid[s.project()]
		start := before
		if !s.listed {
			start = s.cfg.Project
			if start == "" && s.cfg.Repo != nil {
				start = repoEntry
			}
		}
		s.listed = true
		s.projects, s.invalid, s.noFolder, s.listErr = msg.names, msg.invalid, msg.noFolder, msg.err
		s.pl.setLen(len(s.projects))
		s.resize(s.w, s.h) // the list's width follows its longest entry
		for i, n := range s.projects {
			if n == start {
				s.pl.cursor = i
				s.pl.scroll()
			}
		}
		if s.project() != before || (s.invalid[s.project()] == nil) != (wasInvalid == nil) {
			return s.preview() // the selected project went away, or became valid or invalid
		}
		return nil
	case gateMsg:
		s.inflight = max(0, s.inflight-1)
		var again tea.Cmd
		if s.inflight == 0 && s.stale {
			s.stale = false
			again = s.preview()
		}
		if msg.project != s.project() || msg.tags != s.tags.Value() {
			return again // an answer to an earlier question
		}
		if msg.lib != nil {
			s.lib, s.version = msg.lib, msg.version
		}
		// The preview read the library as it is now: the folder may have been made since the
		// list was read, or removed.
		if errors.Is(msg.err, gate.ErrNoFolder) {
			s.noFolder[msg.project] = msg.err
		} else if msg.err == nil {
			delete(s.noFolder, msg.project)
		}
		s.err = msg.err
		s.view_ = nil
		if msg.err == nil {
			v := msg.view
			s.view_ = &v
			s.rows.setLen(len(v.Rows))
			s.rows.top()
			s.vp.SetContent(wrap(v.Text, s.rightWidth()))
		}
		return again
	case libraryChangedMsg, libraryOpenedMsg: // changed, or opened after the console started
		if s.inflight > 0 {
			s.stale = true
			return nil
		}
		return s.preview()
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

func (s *gateScreen) key(msg tea.KeyMsg) tea.Cmd {
	if s.tags.Focused() {
		switch msg.String() {
		case "enter", "esc":
			s.tags.Blur()
			return s.preview()
		}
		var cmd tea.Cmd
		s.tags, cmd = s.tags.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, keyTags):
		s.text = false
		return s.tags.Focus()
	case key.Matches(msg, keyBriefing):
		s.text = !s.text
		return nil
	case s.text:
		scrollText(&s.vp, msg)
		return nil
	case key.Matches(msg, keyLeft):
		s.onRows = false
		return nil
	case key.Matches(msg, keyRight):
		s.onRows = s.view_ != nil
		return nil
	case s.onRows:
		moveList(&s.rows, msg)
		return nil
	}
	before := s.pl.cursor
	moveList(&s.pl, msg)
	if s.pl.cursor != before {
		return s.preview()
	}
	return nil
}

func (s *gateScreen) view() string {
	lw, rw := s.leftWidth(), s.rightWidth()
	left := s.st.title.Render("Projects") + "\n" + s.pl.render(s.st, lw, !s.tags.Focused() && !s.onRows, s.label)
	var r strings.Builder
	r.WriteString(s.tags.View() + "\n")
	switch {
	case s.cfg.DB == nil:
		r.WriteString(wrap(libraryProblem(*s.cfg), rw))
	case s.invalid[s.project()] != nil:
		r.WriteString(wrap(display("This project file is not valid, so no session can use it: "+s.invalid[s.project()].Error()), rw))
	case s.noFolder[s.project()] != nil:
		r.WriteString(wrap(display("No session of this project can start: "+withHint(s.noFolder[s.project()])), rw))
	case s.err != nil || s.listErr != nil:
		err := s.err
		if err == nil {
			err = s.listErr
		}
		r.WriteString(wrap(display(withHint(err)), rw)) // it may quote a project file
		if len(s.projects) <= 1 {
			r.WriteString("\n\nProjects are YAML files in\n  " + s.cfg.ProjectsDir)
		}
	case s.view_ == nil:
		r.WriteString(wrap("Type the tags a session would start with (t, then enter) to see exactly what begin_session "+
			"returns for the selected project: the critical prompts, the matches within the byte budget, the ones over it, and the index.", rw))
		if len(s.projects) <= 1 {
			r.WriteString("\n\n" + wrap("No projects yet: without one the whole library is used. Projects are YAML files in", rw) + "\n  " + s.cfg.ProjectsDir)
		}
	case s.text:
		r.WriteString(s.st.title.Render("begin_session returns (b goes back)") + "\n" + s.vp.View())
	default:
		v := s.view_
		barW := max(5, rw-34)
		fmt.Fprintf(&r, "budget %s %s/%s\n", bar(v.Used, v.Budget, barW), size(v.Used), size(v.Budget))
		// Critical prompts are sent whatever the tags: said apart, as the Traffic screen counts them.
		if n := countGroup(v.Rows, "critical"); n > 0 {
			fmt.Fprintf(&r, "%d critical + %d matched sent", n, countGroup(v.Rows, "matched"))
		} else {
			fmt.Fprintf(&r, "%d sent", countGroup(v.Rows, "matched"))
		}
		fmt.Fprintf(&r, " · %d over budget · %d weak · index: %d more",
			countGroup(v.Rows, "over budget")+v.MoreListed, countGroup(v.Rows, "weak match"), v.Remaining)
		if v.Omitted > 0 {
			fmt.Fprintf(&r, ", %d beyond the cap", v.Omitted)
		}
		r.WriteString("\n")
		nameW := gateNameWidth(v.Rows, rw)
		r.WriteString(s.st.title.Render(cell(fmt.Sprintf("  %-11s %s %3s %4s %6s", "GROUP", cell("NAME", nameW), "PRI", "HITS", "BYTES"), rw)) + "\n")
		if len(v.Rows) == 0 {
			r.WriteString(wrap("No prompt matched these tags; begin_session sends the index only. Try other tags.", rw))
		} else {
			r.WriteString(s.rows.render(s.st, rw, s.onRows, func(i int) string {
				row := v.Rows[i]
				return fmt.Sprintf("%-11s %s %3d %4d %6s", row.Group, cell(row.Name, nameW), row.Priority, row.Hits, size(row.Bytes))
			}))
			if len(v.Rows) > 0 {
				r.WriteString("\n" + s.st.dim.Render(cell("why: "+v.Rows[s.rows.cursor].Why, rw)))
			}
		}
	}
	return sideBySide(left, lw, r.String(), rw, s.h)
}

// gateNameWidth is the NAME column's width: the longest name, as far as the pane allows once the
// marker and the other columns (GROUP 11, PRI 3, HITS 4, BYTES 6 and the spaces) have theirs.
// Names of one family share long prefixes (review-threat-model-in-…), so they are told apart
// only by what a fixed width would cut.
func gateNameWidth(rows []gateRow, rw int) int {
	longest := len("NAME")
	for _, r := range rows {
		longest = max(longest, displayWidth(r.Name))
	}
	return max(len("NAME"), min(longest, rw-2-11-3-4-6-4))
}

func countGroup(rows []gateRow, g string) int {
	n := 0
	for _, r := range rows {
		if r.Group == g {
			n++
		}
	}
	return n
}
