package tui

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

const (
	// listLimit is the most prompts the list holds for one folder or search.
	listLimit = 500
	// previewLimit is how much of a prompt the preview renders: rendering a 100 KB prompt
	// takes long, and a terminal shows a few screens of it anyway.
	previewLimit = 16 << 10
)

var (
	keySearch = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search"))
)

// The library screen's messages.
type (
	foldersMsg struct {
		folders []dbread.FolderInfo
		total   int
		err     error
		// reload: the answer to a change (reload), with the prompt list read along; its arrival
		// ends the reload in flight.
		reload  bool
		prompts *promptsMsg
	}
	// reloadDueMsg: the pause after a reload is over, and a change came meanwhile.
	reloadDueMsg struct{}
	promptsMsg   struct {
		source  string // the folder entry or search it answers
		prompts []dbread.Listed
		total   int
		err     error
	}
	renderedMsg struct {
		key  string
		text string
	}
)

// folderEntry is a row of the folder pane: all prompts, the top level, or a folder.
type folderEntry struct {
	label string
	depth int
	count int
	id    string // "" for the synthetic rows
	root  bool   // the top level
}

// libraryScreen is screen 1: the folder tree, the selected folder's prompts and the selected
// prompt rendered as markdown. It follows the library through its change notifications.
type libraryScreen struct {
	env
	w, h int

	folders []folderEntry
	fl      listView
	prompts []dbread.Listed
	total   int
	pl      listView
	focus   int // 0 folders, 1 prompts, 2 preview
	err     error
	loaded  bool

	search textinput.Model
	query  string // the search in force; "" lists the folder

	preview  viewport.Model
	rendered map[string]string // rendered markdown by renderKey: prompt id, content and width

	// A burst of writes (a client creating 300 prompts) signals a change every few
	// milliseconds, and each read after one sees the next write and signals again: one reload
	// at a time, and changes during it make one more, reloadGap after it began.
	reloading bool          // a reload is in flight, or waits for its turn
	stale     bool          // a change came during it: reload once more when it ends
	started   time.Time     // when the last reload began
	gap       time.Duration // reloadGap; tests that run the commands themselves set 0
}

// reloadGap is the least time from one reload's start to the next's during a burst of changes:
// reading 500 prompts of a 10,000-prompt library while the search index catches up costs tens
// of milliseconds, and a screen that follows a burst 5 times a second loses nothing to the eye.
const reloadGap = 200 * time.Millisecond

func newLibraryScreen(e env) *libraryScreen {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "search the library"
	return &libraryScreen{env: e, search: ti, preview: viewport.New(40, 10), rendered: map[string]string{}, gap: reloadGap}
}

func (s *libraryScreen) title() string   { return "Library" }
func (s *libraryScreen) capturing() bool { return s.search.Focused() }

func (s *libraryScreen) keys() []key.Binding {
	return []key.Binding{keyLeft, keyRight, keyEnter, keySearch, keyBack}
}

func (s *libraryScreen) init() tea.Cmd {
	if s.cfg.DB == nil {
		return nil
	}
	return tea.Batch(s.loadFolders(), s.src.waitLibrary())
}

// loadFolders reads the folder tree and the prompt count.
func (s *libraryScreen) loadFolders() tea.Cmd {
	db := s.cfg.DB
	return func() tea.Msg {
		ctx := context.Background()
		fs, err := db.Folders(ctx)
		if err != nil {
			return foldersMsg{err: err}
		}
		n, _, err := db.Counts(ctx)
		for i := range fs {
			fs[i].Name, fs[i].Path = display(fs[i].Name), display(fs[i].Path)
		}
		return foldersMsg{folders: fs, total: n, err: err}
	}
}

// source names what the prompt list shows now.
func (s *libraryScreen) source() string {
	if s.query != "" {
		return "search:" + s.query
	}
	if len(s.folders) == 0 {
		return ""
	}
	f := s.folders[s.fl.cursor]
	switch {
	case f.root:
		return "root:"
	case f.id == "":
		return "all:"
	}
	return "folder:" + f.id
}

// displayPrompt makes what the screen shows of a prompt safe to lay out (display): a prompt is
// anyone's text, and a title or body may hold escape sequences.
func displayPrompt(p *dbread.Listed) {
	p.Title, p.Summary, p.Content = display(p.Title), display(p.Summary), displayMarkdown(p.Content)
	for _, f := range []**string{&p.Emoji, &p.Color} {
		if *f != nil {
			v := display(**f)
			*f = &v
		}
	}
}

// loadPrompts reads the prompts of the selected folder, or the search results.
func (s *libraryScreen) loadPrompts() tea.Cmd {
	db, src, q := s.cfg.DB, s.source(), s.query
	if db == nil || src == "" {
		return nil
	}
	opts := dbread.ListOptions{Limit: listLimit}
	switch {
	case strings.HasPrefix(src, "root:"):
		opts.Root = true
	case strings.HasPrefix(src, "folder:"):
		opts.FolderID = strings.TrimPrefix(src, "folder:")
	}
	return func() tea.Msg {
		ctx := context.Background()
		var ps []dbread.Listed
		var n int
		var err error
		if q != "" {
			ps, n, err = db.Search(ctx, q, listLimit, 0)
		} else {
			ps, n, err = db.ListPrompts(ctx, opts)
		}
		for i := range ps {
			displayPrompt(&ps[i])
		}
		return promptsMsg{source: src, prompts: ps, total: n, err: err}
	}
}

func (s *libraryScreen) resize(w, h int) {
	s.w, s.h = w, h
	s.fl.setHeight(h)
	s.pl.setHeight(s.listHeight())
	s.preview.Width = s.rightWidth()
	s.preview.Height = max(1, h-s.listHeight()-2)
	s.search.Width = s.rightWidth() - 4
	s.setPreview()
}

func (s *libraryScreen) leftWidth() int  { return min(28, s.w/3) }
func (s *libraryScreen) rightWidth() int { return max(10, s.w-s.leftWidth()-1) }
func (s *libraryScreen) listHeight() int { return max(3, (s.h-2)*2/5) }

func (s *libraryScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case libraryOpenedMsg:
		// The library was created (or became readable) after the console started.
		return s.init()
	case tea.WindowSizeMsg:
		// The preview's rendering is for one width (renderKey): render it for the new one, or
		// the raw text stays until the cursor moves. The first size arrives after the first
		// rendering was asked for at the default width, so this is every start too.
		return s.renderSelected()
	case libraryChangedMsg:
		// The app (or a write through the queue) changed the library: read it again, keeping
		// the selection, and wait for the next change.
		if s.reloading {
			s.stale = true // the reload in flight may have read before this change
			return s.src.waitLibrary()
		}
		return tea.Batch(s.reload(), s.src.waitLibrary())
	case reloadDueMsg:
		return s.reload()
	case foldersMsg:
		if msg.reload {
			return s.reloaded(msg)
		}
		s.loaded = true
		s.err = msg.err
		if msg.err != nil {
			return nil
		}
		prev := s.source()
		s.setFolders(msg.folders, msg.total)
		if s.source() != prev || s.prompts == nil {
			return s.loadPrompts()
		}
		return nil
	case promptsMsg:
		if msg.source != s.source() {
			return nil // an answer for a folder no longer selected
		}
		if msg.err != nil {
			s.err = msg.err
			return nil
		}
		s.err = nil
		var keep string
		if len(s.prompts) > 0 {
			keep = s.prompts[s.pl.cursor].ID
		}
		s.prompts, s.total = msg.prompts, msg.total
		s.pl.setLen(len(s.prompts))
		for i, p := range s.prompts {
			if p.ID == keep {
				s.pl.cursor = i
				s.pl.scroll()
			}
		}
		return s.selectPrompt()
	case renderedMsg:
		s.rendered[msg.key] = msg.text
		s.setPreview()
		return nil
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

// reload reads the folders and the prompt list again, in one command, whose answer says when
// it is over.
func (s *libraryScreen) reload() tea.Cmd {
	s.reloading, s.stale, s.started = true, false, time.Now()
	folders, prompts := s.loadFolders(), s.loadPrompts()
	return func() tea.Msg {
		m := folders().(foldersMsg)
		m.reload = true
		if prompts != nil {
			p := prompts().(promptsMsg)
			m.prompts = &p
		}
		return m
	}
}

// reloaded shows what a reload read and, when the library changed meanwhile, starts the next
// reload reloadGap after this one started.
func (s *libraryScreen) reloaded(msg foldersMsg) tea.Cmd {
	msg.reload = false
	cmds := []tea.Cmd{s.update(msg)}
	if msg.prompts != nil {
		cmds = append(cmds, s.update(*msg.prompts))
	}
	s.reloading = s.stale
	if s.stale {
		wait := s.gap - time.Since(s.started)
		cmds = append(cmds, tea.Tick(max(0, wait), func(time.Time) tea.Msg { return reloadDueMsg{} }))
	}
	return tea.Batch(cmds...)
}

// setFolders replaces the tree, keeping the selected folder.
func (s *libraryScreen) setFolders(fs []dbread.FolderInfo, total int) {
	var keep string
	if len(s.folders) > 0 {
		keep = s.source()
	}
	rootCount := total
	entries := []folderEntry{{label: "All prompts", count: total}, {label: "Top level", root: true}}
	for _, f := range fs {
		rootCount -= f.PromptCount
		entries = append(entries, folderEntry{label: f.Name, depth: strings.Count(f.Path, " / "), count: f.PromptCount, id: f.ID})
	}
	entries[1].count = max(0, rootCount)
	s.folders = entries
	s.fl.setLen(len(entries))
	for i := range entries {
		s.fl.cursor = i
		if s.source() == keep {
			break
		}
	}
	if s.source() != keep {
		s.fl.cursor = 0
	}
	s.fl.scroll()
}

func (s *libraryScreen) key(msg tea.KeyMsg) tea.Cmd {
	if s.search.Focused() {
		switch msg.String() {
		case "enter":
			s.search.Blur()
			s.query = strings.TrimSpace(s.search.Value())
			s.focus = 1
			s.pl.top()
			return s.loadPrompts()
		case "esc":
			s.search.Blur()
			return nil
		}
		var cmd tea.Cmd
		s.search, cmd = s.search.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, keySearch):
		s.search.SetValue(s.query)
		s.search.CursorEnd()
		return s.search.Focus()
	case key.Matches(msg, keyBack):
		if s.focus == 2 {
			s.focus = 1
			return nil
		}
		if s.query != "" {
			s.query = ""
			s.search.SetValue("")
			s.pl.top()
			return s.loadPrompts()
		}
		s.focus = 0
		return nil
	case key.Matches(msg, keyLeft):
		s.focus = max(0, s.focus-1)
		return nil
	case key.Matches(msg, keyRight):
		s.focus = min(2, s.focus+1)
		return nil
	case key.Matches(msg, keyEnter):
		if s.focus == 0 {
			s.focus = 1
		} else {
			s.focus = 2
		}
		return nil
	}
	switch s.focus {
	case 0:
		before := s.fl.cursor
		moveList(&s.fl, msg)
		if s.fl.cursor != before {
			s.query = ""
			s.pl.top()
			return s.loadPrompts()
		}
	case 1:
		before := s.pl.cursor
		moveList(&s.pl, msg)
		if s.pl.cursor != before {
			return s.selectPrompt()
		}
	case 2:
		scrollText(&s.preview, msg)
	}
	return nil
}

// renderSeed seeds the hash of a prompt's content in renderKey.
var renderSeed = maphash.MakeSeed()

// renderKey names a rendering: the prompt, its content and the width. The content itself, not
// updated_at: the library keeps that in whole seconds, so two edits within one second (a client
// correcting its own update_prompt) would share the first one's rendering.
func (s *libraryScreen) renderKey(p promptlib.Prompt) string {
	return fmt.Sprintf("%s@%d:%x/%d", p.ID, len(p.Content), maphash.String(renderSeed, p.Content), s.rightWidth())
}

// selectPrompt shows the selected prompt, rendering it in a command when it is not cached.
func (s *libraryScreen) selectPrompt() tea.Cmd {
	s.preview.GotoTop()
	return s.renderSelected()
}

// renderSelected shows the selected prompt where the preview stands, rendering it in a command
// when it is not cached at this width.
func (s *libraryScreen) renderSelected() tea.Cmd {
	s.setPreview()
	if len(s.prompts) == 0 {
		return nil
	}
	p := s.prompts[s.pl.cursor].Prompt
	k := s.renderKey(p)
	if _, ok := s.rendered[k]; ok {
		return nil
	}
	return renderPrompt(k, p, s.rightWidth(), s.st)
}

func (s *libraryScreen) setPreview() {
	if len(s.prompts) == 0 {
		s.preview.SetContent("")
		return
	}
	p := s.prompts[s.pl.cursor].Prompt
	text, ok := s.rendered[s.renderKey(p)]
	if !ok { // the raw text until the rendering arrives, bounded like the rendering
		body := p.Content
		if len(body) > previewLimit {
			body = body[:previewLimit]
		}
		text = wrap(expandTabs(body), s.rightWidth())
	}
	s.preview.SetContent(text)
}

var placeholderRE = regexp.MustCompile(`\{\{[^{}\n]{1,64}\}\}`)

// renderPrompt renders a prompt's markdown for the preview, its {{placeholders}} highlighted.
func renderPrompt(k string, p promptlib.Prompt, w int, st styles) tea.Cmd {
	return func() tea.Msg {
		body := p.Content
		more := ""
		if len(body) > previewLimit {
			cut := previewLimit
			for cut > 0 && !utf8Start(body[cut]) {
				cut--
			}
			more = fmt.Sprintf("\n\n… %s more; the preview shows the first %s", size(len(body)-cut), size(cut))
			body = body[:cut]
		}
		text := renderMarkdown(body, w, st)
		if st.color {
			text = placeholderRE.ReplaceAllStringFunc(text, func(m string) string { return st.placeholder.Render(m) })
		} else {
			// Without color (NO_COLOR) no style shows: the marks stand in for the highlight.
			text = placeholderRE.ReplaceAllStringFunc(text, func(m string) string { return "«" + m + "»" })
		}
		return renderedMsg{key: k, text: text + more}
	}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func (s *libraryScreen) view() string {
	if s.cfg.DB == nil {
		return wrap(libraryProblem(*s.cfg), s.w)
	}
	if !s.loaded {
		return "Reading the library…"
	}
	if s.err != nil && len(s.folders) == 0 {
		return wrap("The library cannot be read: "+libraryProblemText(s.err), s.w)
	}
	lw, rw := s.leftWidth(), s.rightWidth()
	left := s.fl.render(s.st, lw, s.focus == 0, func(i int) string {
		f := s.folders[i]
		return fmt.Sprintf("%s%s (%d)", strings.Repeat("  ", f.depth), f.label, f.count)
	})
	var r strings.Builder
	switch {
	case s.search.Focused():
		r.WriteString(s.search.View())
	case s.query != "":
		fmt.Fprintf(&r, "search %q: %d found (esc clears)", s.query, s.total)
	case s.err != nil: // a later read failed: say so above what was read before
		r.WriteString(s.st.bad.Render("cannot read the library now: " + s.err.Error()))
	default:
		f := s.folders[s.fl.cursor]
		fmt.Fprintf(&r, "%s: %d prompts", f.label, s.total)
		if s.total > len(s.prompts) {
			fmt.Fprintf(&r, " (newest %d shown)", len(s.prompts))
		}
	}
	r.WriteByte('\n')
	if len(s.prompts) == 0 {
		list := "No prompts here. Pick another folder (←, ↑/↓), or add prompts in the app or through an AI client."
		if s.query != "" {
			list = "Nothing matches. Try other words, or esc to go back to the folder."
		}
		r.WriteString(fit(wrap(list, rw), rw, s.listHeight()))
	} else {
		r.WriteString(fit(s.pl.render(s.st, rw, s.focus == 1, func(i int) string {
			p := s.prompts[i]
			emoji := "  "
			if p.Emoji != nil {
				// Two columns, as most emoji take: ⚙ takes one, and the titles align. 👨‍💻 came
				// as 👨💻 (plainEmoji), four: the column shows its first, 👨.
				emoji = padRight(ansi.Truncate(*p.Emoji, 2, ""), 2)
			}
			date := p.UpdatedAt.UTC().Format("2006-01-02")
			titleW := rw - 2 - 3 - 2 - 11
			return emoji + " " + cell(p.Title, titleW) + " " + s.st.colorMark(p.Color) + " " + date
		}), rw, s.listHeight()))
	}
	if s.focus == 2 { // the lists' markers say when they have the keys; this says when the preview has them
		r.WriteString("\n" + s.st.title.Render(padRight("▸ preview (↑/↓ scroll, esc back) "+strings.Repeat("─", rw), rw)) + "\n")
	} else {
		r.WriteString("\n" + s.st.dim.Render(strings.Repeat("─", rw)) + "\n")
	}
	r.WriteString(s.preview.View())
	return sideBySide(left, lw, r.String(), rw, s.h)
}

// ErrNoLibraryYet is why a console has no library (errors.Is: Config.LibraryErr wraps it) on a
// machine where none has been made: none was named (--library, --db, PROMPTEKA_DB_PATH) and the
// default library, which 'mcpctl serve' creates with starter prompts on its first start, does not
// exist yet. That is no error to the user: the screens say where the library will be and what
// makes it, once, instead of an error and advice that repeats it.
var ErrNoLibraryYet = errors.New("no library has been created yet")

// libraryProblem says why there is no library and what to do.
func libraryProblem(cfg Config) string {
	switch {
	case errors.Is(cfg.LibraryErr, ErrNoLibraryYet):
		dir := display(cfg.LibraryDir)
		return "No library yet.\n\nmcpctl keeps its prompts in a library at\n  " + dir + "\n\n" +
			"The first 'mcpctl serve' creates it there, with a few starter prompts: start your AI client (its MCP config " +
			"runs 'mcpctl serve'; 'mcpctl mcp-config' prints the entry), or create it now with\n  mcpctl library init " +
			display(promptlib.ShellWord(cfg.LibraryDir)) + "\n\nThis screen shows the library as soon as it exists. To look at another library, " +
			"start the console with --library DIR."
	case cfg.LibraryErr == nil:
		return "No library is open.\n\n" + libraryAdvice(nil)
	}
	return "The library could not be opened: " + libraryProblemText(cfg.LibraryErr)
}

// libraryProblemText is a library's error and what to do: the fix the error carries, which is
// the command line's hint for it (cmd gives the console its errors so), else the console's advice.
func libraryProblemText(err error) string {
	if userHint(err) != "" {
		return withHint(err)
	}
	return err.Error() + "\n\n" + libraryAdvice(err)
}

func libraryAdvice(err error) string {
	switch {
	case errors.Is(err, dbread.ErrSchema):
		return "The database is not a Prompteka library (or the app changed its schema). Point --library at a library directory holding prompts.db."
	case errors.Is(err, dbread.ErrLocked):
		return "The app holds a lock on the library; the console reads again when it changes."
	}
	return "Start the console with --library DIR (a directory holding prompts.db), or create a library with 'mcpctl library init DIR'."
}
