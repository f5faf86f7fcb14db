package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

const (
	// keptEvents is how many events the Traffic screen holds; older ones drop off.
	keptEvents = 5000
	// sparkPoints is how many of a method's latest durations its sparkline shows.
	sparkPoints = 24
	// sparkMethods is how many methods get a sparkline (the busiest) at 80×24.
	sparkMethods = 3
)

// trafficExample is a command that writes traffic where the console reads it: one request to a
// server started by hand, which answers and exits when its input ends.
const trafficExample = `echo '{"jsonrpc":"2.0","id":1,"method":"ping"}' | mcpctl serve`

var keyFilter = key.NewBinding(key.WithKeys("f", "/"), key.WithHelp("f", "filter"))

// trafficScreen is screen 3: the events of every running server, newest first, filterable,
// with a latency sparkline per method; Enter opens one event.
type trafficScreen struct {
	env
	w, h    int
	events  []traffic.Event // oldest first
	shown   []int           // indexes into events that pass the filter, newest first
	l       listView
	err     error
	filter  textinput.Model
	terms   []string       // the filter in force, as typed
	match   []filterTerm   // the filter in force, parsed
	badTerm error          // why the filter being typed cannot be applied, shown until corrected
	detail  *traffic.Event // the event Enter opened; it stays while new events arrive
	opened  int            // counts the events opened: a layout for one closed since is dropped
	// text is the open event's detail for any width (eventText), kept once laid out: a resize
	// only wraps it again, where decoding and indenting a 5 MB payload each time took 170 ms.
	text    string
	detailW int  // the width the shown detail is wrapped to; 0 until its first layout arrives
	laying  bool // a layout of the open event is on its way
	vp      viewport.Model
	latency map[string][]float64 // per method, the latest durations
	calls   map[string]int       // per method, responses seen
	sess    map[string]bool
}

func newTrafficScreen(e env) *trafficScreen {
	ti := textinput.New()
	ti.Prompt = "filter: "
	ti.Placeholder = "session:ID project:P method:M name:N status:error kind:K, or words"
	return &trafficScreen{env: e, filter: ti, vp: viewport.New(40, 10),
		latency: map[string][]float64{}, calls: map[string]int{}, sess: map[string]bool{}}
}

func (s *trafficScreen) title() string   { return "Traffic" }
func (s *trafficScreen) capturing() bool { return s.filter.Focused() }
func (s *trafficScreen) keys() []key.Binding {
	return []key.Binding{keyEnter, keyFilter, keyBack}
}

func (s *trafficScreen) init() tea.Cmd {
	if s.cfg.TrafficDir == "" {
		return nil
	}
	return s.src.waitTraffic()
}

func (s *trafficScreen) resize(w, h int) {
	s.w, s.h = w, h
	s.l.setHeight(max(1, h-3-s.sparkRows()))
	s.vp.Width, s.vp.Height = w, max(1, h-1)
	s.filter.Width = w - 10
}

// detailMsg is the open event's detail laid out for a width, by a command: a payload of
// megabytes takes a fifth of a second to decode, indent and wrap, which on the UI goroutine froze
// the console on every resize (dozens while a window's edge is dragged).
type detailMsg struct {
	opened int    // the trafficScreen.opened it is for
	text   string // eventText
	width  int
	// vp holds text wrapped to width: its SetContent measures every line (20 ms for 5 MB), which
	// the command does too.
	vp viewport.Model
}

// layDetail is text wrapped to w in a viewport: a command's work.
func layDetail(opened int, text string, w int) detailMsg {
	vp := viewport.New(w, 1)
	vp.SetContent(wrap(text, w))
	return detailMsg{opened: opened, text: text, width: w, vp: vp}
}

// open shows event e, once laid out for the screen's width.
func (s *trafficScreen) open(e traffic.Event) tea.Cmd {
	s.detail, s.text, s.detailW, s.laying = &e, "", 0, true
	s.opened++
	s.vp.SetContent("") // keys pressed before the layout arrives scroll nothing of the last event
	s.vp.GotoTop()
	opened, w, loc := s.opened, s.w, s.cfg.Now().Location()
	return func() tea.Msg { return layDetail(opened, eventText(e, loc), w) }
}

// relayout wraps the open event's detail again for the screen's width: wrapped for the old one,
// its lines would be cut at the new edge (or leave half of a wider one empty). Only the wrapping
// is done again, from the text kept. One layout is on its way at a time: when it arrives, the
// next is asked for the width the screen has then, so a burst of resizes costs two.
func (s *trafficScreen) relayout() tea.Cmd {
	if s.detail == nil || s.laying || s.detailW == s.w {
		return nil
	}
	s.laying = true
	text, opened, w := s.text, s.opened, s.w
	return func() tea.Msg { return layDetail(opened, text, w) }
}

// laidOut shows a layout that arrived, when it is still for the open event and the screen's
// width, at about the line shown before.
func (s *trafficScreen) laidOut(msg detailMsg) tea.Cmd {
	if s.detail == nil || msg.opened != s.opened {
		return nil // closed, or another event opened since: its own layout is on its way
	}
	s.text, s.laying = msg.text, false
	if msg.width == s.w {
		top := 0
		if s.detailW > 0 {
			top = s.vp.YOffset * s.detailW / max(1, msg.width)
		}
		vp := msg.vp
		vp.Width, vp.Height = s.vp.Width, s.vp.Height
		vp.SetYOffset(top)
		s.vp, s.detailW = vp, msg.width
	}
	return s.relayout()
}

// sparkRows is how many methods get a sparkline: sparkMethods at 80×24, more on a taller
// terminal.
func (s *trafficScreen) sparkRows() int { return min(max(sparkMethods, s.h/6), len(s.latency)) }

func (s *trafficScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case trafficMsg:
		if msg.err != nil {
			s.err = msg.err
			return nil // the follower has stopped; nothing more will come
		}
		s.add(msg.events)
		return s.src.waitTraffic()
	case tea.WindowSizeMsg:
		return s.relayout()
	case detailMsg:
		return s.laidOut(msg)
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

// add takes new events, keeps the newest keptEvents, and refilters.
func (s *trafficScreen) add(evs []traffic.Event) {
	for _, e := range evs {
		s.sess[e.Session] = true
		if e.Kind == traffic.KindResponse && e.Method != "" {
			s.calls[e.Method]++
			l := append(s.latency[e.Method], e.DurationMs)
			if len(l) > sparkPoints {
				l = l[len(l)-sparkPoints:]
			}
			s.latency[e.Method] = l
		}
	}
	s.events = append(s.events, evs...)
	if len(s.events) > keptEvents {
		s.events = append([]traffic.Event(nil), s.events[len(s.events)-keptEvents:]...)
	}
	// Files are read one after another, so events arrive grouped by session: order them by
	// time. Nearly sorted input makes this cheap.
	sort.SliceStable(s.events, func(i, j int) bool { return s.events[i].TS.Before(s.events[j].TS) })
	s.refilter()
}

func (s *trafficScreen) refilter() {
	var keep string
	if len(s.shown) > 0 {
		keep = eventKey(s.events[s.shown[s.l.cursor]])
	}
	atTop := s.l.cursor == 0
	s.shown = s.shown[:0]
	for i := len(s.events) - 1; i >= 0; i-- {
		if matchEvent(s.events[i], s.match) {
			s.shown = append(s.shown, i)
		}
	}
	s.l.setLen(len(s.shown))
	s.resize(s.w, s.h) // the sparkline rows may have grown
	if atTop {
		s.l.top() // following the newest
		return
	}
	for i, ix := range s.shown {
		if eventKey(s.events[ix]) == keep {
			s.l.cursor = i
			s.l.scroll()
			return
		}
	}
}

func eventKey(e traffic.Event) string {
	return e.Session + "\x00" + e.Kind + "\x00" + e.ID + "\x00" + e.TS.String()
}

// filterTerm is one word of the Traffic screen's filter: key:value, or a word (key "").
type filterTerm struct{ key, val string }

// filterKeys are the filter's keys, and the column names that stand for them: a user reads the
// table's headers and types what they say.
var filterKeys = map[string]string{"session": "session", "sess": "session", "project": "project",
	"method": "method", "name": "name", "status": "status", "stat": "status", "kind": "kind"}

// filterSyntax says what each key matches, for a filter that matched nothing or did not parse.
const filterSyntax = "session: and project: match the start of the session or project; method: a method, or the " +
	"name beside it (method:search_prompts); name: the start of a name; status: ok, error or cancelled, or what STAT " +
	"shows (req, not); kind: request, response or notification, or their start (kind:not). Other words match part of a " +
	"method or a name. Every term must match."

// parseFilter reads the filter as typed. A word whose part before a colon is a name but not a key
// (sttus:eror) is an error naming the keys, rather than a word searched for and found nowhere;
// a colon after something else (prompt://review) is part of a word.
func parseFilter(text string) ([]filterTerm, error) {
	var terms []filterTerm
	for _, w := range strings.Fields(text) {
		field, val, ok := strings.Cut(w, ":")
		if !ok || !isFieldName(field) || strings.HasPrefix(val, "/") {
			terms = append(terms, filterTerm{val: w})
			continue
		}
		k, known := filterKeys[strings.ToLower(field)]
		switch {
		case !known:
			return nil, fmt.Errorf("%q is not a filter key (in %s): the keys are session, project, method, name, status and kind, each before a colon", field, w)
		case val == "":
			return nil, fmt.Errorf("%s has no value: write what to match after the colon, as in %s", w, map[string]string{
				"session": "session:a1b2", "project": "project:web", "method": "method:tools/call", "name": "name:search_prompts",
				"status": "status:error", "kind": "kind:notification"}[k])
		}
		terms = append(terms, filterTerm{key: k, val: val})
	}
	return terms, nil
}

func isFieldName(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return s != ""
}

// matchEvent applies the filter terms, each against what the table shows of the event as well as
// what the file holds (filterSyntax). Every term must match.
func matchEvent(e traffic.Event, terms []filterTerm) bool {
	method, name := methodCells(e)
	for _, t := range terms {
		var ok bool
		switch t.key {
		case "session":
			ok = strings.HasPrefix(e.Session, t.val)
		case "project":
			ok = strings.HasPrefix(e.Project, t.val)
		case "method":
			ok = e.Method == t.val || method == t.val || name == t.val
		case "name":
			ok = strings.HasPrefix(e.Name, t.val) || strings.HasPrefix(name, t.val)
		case "status":
			ok = e.Status == t.val || statCell(e) == t.val
		case "kind":
			ok = strings.HasPrefix(e.Kind, t.val)
		default:
			ok = strings.Contains(e.Method, t.val) || strings.Contains(e.Name, t.val)
		}
		if !ok {
			return false
		}
	}
	return true
}

func (s *trafficScreen) key(msg tea.KeyMsg) tea.Cmd {
	if s.filter.Focused() {
		switch msg.String() {
		case "enter", "esc":
			terms, err := parseFilter(s.filter.Value())
			if err != nil && msg.String() == "enter" {
				s.badTerm = err // the input stays open to correct it
				return nil
			}
			s.filter.Blur()
			s.badTerm = nil
			if err != nil { // esc: the filter stays as it was
				s.filter.SetValue(strings.Join(s.terms, " "))
				return nil
			}
			s.terms, s.match = strings.Fields(s.filter.Value()), terms
			s.l.top()
			s.refilter()
			return nil
		}
		var cmd tea.Cmd
		s.filter, cmd = s.filter.Update(msg)
		return cmd
	}
	if s.detail != nil {
		if key.Matches(msg, keyBack) || key.Matches(msg, keyEnter) {
			s.detail, s.text = nil, "" // a payload's megabytes are not kept for nothing
			return nil
		}
		scrollText(&s.vp, msg)
		return nil
	}
	switch {
	case key.Matches(msg, keyFilter):
		return s.filter.Focus()
	case key.Matches(msg, keyBack):
		s.filter.SetValue("")
		s.terms, s.match = nil, nil
		s.refilter()
		return nil
	case key.Matches(msg, keyEnter):
		if len(s.shown) > 0 {
			return s.open(s.events[s.shown[s.l.cursor]])
		}
		return nil
	}
	moveList(&s.l, msg)
	return nil
}

// eventText is one event in full, for any width: its fields, then its payload pretty-printed
// when traced.
func eventText(e traffic.Event, loc *time.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "time      %s\n", e.TS.In(loc).Format("2006-01-02 15:04:05.000"))
	fmt.Fprintf(&b, "session   %s  project %s\n", e.Session, orNone(e.Project))
	fmt.Fprintf(&b, "call      %s %s id %s %s\n", e.Kind, e.Method, orNone(e.ID), e.Name)
	if e.Kind == traffic.KindResponse {
		fmt.Fprintf(&b, "result    %s in %.1fms, %s in, %s out", orNone(e.Status), e.DurationMs, size(e.BytesIn), size(e.BytesOut))
		if e.ErrorCode != "" {
			fmt.Fprintf(&b, ", error %s", e.ErrorCode)
		}
		b.WriteByte('\n')
	} else {
		fmt.Fprintf(&b, "size      %s in, %s out\n", size(e.BytesIn), size(e.BytesOut))
	}
	if g := e.Gate; g != nil {
		critical, matched, sent := gateCounts(*g)
		fmt.Fprintf(&b, "gate      %s; ", g.State)
		if critical > 0 {
			fmt.Fprintf(&b, "%d critical %s (priority 10) always sent; ", critical, plural(critical, "prompt", "prompts"))
		}
		fmt.Fprintf(&b, "%d matched the tags, %d of them sent; briefing %s\n", matched, sent, size(g.Bytes))
	}
	if p := e.Pipeline; p != nil {
		cache := "miss"
		if p.CacheHit {
			cache = "hit"
		}
		fmt.Fprintf(&b, "pipeline  %s (%s): %s → %s, cache %s\n", p.Model, strings.Join(p.Stages, ", "), size(p.BytesBefore), size(p.BytesAfter), cache)
	}
	if e.Upstream != "" {
		fmt.Fprintf(&b, "upstream  %s\n", e.Upstream)
	}
	b.WriteByte('\n')
	if len(e.Payload) == 0 {
		b.WriteString("No payload: this server records lengths only. Start it with --trace-content (or MCPCTL_TRACE=content) to see payloads.")
	} else {
		payload := []byte(e.Payload)
		if pretty, ok := prettyJSON(payload); ok {
			payload = pretty
		}
		b.WriteString("payload:\n")
		b.Write(payload)
	}
	return display(b.String()) // the payload is as the client sent it
}

// prettyJSON is a JSON payload indented, its strings decoded for reading: serve writes them
// escaped for any transport (🚀 as \ud83d\ude80, < as \u003c), which a person reads as noise.
// The members keep their order (the text is rewritten, never decoded into maps). What would act
// on the terminal or hide text stays escaped (terminalSafe). false: payload is not JSON.
func prettyJSON(payload []byte) ([]byte, bool) {
	var ind bytes.Buffer
	if json.Indent(&ind, payload, "", "  ") != nil {
		return nil, false
	}
	in := ind.Bytes()
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if in[i] != '"' {
			out = append(out, in[i])
			i++
			continue
		}
		// Indent's output is valid JSON: a string ends at the first quote no backslash escapes.
		j := i + 1
		for in[j] != '"' {
			if in[j] == '\\' {
				j++
			}
			j++
		}
		var str string
		if json.Unmarshal(in[i:j+1], &str) == nil {
			out = appendTerminalSafe(out, str)
		} else {
			out = append(out, in[i:j+1]...)
		}
		i = j + 1
	}
	return out, true
}

// appendTerminalSafe appends s as a JSON string literal that writes only what reads as itself
// on a terminal: emoji, accents and < as they are; control characters (C0, DEL, C1), the line
// and paragraph separators and the bidirectional controls escaped, so none moves the cursor,
// starts an escape sequence or reorders the text around it.
func appendTerminalSafe(out []byte, s string) []byte {
	out = append(out, '"')
	for _, r := range s {
		switch {
		case r == '"':
			out = append(out, `\"`...)
		case r == '\\':
			out = append(out, `\\`...)
		case r == '\n':
			out = append(out, `\n`...)
		case r == '\r':
			out = append(out, `\r`...)
		case r == '\t':
			out = append(out, `\t`...)
		case r < 0x20, r >= 0x7f && r < 0xa0, r == 0x2028, r == 0x2029, bidiControl(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		case unicode.Is(unicode.Cf, r) && r != 0x200d:
			// Invisible: zero-width spaces, soft hyphens, tag characters (U+E0000…, which
			// display would drop as an emoji's) would hide words in the very view that
			// inspects what a client received. The joiner inside 👨‍💻 is display's to drop.
			// Beyond U+FFFF as JSON writes it: a surrogate pair.
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = utf8.AppendRune(out, r)
		}
	}
	return append(out, '"')
}

// gateCounts splits a call's gate counts into the critical prompts sent (priority 10, sent
// whatever the tags) and the matched prompts with how many of them were sent, so that sent is
// never more than matched. A server that did not record Critical counted critical prompts in Sent
// only: what Sent has beyond Matched can only be critical ones.
func gateCounts(g traffic.Gate) (critical, matched, sent int) {
	sent = min(max(0, g.Sent-g.Critical), g.Matched)
	return g.Sent - sent, g.Matched, sent
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (s *trafficScreen) view() string {
	switch {
	case s.cfg.TrafficDir == "":
		return "No traffic directory is configured."
	case s.err != nil && len(s.events) == 0:
		return wrap("Traffic cannot be followed: "+s.err.Error()+"\n\nCheck that $XDG_STATE_HOME/mcpctl/traffic is a directory you own.", s.w)
	case len(s.events) == 0:
		// Only a server run with this user's state directory writes here: 'mcpctl demo' keeps its
		// traffic in a throw-away directory, so suggesting it left the screen empty.
		return "No traffic yet in\n  " + s.cfg.TrafficDir + "\n\n" + wrap("Every 'mcpctl serve' writes its requests, responses and notifications there "+
			"while it runs. Start your AI client: it runs the server from its MCP config ('mcpctl mcp-config' prints the entry). "+
			"Or send a server one request by hand:", s.w) + "\n\n  " + trafficExample + "\n\n" +
			wrap("Events appear here as they happen. 'mcpctl demo' does not write here: its server keeps its traffic in a directory of its own.", s.w)
	}
	if e := s.detail; e != nil {
		head := s.st.title.Render(cell(fmt.Sprintf("%s %s %s (esc closes)", e.Kind, e.Method, e.Name), s.w)) + "\n"
		if s.detailW == 0 {
			return head + fmt.Sprintf("Laying out the event (%s of payload)…", size(len(e.Payload)))
		}
		return head + s.vp.View() // at a new width, the last layout until this one's arrives
	}
	var b strings.Builder
	if s.filter.Focused() {
		b.WriteString(s.filter.View())
	} else {
		f := "f filters"
		if len(s.terms) > 0 {
			f = "filter: " + strings.Join(s.terms, " ") + " (esc clears)"
		}
		fmt.Fprintf(&b, "%d of %d events · %d sessions · %s", len(s.shown), len(s.events), len(s.sess), f)
	}
	b.WriteByte('\n')
	if s.badTerm != nil {
		b.WriteString(wrap(s.badTerm.Error()+". Enter applies the filter once it is corrected, esc keeps the one before.\n\n"+filterSyntax, s.w))
		return b.String()
	}
	b.WriteString(s.sparks())
	if len(s.shown) == 0 {
		// An empty table would not say whether the filter or the traffic is the cause.
		b.WriteString("\n" + wrap(fmt.Sprintf("None of the %d events matches the filter %s: f edits it, esc clears it.\n\n%s",
			len(s.events), strings.Join(s.terms, " "), filterSyntax), s.w))
		return b.String()
	}
	rows := make([]trafficRow, 0, s.l.height)
	for i := s.l.offset; i < min(len(s.shown), s.l.offset+s.l.height); i++ {
		rows = append(rows, s.row(s.events[s.shown[i]]))
	}
	cols := trafficColumns(rows, s.w)
	b.WriteString(s.st.title.Render(cell("  "+cols.line(trafficRow{"TIME", "SESS", "METHOD", "NAME", "MS", "STAT", "IN/OUT", "GATE/PIPE", false}, s.st), s.w)) + "\n")
	b.WriteString(s.l.render(s.st, s.w, true, func(i int) string { return cols.line(rows[i-s.l.offset], s.st) }))
	return b.String()
}

// trafficRow is one event's cells on the Traffic screen.
type trafficRow struct {
	time, sess, method, name, ms, status, inOut, extra string
	bad                                                bool
}

// notificationPrefix is the common part of every notification's method: the column shows it
// once and NAME the rest, which is what tells notifications apart.
const notificationPrefix = "notifications/"

func (s *trafficScreen) row(e traffic.Event) trafficRow {
	r := trafficRow{time: e.TS.In(s.cfg.Now().Location()).Format("15:04:05"), sess: e.Session, method: e.Method, name: e.Name,
		status: e.Status, inOut: size(e.BytesIn) + "/" + size(e.BytesOut), bad: e.Status == traffic.StatusError}
	if e.Kind == traffic.KindResponse {
		r.ms = fmt.Sprintf("%.0f", e.DurationMs)
	}
	r.status = statCell(e)
	r.method, r.name = methodCells(e)
	var extra []string
	if g := e.Gate; g != nil {
		critical, matched, sent := gateCounts(*g)
		gate := fmt.Sprintf("%s %d/%d", g.State, sent, matched)
		if critical > 0 {
			gate += fmt.Sprintf(" +%d crit", critical)
		}
		extra = append(extra, gate)
	}
	if p := e.Pipeline; p != nil {
		extra = append(extra, size(p.BytesBefore)+"→"+size(p.BytesAfter))
	}
	r.extra = strings.Join(extra, " ")
	return r
}

// statCell is what the STAT column shows of an event: a response's status, or the start of
// another's kind (request → "req", notification → "not").
func statCell(e traffic.Event) string {
	if e.Kind == traffic.KindResponse {
		return e.Status
	}
	return e.Kind[:min(3, len(e.Kind))]
}

// methodCells are what the METHOD and NAME columns show of an event: its method and name, but a
// notification's method once as "notifications", with the rest, which tells them apart, as NAME.
func methodCells(e traffic.Event) (method, name string) {
	if tail, ok := strings.CutPrefix(e.Method, notificationPrefix); ok && e.Name == "" {
		return strings.TrimSuffix(notificationPrefix, "/"), tail
	}
	return e.Method, e.Name
}

// trafficCols are the Traffic table's column widths for the rows on screen. Time, duration,
// status and sizes are short and read whole or not at all, so they always get what they need;
// the session, method, name and gate/pipeline columns share the rest (shareWidths).
type trafficCols struct{ sess, method, name, ms, inOut, extra int }

func trafficColumns(rows []trafficRow, w int) trafficCols {
	c := trafficCols{ms: len("MS"), inOut: len("IN/OUT")}
	need := []int{len("SESS"), len("METHOD"), len("NAME"), len("GATE/PIPE")}
	for _, r := range rows {
		c.ms, c.inOut = max(c.ms, len(r.ms)), max(c.inOut, displayWidth(r.inOut))
		for i, t := range []string{r.sess, r.method, r.name, r.extra} {
			need[i] = max(need[i], displayWidth(t))
		}
	}
	// The mark, time, ms, status (5) and sizes, and a space after each of the eight columns but the last.
	fixed := 2 + 8 + c.ms + 5 + c.inOut + 7
	got := shareWidths(need, w-fixed)
	c.sess, c.method, c.name, c.extra = got[0], got[1], got[2], got[3]
	return c
}

func (c trafficCols) line(r trafficRow, st styles) string {
	status := cell(r.status, 5)
	if r.bad {
		status = st.bad.Render(status)
	}
	return strings.Join([]string{cell(r.time, 8), cell(r.sess, c.sess), cell(r.method, c.method), cell(r.name, c.name),
		fmt.Sprintf("%*s", c.ms, r.ms), status, cell(r.inOut, c.inOut), cell(r.extra, c.extra)}, " ")
}

// sparks are the latency sparklines of the busiest methods.
func (s *trafficScreen) sparks() string {
	methods := make([]string, 0, len(s.latency))
	for m := range s.latency {
		methods = append(methods, m)
	}
	sort.Slice(methods, func(i, j int) bool {
		if s.calls[methods[i]] != s.calls[methods[j]] {
			return s.calls[methods[i]] > s.calls[methods[j]]
		}
		return methods[i] < methods[j]
	})
	var b strings.Builder
	for _, m := range methods[:s.sparkRows()] {
		l := s.latency[m]
		var hi float64
		for _, v := range l {
			hi = max(hi, v)
		}
		fmt.Fprintf(&b, "%s %s last %.0fms max %.0fms (%d calls)\n", cell(m, 22), cell(sparkline(l), sparkPoints), l[len(l)-1], hi, s.calls[m])
	}
	return b.String()
}
