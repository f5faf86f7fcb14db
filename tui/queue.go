package tui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/queue"
)

var (
	keyRetry   = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry failed"))
	keyDiscard = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "discard failed"))
)

type (
	queueMsg struct {
		rescan bool // the answer to a change (rescan)
		state  queueState
		proc   string // processorState
		idle   bool
		err    error
	}
	queueActionMsg struct {
		text string
		err  error
	}
)

// queueScreen is screen 2: the import queue's operations by state, failures with their
// reasons; r retries a failed operation, d discards one after asking.
type queueScreen struct {
	env
	w, h    int
	state   queueState
	proc    string // who processes the queue (processorState); "" when unknown
	idle    bool   // nothing processes it
	err     error
	loaded  bool
	l       listView
	confirm string // the id d asks about
	note    string // the outcome of the last retry or discard

	// A server applying a burst of writes moves a file in the queue every few milliseconds, and
	// a scan decodes up to processedShown operation files: one scan at a time, and changes
	// during it make one more, rescanGap after it began (as the Library's reloads).
	kinds    *opKinds // what the last scan decoded
	scanning bool
	stale    bool
	started  time.Time
	gap      time.Duration // rescanGap; tests that run the commands themselves set 0
}

// rescanGap is the least time from one change-driven scan's start to the next's.
const rescanGap = 200 * time.Millisecond

// rescanDueMsg: the pause after a scan is over, and the queue changed meanwhile.
type rescanDueMsg struct{}

// rescan scans the queue for a change, marking the scan in flight.
func (s *queueScreen) rescan() tea.Cmd {
	s.scanning, s.stale, s.started = true, false, time.Now()
	scan := s.scan()
	return func() tea.Msg {
		m := scan().(queueMsg)
		m.rescan = true
		return m
	}
}

func newQueueScreen(e env) *queueScreen {
	return &queueScreen{env: e, gap: rescanGap, kinds: &opKinds{}}
}

func (s *queueScreen) title() string   { return "Queue" }
func (s *queueScreen) capturing() bool { return s.confirm != "" }
func (s *queueScreen) keys() []key.Binding {
	return []key.Binding{keyRetry, keyDiscard}
}

func (s *queueScreen) init() tea.Cmd {
	if s.cfg.QueueDir == "" {
		return nil
	}
	return tea.Batch(s.scan(), s.src.waitQueue())
}

func (s *queueScreen) scan() tea.Cmd {
	dir, lib, kinds, goos := s.cfg.QueueDir, s.cfg.LibraryDir, s.kinds, cmp.Or(s.cfg.GOOS, runtime.GOOS)
	db := cmp.Or(s.cfg.LibraryDB, filepath.Join(lib, queue.DBName))
	return func() tea.Msg {
		st, err := scanQueueWith(dir, kinds)
		var proc string
		var idle bool
		if lib != "" && dir != "" {
			a := queue.WhoAnswers(queue.IsStandalone(lib), queue.LibraryArgs(db, dir), dir, goos)
			proc, idle = a.String(), a.Idle()
		}
		// Operation files, their names and error files are anyone's text (see display). The id
		// stays as named on disk, for r and d to act on; Shown is what the screen lays out.
		for i := range st.Ops {
			op := &st.Ops[i]
			op.Kind, op.Reason, op.Shown = display(op.Kind), display(op.Reason), display(op.ID)
		}
		return queueMsg{state: st, proc: proc, idle: idle, err: err}
	}
}

func (s *queueScreen) resize(w, h int) {
	s.w, s.h = w, h
	s.layout()
}

// layout gives the list the lines the header and the detail below it leave: the detail is the
// selected failure's whole reason, which takes as many lines as it needs.
func (s *queueScreen) layout() {
	top := 4 // counts, directory, a blank line, the column titles
	if s.proc != "" {
		top += strings.Count(s.procLine(), "\n") + 1
	}
	s.l.setHeight(max(1, s.h-top-len(s.detail())))
}

func (s *queueScreen) update(msg tea.Msg) tea.Cmd {
	cmd := s.handle(msg)
	s.layout() // the selection, the note or the processor line may have changed
	return cmd
}

func (s *queueScreen) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case queueChangedMsg:
		if s.scanning {
			s.stale = true
			return s.src.waitQueue()
		}
		return tea.Batch(s.rescan(), s.src.waitQueue())
	case rescanDueMsg:
		return s.rescan()
	case queueMsg:
		var again tea.Cmd
		if msg.rescan {
			s.scanning = s.stale
			if s.stale {
				again = tea.Tick(max(0, s.gap-time.Since(s.started)), func(time.Time) tea.Msg { return rescanDueMsg{} })
			}
		}
		s.loaded, s.err, s.proc, s.idle = true, msg.err, msg.proc, msg.idle
		s.layout() // the processor line may have come, gone or grown
		if msg.err == nil {
			var keep string
			if len(s.state.Ops) > 0 {
				keep = s.state.Ops[s.l.cursor].ID
			}
			s.state = msg.state
			s.l.setLen(len(s.state.Ops))
			for i, op := range s.state.Ops {
				if op.ID == keep {
					s.l.cursor = i
					s.l.scroll()
				}
			}
		}
		return again
	case queueActionMsg:
		s.note = msg.text
		if msg.err != nil {
			s.note = msg.err.Error()
		}
		return s.scan()
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

func (s *queueScreen) selected() (queueOp, bool) {
	if len(s.state.Ops) == 0 {
		return queueOp{}, false
	}
	return s.state.Ops[s.l.cursor], true
}

func (s *queueScreen) key(msg tea.KeyMsg) tea.Cmd {
	dir := s.cfg.QueueDir
	if s.confirm != "" {
		id := s.confirm
		s.confirm = ""
		if msg.String() != "y" {
			s.note = "kept " + id
			return nil
		}
		return func() tea.Msg {
			return queueActionMsg{text: "discarded " + id, err: discardOp(dir, id)}
		}
	}
	op, ok := s.selected()
	switch {
	case key.Matches(msg, keyRetry), key.Matches(msg, keyDiscard):
		if !ok || op.State != "failed" {
			s.note = "only a failed operation can be retried or discarded; select one (↑/↓)"
			return nil
		}
		if key.Matches(msg, keyDiscard) {
			s.confirm = op.ID
			return nil
		}
		return func() tea.Msg {
			nid, err := retryOp(dir, op.ID)
			return queueActionMsg{text: fmt.Sprintf("retrying %s as %s", op.ID, nid), err: err}
		}
	}
	moveList(&s.l, msg)
	return nil
}

// procLine says who processes the queue, wrapped: what to start when nothing does is a command
// naming the library, cut short it could not be copied.
func (s *queueScreen) procLine() string { return wrap("processor: "+s.proc, s.w) }

func (s *queueScreen) view() string {
	switch {
	case s.cfg.QueueDir == "":
		return "No queue: the library could not be resolved, so there is no import queue to show.\n\nStart the console with --library DIR."
	case !s.loaded:
		return "Reading the queue…"
	case s.err != nil:
		return "The queue cannot be read: " + s.err.Error() + "\n\nCheck that the directory is yours and readable (mode 0700)."
	case s.state.Missing:
		return "There is no queue directory yet at\n  " + s.cfg.QueueDir + "\n\n" + wrap("It appears with the first write; writes from an AI client "+
			"(create_prompt, update_prompt, …) pass through it.", s.w)
	}
	var b strings.Builder
	c := s.state.Counts
	fmt.Fprintf(&b, "pending %d · processing %d · processed %d · failed %d\n", c["pending"], c["processing"], c["processed"], c["failed"])
	if s.proc != "" {
		proc := s.procLine()
		if s.idle && c["pending"]+c["processing"] > 0 { // operations that will wait
			proc = s.st.warn.Render(proc)
		}
		b.WriteString(proc + "\n")
	}
	b.WriteString(s.st.dim.Render(cell(s.cfg.QueueDir, s.w)) + "\n\n")
	if len(s.state.Ops) == 0 {
		b.WriteString(wrap("The queue is empty: nothing pending, processing, processed or failed. Writes from an AI client "+
			"(create_prompt, update_prompt, …) appear here as they pass through, and failures stay with their reasons.", s.w))
		return b.String()
	}
	b.WriteString(s.st.title.Render(cell(fmt.Sprintf("  %-10s %5s  %-14s %-8s  %s", "STATE", "AGE", "KIND", "ID", "REASON"), s.w)) + "\n")
	now := s.cfg.Now()
	b.WriteString(fit(s.l.render(s.st, s.w, true, func(i int) string {
		op := s.state.Ops[i]
		state := op.State
		if op.State == "failed" {
			state = s.st.bad.Render(fmt.Sprintf("%-10s", state))
		} else {
			state = fmt.Sprintf("%-10s", state)
		}
		reason, _, _ := strings.Cut(op.Reason, "\n")
		return fmt.Sprintf("%s %5s  %-14s %-8s  %s", state, age(now, op.At), op.Kind, cell(op.Shown, 8), reason)
	}), s.w, s.l.height))
	b.WriteString("\n")
	b.WriteString(strings.Join(s.detail(), "\n"))
	return b.String()
}

// detail is what the lines under the list say: the question d asks, the outcome of the last
// action, or the selected operation; a failure's reason whole, wrapped, as far as half the
// screen (and where to read the rest beyond that).
func (s *queueScreen) detail() []string {
	op, ok := s.selected()
	switch {
	case s.confirm != "":
		return []string{s.st.warn.Render(cell(fmt.Sprintf("Discard failed operation %s for good? y/n", display(s.confirm)), s.w))}
	case s.note != "":
		return []string{cell(display(s.note), s.w)} // it names the operation's file
	case !ok:
		return nil
	case op.State == "failed":
		lines := strings.Split(wrap(op.Shown+": "+op.Reason, s.w), "\n")
		if most := max(1, (s.h-5)/2); len(lines) > most {
			lines = append(lines[:most-1], cell("… the rest is in "+display(filepath.Join(s.cfg.QueueDir, "failed", op.ID+".error")), s.w))
		}
		return lines
	}
	return []string{s.st.dim.Render(cell(op.Shown+" · select a failed one: r puts it back in the queue, d discards it", s.w))}
}
