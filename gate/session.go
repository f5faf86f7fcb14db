package gate

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Kind says which call produced a briefing.
type Kind string

// The kinds of briefing.
const (
	KindBegin     Kind = "begin_session" // the assistant called begin_session
	KindRead      Kind = "read_prompts"  // the assistant called read_prompts
	KindIntercept Kind = "intercept"     // a real tool was called while the session was gated
)

// Briefing is what a gate call answers: the selection plus what the renderer needs to say.
type Briefing struct {
	Kind    Kind
	Project string // the project's display name
	Tool    string // the intercepted tool, for KindIntercept
	// PromptIndex is IndexText of the index the briefing came from, for {{prompt_index}}.
	PromptIndex string
	// Prompts is how many prompts the project has: with none, there is nothing to match or
	// fetch, and the briefing says so instead of asking for other tags.
	Prompts int
	Selection
	// Ungated is true when this call ungated the session: the caller lists the full tool set
	// and sends notifications/tools/list_changed.
	Ungated bool
}

// Session is the gate state of one MCP session: whether it is gated, the tags it has given and
// the prompts already sent, in full or as tables of contents. The state only moves one way,
// gated → ungated.
//
// A Session is safe for concurrent use: tool calls run concurrently, and of several calls racing
// on a gated session exactly one ungates it and gets the intercept briefing. Briefings are made
// one at a time (a re-ranking may wait on an LLM), while Gated and ToolVisible never wait for
// one: tools/list and the intercept check stay instant.
type Session struct {
	briefing sync.Mutex // held for a whole briefing, so each sees what the one before sent
	rr       Reranker   // nil: deterministic; set before use

	mu    sync.Mutex // the state below
	mode  GateMode
	gated bool
	tags  []string
	seen  map[string]bool // tags
	sent  map[string]bool // prompt ids, sent in full
	// toc is the prompt ids whose tables of contents were sent: not sent again by tags, but
	// whole when asked for by name (Select's rules). An id in sent too was sent whole since.
	toc map[string]bool
}

// NewSession starts a session for a project: gated when the project is (NoProject is not).
func NewSession(p Project) *Session {
	return &Session{mode: p.GateMode, gated: p.Gated, seen: map[string]bool{}, sent: map[string]bool{}, toc: map[string]bool{}}
}

// SetReranker makes the session's briefings re-rank their candidates with rr (SelectReranked);
// nil keeps them deterministic. Call it before the session is used.
func (s *Session) SetReranker(rr Reranker) { s.rr = rr }

// The gate's own tools.
const (
	ToolBeginSession = "begin_session"
	ToolReadPrompts  = "read_prompts"
)

// ToolVisible says whether tools/list shows a tool now, for the server's tool filter:
//   - gated, hard mode: only begin_session;
//   - gated, soft mode: every tool (the first real call is intercepted);
//   - ungated: every tool but begin_session (read_prompts takes its place).
func (s *Session) ToolVisible(tool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.gated:
		return tool != ToolBeginSession
	case s.mode == SoftMode:
		return true
	default:
		return tool == ToolBeginSession
	}
}

// Gated reports whether the session is still gated.
func (s *Session) Gated() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gated
}

// Ungate opens the session without a briefing. It reports whether this call changed the state.
func (s *Session) Ungate() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.gated
	s.gated = false
	return was
}

// Tags lists every normalised tag the session has given, first use first.
func (s *Session) Tags() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tags...)
}

// WasSent reports whether the prompt with this id was sent in full in this session.
func (s *Session) WasSent(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[id]
}

// Received records prompts the model received in full by another way: a tool result that
// carries their content (get_prompt, or list_prompts and search_prompts with includeContent).
// Later briefings name them as already provided instead of sending them again.
func (s *Session) Received(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.sent[id] = true
	}
}

// Begin answers begin_session: it matches tags against the index within the project's budget,
// records the prompts it sends, and ungates the session. Called again after ungating it never
// re-sends a prompt: those are reported as already provided.
func (s *Session) Begin(ix *Index, tags []string) Briefing {
	return s.BeginContext(context.Background(), ix, Task{Tags: tags})
}

// BeginContext is Begin with a context for the re-ranking (SetReranker), and the task's words
// for it: the context's deadline and cancellation end the wait for the model, and the
// deterministic order is sent. task.Call is not read: begin_session is not an intercept.
func (s *Session) BeginContext(ctx context.Context, ix *Index, task Task) Briefing {
	s.briefing.Lock()
	defer s.briefing.Unlock()
	return s.brief(ctx, ix, KindBegin, Task{Tags: task.Tags, Text: task.Text})
}

// Read answers read_prompts: new matches only, never a prompt already sent in this session. A
// gated session (a soft-mode client may call it first) is ungated, as by begin_session.
func (s *Session) Read(ix *Index, tags []string) Briefing {
	return s.ReadContext(context.Background(), ix, Task{Tags: tags})
}

// ReadContext is Read with a context and the task's words for the re-ranking, as BeginContext.
func (s *Session) ReadContext(ctx context.Context, ix *Index, task Task) Briefing {
	s.briefing.Lock()
	defer s.briefing.Unlock()
	return s.brief(ctx, ix, KindRead, Task{Tags: task.Tags, Text: task.Text})
}

// Intercept is called before a real tool runs. On a gated session it takes tags from the tool
// name and its JSON arguments (Index.InterceptTags), builds the briefing from them, ungates the session and
// returns true: the caller runs the tool and puts the rendered briefing before its result. On
// an ungated session it does nothing and returns false.
func (s *Session) Intercept(ix *Index, tool string, args json.RawMessage) (Briefing, bool) {
	return s.InterceptContext(context.Background(), ix, tool, args)
}

// InterceptContext is Intercept with a context for the re-ranking, as BeginContext.
func (s *Session) InterceptContext(ctx context.Context, ix *Index, tool string, args json.RawMessage) (Briefing, bool) {
	s.briefing.Lock()
	defer s.briefing.Unlock()
	if !s.Gated() {
		return Briefing{}, false
	}
	b := s.brief(ctx, ix, KindIntercept, Task{Tags: ix.InterceptTags(tool, args), Call: callText(tool, args)})
	b.Tool = tool
	return b, true
}

// Without is b for an intercepted call whose own result carries the prompts in ids in full:
// the briefing before that result names them as already provided instead of sending or listing
// them a second time. Priority-10 prompts stay, framed as the rules they are. The selection was
// made before the call ran (a write could otherwise find the prompt it creates), so the budget
// they free stays unused.
func (b Briefing) Without(ids []string) Briefing {
	if len(ids) == 0 {
		return b
	}
	var carried []Entry
	in := func(e Entry) bool {
		return slices.ContainsFunc(ids, func(id string) bool { return strings.EqualFold(id, e.ID) })
	}
	drop := func(es []Entry, name bool) []Entry {
		return slices.DeleteFunc(slices.Clone(es), func(e Entry) bool {
			if !in(e) {
				return false
			}
			if name {
				carried = append(carried, e)
			}
			return true
		})
	}
	b.Full, b.TOC, b.Listed, b.Weak = drop(b.Full, true), drop(b.TOC, true), drop(b.Listed, true), drop(b.Weak, true)
	b.AlreadyTOC = drop(b.AlreadyTOC, true) // the result carries them whole
	b.Remaining = drop(b.Remaining, false)  // the index of what was not sent: these were
	b.AlreadySent = append(carried, b.AlreadySent...)
	return b
}

// NameLast is b with its last n prompts sent in full, then as contents, named over the budget
// instead, ahead of those it named already: what a briefing leaves out, the least relevant first,
// when it must fit one tool result beside the project's texts or an intercepted call's own
// result. Priority-10 prompts stay. Session.Unsent records that they were not sent.
func (b Briefing) NameLast(n int) Briefing {
	full := max(len(b.Full)-n, 0)
	toc := max(len(b.TOC)-(n-(len(b.Full)-full)), 0)
	b.Listed = slices.Concat(b.Full[full:], b.TOC[toc:], b.Listed)
	b.Full, b.TOC = b.Full[:full:full], b.TOC[:toc:toc]
	return b
}

// Unsent records that the prompts chosen sends, in full or as contents, and b (chosen fitted to
// what one result may carry: NameLast) does not, were not sent: a read_prompts sends them. With
// an empty b (the briefing failed), nothing chosen was sent.
func (s *Session) Unsent(chosen, b Briefing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	forget := func(from, kept []Entry, record map[string]bool) {
		for _, e := range from {
			if !slices.ContainsFunc(kept, func(k Entry) bool { return k.ID == e.ID }) {
				// brief selected none it had recorded: an entry sent before is never chosen again.
				delete(record, e.ID)
			}
		}
	}
	forget(chosen.Critical, b.Critical, s.sent)
	forget(chosen.CriticalNamed, b.CriticalNamed, s.sent)
	forget(chosen.Full, b.Full, s.sent)
	forget(chosen.CriticalTOC, b.CriticalTOC, s.toc)
	forget(chosen.TOC, b.TOC, s.toc)
}

// brief runs one gate call; s.briefing is held, so no other briefing changes s.sent meanwhile
// (Received may: a prompt a result carries during the selection can be sent once more). The
// selection is made without s.mu: a re-ranking may wait on the model.
func (s *Session) brief(ctx context.Context, ix *Index, kind Kind, task Task) Briefing {
	p := ix.Project()
	s.mu.Lock()
	sent, toc := maps.Clone(s.sent), maps.Clone(s.toc)
	s.mu.Unlock()
	sel := ix.selectFor(ctx, task, p.ByteBudget, p.IndexCap, sent, toc, s.rr)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range sel.Tags {
		if !s.seen[t] {
			s.seen[t] = true
			s.tags = append(s.tags, t)
		}
	}
	// A priority-10 prompt named is not repeated either: the briefing said how to read it.
	for _, es := range [][]Entry{sel.Critical, sel.CriticalNamed, sel.Full} {
		for _, e := range es {
			s.sent[e.ID] = true
		}
	}
	// Nor is a table of contents: the model has it, and reads the sections it needs.
	for _, es := range [][]Entry{sel.CriticalTOC, sel.TOC} {
		for _, e := range es {
			s.toc[e.ID] = true
		}
	}
	b := Briefing{Kind: kind, Project: p.DisplayName(), PromptIndex: IndexText(ix), Prompts: ix.Len(), Selection: sel, Ungated: s.gated}
	s.gated = false
	return b
}
