package tui

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// maxPipelineInput bounds a file the Pipeline screen reads.
const maxPipelineInput = 8 << 20

var (
	keyModel = key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "next proxymodel"))
	keyOpen  = key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open a file"))
	keyEvent = key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "next traced event"))
)

type (
	// inputMsg is a file read for the screen, by a command: reading up to 8 MB, from a slow disk
	// or a network mount, is no work for the UI goroutine.
	inputMsg struct {
		run int // the pipelineScreen.runs it is for
		in  Input
		err error
	}
	pipelineMsg struct {
		run   int
		input string
		out   Output
		err   error
	}
)

// pipelineScreen is screen 5: a proxymodel applied to a file or a traced event's payload,
// original beside transformed, with the section table, bytes and cache status.
type pipelineScreen struct {
	env
	w, h    int
	models  []string
	model   int
	path    textinput.Model
	traced  []traffic.Event // traced responses that may hold content (transformable), newest last
	payload int             // traced events seen, of any kind: says why e finds nothing
	ev      int             // the traced event shown, counted from the newest; -1 for none
	evIn    Input           // what that event holds, taken when e picked it: newer events shift ev
	source  string
	note    string // why e found nothing to take, said above what is shown until the next key
	input   string
	out     *Output
	err     error
	offset  int // scroll of the two columns
	left    wrappedLines
	right   wrappedLines
	table   table.Model
	runs    int    // counts the runs: the answer to one superseded since (another model or source) is dropped
	reading string // the file being read, "" when none is
	pending bool   // the transformation is on its way
}

func newPipelineScreen(e env) *pipelineScreen {
	ti := textinput.New()
	ti.Prompt = "file: "
	ti.Placeholder = "path to a file to transform"
	s := &pipelineScreen{env: e, path: ti, ev: -1}
	if e.cfg.Pipeline != nil {
		s.models = e.cfg.Pipeline.Models()
	}
	if m := e.cfg.ProxyModel; m != "" && len(s.models) > 0 {
		if i := slices.Index(s.models, m); i >= 0 {
			s.model = i
		} else {
			// serve falls back to the built-in default for a model that does not exist: start
			// there too. The project file is the user's to fix, so say so rather than silently.
			if i := slices.Index(s.models, pipeline.DefaultModel); i >= 0 {
				s.model = i
			}
			whose := "the project"
			if p := s.projectName(); p != "" {
				whose = "project " + p
			}
			s.note = display(fmt.Sprintf("The proxyModel %q set for %s does not exist: its sessions get the built-in default. "+
				"'mcpctl get proxymodels' lists the models there are.", m, whose))
		}
	}
	s.table = table.New(table.WithColumns([]table.Column{{Title: "ID", Width: 8}, {Title: "SECTION", Width: 40}, {Title: "BYTES", Width: 8}}),
		table.WithHeight(4))
	st := table.DefaultStyles()
	st.Selected = lipgloss.NewStyle() // the table is a listing here, not a cursor
	s.table.SetStyles(st)
	return s
}

// projectName is the project the console runs for, "" for none: the one whose proxymodel the
// screen starts on, and the one a file is transformed for, as 'mcpctl serve' started for it
// would.
func (s *pipelineScreen) projectName() string {
	switch {
	case s.cfg.Project != "":
		return s.cfg.Project
	case s.cfg.Repo != nil:
		return s.cfg.Repo.Name
	}
	return ""
}

func (s *pipelineScreen) title() string   { return "Pipeline" }
func (s *pipelineScreen) capturing() bool { return s.path.Focused() }
func (s *pipelineScreen) keys() []key.Binding {
	return []key.Binding{keyModel, keyOpen, keyEvent}
}
func (s *pipelineScreen) init() tea.Cmd { return nil }

func (s *pipelineScreen) resize(w, h int) {
	s.w, s.h = w, h
	s.path.Width = w - 8
	s.table.SetWidth(w)
	s.table.SetHeight(max(3, s.tableHeight()))
	s.table.SetColumns([]table.Column{{Title: "ID", Width: 10}, {Title: "SECTION", Width: max(10, w-26)}, {Title: "BYTES", Width: 8}})
}

func (s *pipelineScreen) tableHeight() int { return max(3, (s.h-2)/3) }

func (s *pipelineScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case trafficMsg:
		for _, e := range msg.events {
			if len(e.Payload) > 0 {
				s.payload++
			}
			if transformable(e) {
				s.traced = append(s.traced, e)
			}
		}
		if len(s.traced) > keptEvents {
			s.traced = s.traced[len(s.traced)-keptEvents:]
			s.ev = min(s.ev, len(s.traced)-1)
		}
		return nil
	case inputMsg:
		if msg.run != s.runs {
			return nil
		}
		s.reading = ""
		if msg.err != nil {
			s.input, s.err, s.out, s.offset = "", msg.err, nil, 0
			return nil
		}
		return s.transform(msg.in)
	case pipelineMsg:
		if msg.run != s.runs {
			return nil
		}
		s.pending = false
		// Any file or payload may come here: Go source with its tabs, a binary's control bytes.
		// display makes them what the terminal draws as measured (expanded, in caret notation).
		s.input, s.err = display(msg.input), msg.err
		s.out = nil
		if msg.err == nil {
			out := msg.out
			out.Text = display(out.Text)
			s.out = &out
			rows := make([]table.Row, len(out.Sections))
			for i, sec := range out.Sections {
				rows[i] = table.Row{display(sec.ID), strings.Repeat("  ", sec.Depth) + display(sec.Title), size(sec.Bytes)}
			}
			s.table.SetRows(rows)
		}
		s.offset = 0
		return nil
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

func (s *pipelineScreen) key(msg tea.KeyMsg) tea.Cmd {
	if s.path.Focused() {
		switch msg.String() {
		case "enter":
			s.path.Blur()
			p := expandHome(strings.TrimSpace(s.path.Value()))
			if p == "" {
				return nil
			}
			s.source, s.ev = "file:"+p, -1
			return s.run()
		case "esc":
			s.path.Blur()
			return nil
		}
		var cmd tea.Cmd
		s.path, cmd = s.path.Update(msg)
		return cmd
	}
	if s.cfg.Pipeline == nil {
		return nil
	}
	s.note = ""
	switch {
	case key.Matches(msg, keyModel):
		if len(s.models) > 0 {
			s.model = (s.model + 1) % len(s.models)
			return s.run()
		}
	case key.Matches(msg, keyOpen):
		s.path.SetValue("") // a new path, not one typed after the last
		return s.path.Focus()
	case key.Matches(msg, keyEvent):
		return s.nextEvent()
	}
	if off, ok := scrollKeys.scroll(msg, s.offset, s.colHeight(), s.lastOffset()); ok {
		s.offset = off
	}
	return nil
}

// lastOffset is the offset of the longer column's last page: scrolling stops there, so a key
// held past the end is not owed back before scrolling up moves anything.
func (s *pipelineScreen) lastOffset() int {
	if s.out == nil {
		return 0
	}
	l, r := s.columns()
	return max(len(l), len(r)) - s.colHeight()
}

// columns are the original and the transformed text, wrapped to their columns.
func (s *pipelineScreen) columns() (left, right []string) {
	lw := (s.w - 1) / 2
	return s.left.of(s.input, lw), s.right.of(s.out.Text, s.w-1-lw)
}

// expandHome is a typed path with a leading ~ (alone, or before a slash) as the home directory:
// a shell would have expanded it on a command line, and none reads what is typed here.
func expandHome(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path // the read fails naming the path as typed
	}
	return filepath.Join(home, path[1:])
}

// run transforms the chosen source with the chosen model: a file is read again first (it may
// have changed since), by a command, and transformed once read.
func (s *pipelineScreen) run() tea.Cmd {
	if s.source == "" || len(s.models) == 0 {
		return nil
	}
	s.runs++
	s.reading, s.pending = "", false
	path, ok := strings.CutPrefix(s.source, "file:")
	if !ok {
		return s.transform(s.evIn)
	}
	s.reading = path
	run, project := s.runs, s.projectName()
	return func() tea.Msg {
		text, err := readInput(path)
		return inputMsg{run: run, in: Input{Text: text, Type: "toolResult", Source: path, Project: project}, err: err}
	}
}

// transform runs the chosen model over in.
func (s *pipelineScreen) transform(in Input) tea.Cmd {
	p, model, run := s.cfg.Pipeline, s.models[s.model], s.runs
	s.pending = true
	return func() tea.Msg {
		out, err := p.Transform(context.Background(), model, in)
		return pipelineMsg{run: run, input: in.Text, out: out, err: err}
	}
}

// nextEvent picks the next older traced response that holds text, wrapping to the newest, and
// transforms it: the text serve's pipeline transformed, with the model it applied, when it did. Responses whose result has no text (a tool's image) are passed over; when none
// has any, the screen says why rather than transforming a JSON-RPC message, and keeps what it
// shows: a file the user opened is not theirs to lose for a key that found nothing.
func (s *pipelineScreen) nextEvent() tea.Cmd {
	n := len(s.traced)
	for i := 1; i <= n; i++ {
		ev := (s.ev + i) % n
		e := s.traced[n-1-ev]
		// For the project the server that traced it served, which it passed to custom stages.
		in, ok := Input{Type: contentType(e.Method), Source: e.Name, Project: e.Project}, false
		in.Text, ok = payloadText(e.Payload)
		if p := e.Pipeline; p != nil && p.Input != "" {
			// The payload is what serve's model made of the content; the screen starts from
			// the content as serve had it, with that model, which may be a server's or an
			// override's.
			in, ok = Input{Text: p.Input, Type: cmp.Or(p.Type, in.Type), Source: cmp.Or(p.Source, in.Source), Project: e.Project}, true
			if m := slices.Index(s.models, p.Model); m >= 0 {
				s.model = m
			}
		}
		if !ok {
			continue
		}
		s.ev, s.evIn = ev, in
		s.source = fmt.Sprintf("event:%s %s %s %s", e.TS.Format("15:04:05.000"), e.Session, e.Method, e.Name)
		switch p := e.Project; { // its stages ran for the project it was served for, said when not the console's
		case p == s.projectName():
		case p == "":
			s.source += " served for no project"
		default:
			s.source += " of project " + p
		}
		return s.run()
	}
	if s.payload == 0 {
		s.note = "No traced events yet, so e has nothing to take. Servers record payloads only when started with " +
			"--trace-content (or MCPCTL_TRACE=content): add it to 'mcpctl serve' in your AI client's MCP config and restart the client."
	} else {
		s.note = fmt.Sprintf("Nothing for e to take: none of the %d traced events holds content. Requests, notifications, "+
			"initialize and lists carry none; a tools/call, prompts/get or resources/read answered with text does.", s.payload)
	}
	return nil
}

// contentType is the pipeline's content type for a method's result.
func contentType(method string) string {
	switch method {
	case "resources/read":
		return "resource"
	case "prompts/get":
		return "prompt"
	}
	return "toolResult"
}

// payloadText is the text a pipeline would see in a traced response, and whether it holds any.
// serve records the whole JSON-RPC message (observe.go), so the content is under "result": the
// texts of a tool result's content (text blocks and embedded text resources, joined as serve's
// pipeline joins them), of a resource's contents, or of a prompt's messages. Requests,
// notifications, errors and results such as initialize's hold none.
func payloadText(payload []byte) (string, bool) {
	type resource struct {
		Text *string `json:"text"`
	}
	type block struct {
		Type     string   `json:"type"`
		Text     *string  `json:"text"`
		Resource resource `json:"resource"`
	}
	var msg struct {
		Result *struct {
			Content  []block    `json:"content"`
			Contents []resource `json:"contents"`
			Messages []struct {
				Content block `json:"content"`
			} `json:"messages"`
		} `json:"result"`
	}
	if json.Unmarshal(payload, &msg) != nil || msg.Result == nil {
		return "", false
	}
	var texts []string
	add := func(t *string) {
		if t != nil {
			texts = append(texts, *t)
		}
	}
	r := msg.Result
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			add(c.Text)
		case "resource":
			add(c.Resource.Text)
		}
	}
	for _, c := range r.Contents {
		add(c.Text)
	}
	for _, m := range r.Messages {
		if m.Content.Type == "text" {
			add(m.Content.Text)
		}
	}
	if len(texts) == 0 {
		return "", false
	}
	return strings.Join(texts, "\n\n"), true
}

// transformable is whether an event may carry content for a pipeline: a successful response of
// a method whose result serve's pipeline transforms. A cheap test of the event's fields, so that
// payloads are decoded only when e picks one.
func transformable(e traffic.Event) bool {
	if e.Kind == traffic.KindResponse && e.Pipeline != nil && e.Pipeline.Input != "" {
		return true // content serve transformed, withheld by a failing stage too: the screen shows why
	}
	if e.Kind != traffic.KindResponse || e.Status != traffic.StatusOK || len(e.Payload) == 0 {
		return false
	}
	switch e.Method {
	case "tools/call", "prompts/get", "resources/read":
		return true
	}
	return false
}

// readInput reads a file for the Pipeline screen. Its errors are shown there as they are, so
// they are worded for the user who typed the path: no package prefix, which means nothing to
// them, and no "stat PATH:" of the os error, which would say the path twice.
//
// The file is checked once open, not before: a pipe or device put at the path between a check and
// the open would hang the console (the open never blocks: O_NONBLOCK), and one that grows after
// the check is read no further than the bound.
func readInput(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w. Check the path, or press o to open another file", path, pathCause(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot read %s: %w. Check the path, or press o to open another file", path, pathCause(err))
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file (a directory, a device or a pipe); press o to open a file", path)
	case fi.Size() > maxPipelineInput:
		return "", fmt.Errorf("%s is larger than %s; press o to open a smaller file", path, size(maxPipelineInput))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPipelineInput+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot read %s: %w. Check the path, or press o to open another file", path, pathCause(err))
	case len(b) > maxPipelineInput:
		return "", fmt.Errorf("%s is larger than %s; press o to open a smaller file", path, size(maxPipelineInput))
	}
	return string(b), nil
}

// pathCause is an os error without its operation and path: "no such file or directory".
func pathCause(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *pipelineScreen) colHeight() int { return max(1, s.h-4-s.tableHeight()-s.noteHeight()) }

// noteHeight is how many lines the note takes.
func (s *pipelineScreen) noteHeight() int {
	if s.note == "" {
		return 0
	}
	return strings.Count(wrap(s.note, s.w), "\n") + 1
}

func (s *pipelineScreen) view() string {
	if s.cfg.Pipeline == nil {
		return wrap("No pipeline configured: this console was started without the content pipeline, so there is nothing to "+
			"transform. Proxymodels live in $XDG_CONFIG_HOME/mcpctl/proxymodels; once the pipeline is wired in, this screen shows "+
			"a proxymodel's output beside the original.", s.w)
	}
	var b strings.Builder
	model := "(none)"
	if len(s.models) > 0 {
		model = s.models[s.model]
		if p := s.projectName(); p != "" && model == s.cfg.ProxyModel {
			model += " of project " + p // the one its sessions get
		}
	}
	if s.path.Focused() {
		b.WriteString(s.path.View())
	} else {
		src := s.source
		if src == "" {
			src = "none: o opens a file, e takes a traced event"
		}
		b.WriteString(cell(display(fmt.Sprintf("model %s (m) · source %s", model, src)), s.w))
	}
	b.WriteByte('\n')
	if s.note != "" {
		b.WriteString(wrap(s.note, s.w) + "\n")
	}
	switch {
	case s.reading != "":
		b.WriteString(wrap(display("reading "+s.reading+"…"), s.w))
		return b.String()
	case s.pending:
		b.WriteString("transforming…")
		return b.String()
	case s.err != nil:
		b.WriteString(wrap(display(s.err.Error()), s.w)) // it may name the file
		return b.String()
	case s.out == nil:
		b.WriteString(wrap(fmt.Sprintf("Choose what to transform: o and a file path, or e for the text of a traced result (%d recorded). "+
			"m switches the proxymodel (%d available).", len(s.traced), len(s.models)), s.w))
		return b.String()
	}
	o := s.out
	cache := "miss"
	if o.CacheHit {
		cache = "hit"
	}
	fmt.Fprintf(&b, "%s → %s · cache %s · stages %s\n", size(o.BytesBefore), size(o.BytesAfter), cache, display(strings.Join(o.Stages, ", ")))
	lw := (s.w - 1) / 2
	rw := s.w - 1 - lw
	ch := s.colHeight()
	b.WriteString(sideBySide(s.st.title.Render("original"), lw, s.st.title.Render("transformed"), rw, 1) + "\n")
	l, r := s.columns()
	b.WriteString(sideBySide(window(l, s.offset, ch), lw, window(r, s.offset, ch), rw, ch) + "\n")
	if len(o.Sections) == 0 {
		b.WriteString("no sections: this model serves the content whole")
	} else {
		b.WriteString(s.table.View())
	}
	return b.String()
}

// window is h of lines starting at line off.
func window(lines []string, off, h int) string {
	off = min(off, max(0, len(lines)-1))
	return strings.Join(lines[off:min(len(lines), off+h)], "\n")
}
