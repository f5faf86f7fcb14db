package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Renderer turns briefings and the index into the markdown a client reads. Its zero value uses
// the built-in texts and names no tools.
type Renderer struct {
	Texts Texts    // overrides of the gate texts (SystemTexts of the current snapshot); nil: defaults
	Tools []string // the tools available once the session is ungated, for {{tools}}
	// TOC turns a prompt's body into the table of contents a briefing sends for it (an entry
	// in Selection.TOC); nil sends the body.
	TOC func(ctx context.Context, e Entry, body string) string
	// Note ends the instructions, kept whole within ClientTextLimit (the index gives way): a
	// fact about this session the model must not miss, such as the project's servers not being
	// started.
	Note string
}

// ClientTextLimit is the length, in UTF-16 code units as JavaScript counts a string, that the
// initialize instructions and a tool's description are kept within: Claude Code cuts both at
// 2,048 silently, so an index past it never reached the model, nor its topics at the end.
const ClientTextLimit = 2048

// Instructions are the initialize instructions: for a gated session the gate-instructions text;
// for an ungated one the session greeting, the index and the read_prompts reminder. The index
// (and {{prompt_index}}) is cut to what ClientTextLimit leaves of the rest with the variable
// empty (see IndexTextWithin). unknown lists template variables the texts use but that do not
// exist, for the caller to log.
func (r Renderer) Instructions(ix *Index, gated bool) (text string, unknown []string) {
	vars := r.vars(ix.Project().DisplayName(), nil, nil, 0)
	limit := ClientTextLimit - textLen(r.Note)
	if gated {
		rest, _ := Expand(r.Texts.Get(TextInstructions), vars)
		vars[VarPromptIndex] = IndexTextWithin(ix, limit-textLen(rest))
		text, unknown = Expand(r.Texts.Get(TextInstructions), vars)
		return text + r.Note, unknown
	}
	var u []string
	head := func() string { return r.expand(r.Texts.Get(TextGreeting), vars, &u) + "\n\nPrompts in this project:\n" }
	tail := func() string { return "\n\n" + r.expand(r.Texts.Get(TextReminder), vars, &u) }
	index := IndexTextWithin(ix, limit-textLen(head())-textLen(tail()))
	vars[VarPromptIndex] = index
	return head() + index + tail() + r.Note, u
}

// IndexText is the index as texts show it: Index.Lines under the project's cap, one per line,
// a line saying how many prompts the cap left out, and the project's vocabulary (Index.Topics),
// so an assistant picks tags that exist.
func IndexText(ix *Index) string {
	lines := ix.Lines(ix.Project().IndexCap)
	return indexText(lines, ix.Len()-len(lines), topicsLine(ix))
}

// IndexTextWithin is IndexText in at most room characters (as textLen counts them), for a text
// a client cuts: the topics whole, since they are what an assistant picks its tags from, then
// as many lines as fit in index order (the most important prompts first), and how many are left
// out. Without room for the topics it shows lines alone, and "" without room for anything.
func IndexTextWithin(ix *Index, room int) string {
	lines := ix.Lines(ix.Project().IndexCap)
	topics := topicsLine(ix)
	if s := indexText(lines, ix.Len()-len(lines), topics); textLen(s) <= room {
		return s
	}
	// The text of the first k lines is measured, not made, for each k: with indexCap 1000,
	// making it each time took 70 ms.
	joined := make([]int, len(lines)+1) // joined[k]: the first k lines and their newlines
	for k, l := range lines {
		joined[k+1] = joined[k] + textLen(l) + 1
	}
	for _, t := range []string{topics, ""} {
		for k := len(lines) - 1; k >= 0; k-- {
			// linesText: the lines, then "\n" and the line counting the rest (never 0 here).
			n := joined[k] + textLen(linesText(nil, ix.Len()-k, "")) + textLen(t)
			if n <= room {
				return indexText(lines[:k], ix.Len()-k, t)
			}
		}
	}
	return ""
}

func indexText(lines []string, omitted int, topics string) string {
	return linesText(lines, omitted, "(the library has no prompts for this project yet)") + topics
}

func topicsLine(ix *Index) string {
	if t := ix.Topics(); len(t) > 0 {
		return "\n\nTopics the prompts cover (good tags): " + strings.Join(t, ", ")
	}
	return ""
}

// textLen is the length of s as JavaScript counts it (UTF-16 code units), which is how clients
// measure the texts they cut.
func textLen(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// BeginSessionDescription is the begin_session tool's description, within ClientTextLimit. It
// carries the index because many clients drop the initialize instructions.
func BeginSessionDescription(ix *Index) string {
	head := "Start your session with 3 to 10 tags describing your task (for example [\"sql\", \"migrations\", \"error handling\"]). " +
		"You receive the project's critical rules, the prompts that match your tags, and an index of the rest. " +
		"Required before the other tools of " + ix.Project().DisplayName() + ".\n\nPrompts in this project:\n"
	return head + IndexTextWithin(ix, ClientTextLimit-textLen(head))
}

// ReadPromptsDescription is the read_prompts tool's description.
const ReadPromptsDescription = "Fetch more of the project's prompts (rules, conventions, decisions) by tags. " +
	"Use it whenever your work moves into an area you have not been briefed on: it is better to check than to guess. " +
	"Prompts already sent in this session are not repeated."

// Briefing renders a briefing as markdown. Its structure, section by section (each present only
// when it has something to say):
//
//	[gate-intercept-preamble]                       intercepted calls only
//	[session-greeting]                              begin_session and intercepted calls
//	## Critical rules                               priority-10 prompts, in full
//	## Prompts matching your task (tags: …)         matched prompts, in full; or "No prompt matched",
//	                                                or, a Reranker having chosen none, that none was
//	                                                judged needed
//	## This project has no prompts yet              in place of all below, for a project without any
//	## Also matching, over the byte budget          index lines
//	## Weaker matches, not sent                     index lines of the best matches below the floor
//	## Already provided in this session             names, not repeated
//	[gate-encouragement]                            begin_session and intercepted calls
//	## Other prompts + [read-prompts-reminder]      read_prompts
//
// Each prompt in full is its content, verbatim, between <prompt name="NAME"> and </prompt>
// lines; one sent as a table of contents between <prompt name="NAME" toc="true"> and </prompt>;
// every other prompt named is a line "- NAME: summary". The bodies come from load, in one call;
// a prompt whose body load cannot find (deleted since the index was built) is named instead.
// unknown lists template variables the texts use but that do not exist; err is load's.
func (r Renderer) Briefing(ctx context.Context, b Briefing, load Bodies) (text string, unknown []string, err error) {
	var ids []string
	for _, es := range [][]Entry{b.Critical, b.CriticalTOC, b.Full, b.TOC} {
		for _, e := range es {
			ids = append(ids, e.ID)
		}
	}
	bodies := map[string]string{}
	if len(ids) > 0 {
		if load == nil {
			return "", nil, fmt.Errorf("gate: render briefing: no body loader; pass one (LibraryBodies for a library in memory)")
		}
		if bodies, err = load(ctx, ids); err != nil {
			return "", nil, fmt.Errorf("gate: render briefing: load prompt bodies: %w", err)
		}
	}
	full := func(e Entry, toc bool) string {
		body, ok := bodies[e.ID]
		if !ok {
			return e.Line() + " (no longer in the library)"
		}
		if toc && r.TOC != nil {
			body = r.TOC(ctx, e, body)
		}
		return promptBlock(e.Name, body, toc)
	}
	var matched []string
	for _, e := range slices.Concat(b.Critical, b.CriticalTOC, b.CriticalNamed) {
		matched = append(matched, e.Line())
	}
	for _, e := range b.Full {
		matched = append(matched, e.Line())
	}
	for _, e := range b.TOC {
		matched = append(matched, e.Line())
	}
	for _, e := range b.Listed {
		matched = append(matched, e.Line())
	}
	var remaining []string
	for _, e := range b.Remaining {
		remaining = append(remaining, e.Line())
	}
	vars := r.vars(b.Project, matched, remaining, b.Omitted)
	vars[VarPromptIndex] = b.PromptIndex
	if len(b.TOC)+len(b.CriticalTOC)+len(b.CriticalNamed)+len(b.Listed)+b.MoreListed+len(b.Weak)+len(b.AlreadyTOC)+b.TOCHeld > 0 {
		// The model does not have everything: some prompts it has only as contents, or named.
		vars[VarRemainingPrompts] = linesText(remaining, b.Omitted, "(none: every other prompt is above, or was sent to you earlier in this session)")
	}

	var out []string // sections, joined by blank lines
	var u []string
	if b.Kind == KindIntercept {
		out = append(out, r.expand(r.Texts.Get(TextInterceptPreamble), vars, &u))
	}
	if b.Kind != KindRead {
		out = append(out, r.expand(r.Texts.Get(TextGreeting), vars, &u))
	}
	if len(b.Critical)+len(b.CriticalTOC)+len(b.CriticalNamed) > 0 {
		out = append(out, "## Critical rules\n\nAlways included, whatever your task. Follow them.")
		for _, e := range b.Critical {
			out = append(out, full(e, false))
		}
		for _, e := range b.CriticalTOC {
			out = append(out, full(e, true))
		}
		if len(b.CriticalNamed) > 0 {
			out = append(out, "Too long to include here; read each with get_prompt (its id; a long one comes in pages) before you start:\n"+
				criticalLines(b.CriticalNamed))
		}
	}
	tags := "no tags"
	if len(b.Tags) > 0 {
		tags = "tags: " + strings.Join(b.Tags, ", ")
	}
	heading := "## Prompts matching your task (" + tags + ")"
	if b.Kind == KindRead {
		heading = "## Prompts matching your tags (" + tags + ")"
	}
	if b.Prompts == 0 {
		// Other tags or another read_prompts would find nothing either.
		out = append(out, "## This project has no prompts yet\n\nThere is nothing to read before you start. "+
			"Prompts saved to the project later are found by read_prompts.")
		return strings.Join(out, "\n\n") + "\n", u, nil
	}
	switch {
	case len(b.Full) > 0 || len(b.TOC) > 0:
		out = append(out, heading)
		for _, e := range b.Full {
			out = append(out, full(e, false))
		}
		for _, e := range b.TOC {
			out = append(out, full(e, true))
		}
	case len(b.Listed) == 0 && b.MoreListed == 0 && len(b.AlreadySent) == 0 && len(b.AlreadyTOC) == 0 && len(b.Weak) > 0:
		// Only a Reranker leaves this: it passed over every candidate, which lead the weak
		// matches below.
		out = append(out, heading+"\n\nNone of the matches was judged needed for your task; they are named below with their summaries.")
	case len(b.Listed) == 0 && b.MoreListed == 0 && len(b.AlreadySent) == 0 && len(b.AlreadyTOC) == 0 && len(b.Tags) == 0 && b.Kind == KindIntercept:
		// A call without words (health_check, a list without a query): nothing was asked, so
		// nothing failed to match.
		out = append(out, "## Prompts for your task\n\nThis call gave no words to match the project's prompts on. "+
			"Before you work, fetch what your task needs with read_prompts, the words of your task as tags; the index below names the prompts.")
	case len(b.Listed) == 0 && b.MoreListed == 0 && len(b.AlreadySent) == 0 && len(b.AlreadyTOC) == 0:
		// Without a Reranker the best match is always above the floor, so it would be sent,
		// listed or already provided.
		out = append(out, heading+"\n\nNo new prompt matched. Try other tags: the words of your task, the area of the code, the kind of change.")
	}
	if len(b.Listed) > 0 {
		// A prompt no briefing can carry, whole or as its contents, is for get_prompt: asking
		// read_prompts again would list it again.
		lines, later := make([]string, len(b.Listed)), b.MoreListed
		for i, e := range b.Listed {
			lines[i] = e.Line()
			if neverCarried(&e, b.Room) {
				lines[i] += fmt.Sprintf(" (id %s, %d KB: more than a briefing carries)", e.ID, (e.Bytes+1023)/1024)
			} else {
				later++
			}
		}
		how := "Not included in full. Call read_prompts again with the same tags for the next ones (what was sent is skipped), or find one with search_prompts and read it with get_prompt:\n"
		if later == 0 {
			how = "Not included: each is more than a briefing carries. Read the ones you need with get_prompt and the id given:\n"
		}
		out = append(out, "## Also matching, over the byte budget\n\n"+how+linesText(lines, b.MoreListed, ""))
	}
	if len(b.Weak) > 0 {
		what := "your task"
		if b.Kind == KindRead {
			what = "your tags"
		}
		out = append(out, "## Weaker matches, not sent\n\nThese matched "+what+", but not closely enough to be sent. If a summary touches what you are doing, read that prompt with read_prompts, its name as a tag:\n"+
			linesText(linesOf(b.Weak), 0, ""))
	}
	if len(b.AlreadySent)+len(b.AlreadyTOC) > 0 {
		var names []string
		for _, e := range b.AlreadySent {
			names = append(names, "- "+e.Name)
		}
		for _, e := range b.AlreadyTOC {
			// The contents named the sections; the whole is one call away too.
			names = append(names, "- "+e.Name+": its table of contents only; read_section reads its sections, get_prompt (id "+e.ID+") the whole")
		}
		section := "## Already provided in this session\n\nThese match too; they were sent to you earlier in this session and are not repeated:\n"
		if b.Kind == KindIntercept {
			// A gated session's first call has no earlier briefing: what it already provides is
			// what the call's own result carries (Briefing.Without).
			section = "## In this call's result\n\nThese match your task too; the result below carries them in full, so they are not repeated here:\n"
		}
		out = append(out, section+strings.Join(names, "\n"))
	}
	if b.Kind == KindRead {
		out = append(out, "## Other prompts\n\n"+vars[VarRemainingPrompts])
		out = append(out, r.expand(r.Texts.Get(TextReminder), vars, &u))
	} else {
		out = append(out, r.expand(r.Texts.Get(TextEncouragement), vars, &u))
	}
	return strings.Join(out, "\n\n") + "\n", u, nil
}

func (r Renderer) vars(project string, matched, remaining []string, omitted int) map[string]string {
	tools := "every tool this server lists"
	if len(r.Tools) > 0 {
		tools = strings.Join(r.Tools, ", ")
	}
	return map[string]string{
		VarProjectName:      project,
		VarTools:            tools,
		VarMatchedPrompts:   linesText(matched, 0, "(none)"),
		VarRemainingPrompts: linesText(remaining, omitted, "(none: you have everything in the index)"),
		VarPromptIndex:      "",
	}
}

func (r Renderer) expand(tmpl string, vars map[string]string, unknown *[]string) string {
	s, u := Expand(tmpl, vars)
	for _, n := range u {
		dup := false
		for _, have := range *unknown {
			dup = dup || have == n
		}
		if !dup {
			*unknown = append(*unknown, n)
		}
	}
	return strings.TrimRight(s, "\n")
}

func linesOf(es []Entry) []string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Line()
	}
	return lines
}

// linesText joins index lines, adds a note for what a cap left out, and says empty when there
// is nothing.
func linesText(lines []string, omitted int, empty string) string {
	if len(lines) == 0 && omitted == 0 {
		return empty
	}
	s := strings.Join(lines, "\n")
	if omitted > 0 {
		if s != "" {
			s += "\n"
		}
		s += fmt.Sprintf("- … and %d more: find them with read_prompts or search_prompts", omitted)
	}
	return s
}

// promptBlock renders a prompt's body in its block. The content is kept verbatim between
// <prompt> lines: its own headings would otherwise read as sections of the briefing.
func promptBlock(name, body string, toc bool) string {
	attr := ""
	if toc {
		attr = ` toc="true"`
	}
	return "<prompt name=\"" + name + "\"" + attr + ">\n" + strings.TrimRight(body, "\n") + "\n</prompt>"
}

// criticalLines names priority-10 prompts a briefing could not carry, with what get_prompt
// needs to read them.
func criticalLines(es []Entry) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = fmt.Sprintf("%s (id %s, %d KB)", e.Line(), e.ID, (e.Bytes+1023)/1024)
	}
	return strings.Join(lines, "\n")
}
