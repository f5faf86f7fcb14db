package gate

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/schemas"
)

func TestSessionStates(t *testing.T) {
	type step struct {
		op          string // begin, read, intercept, ungate
		wantChanged bool   // the call ungated the session (Briefing.Ungated, Intercept's ok, Ungate's result)
		wantGated   bool   // Gated() afterwards
	}
	tests := []struct {
		name  string
		gated bool
		steps []step
	}{
		{"begin ungates", true, []step{{"begin", true, false}, {"read", false, false}, {"begin", false, false}}},
		{"intercept ungates once", true, []step{{"intercept", true, false}, {"intercept", false, false}, {"read", false, false}}},
		{"read while gated ungates", true, []step{{"read", true, false}, {"intercept", false, false}}},
		{"explicit ungate", true, []step{{"ungate", true, false}, {"ungate", false, false}, {"begin", false, false}}},
		{"project not gated starts ungated", false, []step{{"intercept", false, false}, {"begin", false, false}}},
	}
	ix := buildIndex(t, 1000, spec{"Sql", 5, sized("sql", 10)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ix.Project()
			p.Gated = tt.gated
			s := NewSession(p)
			if got := s.Gated(); got != tt.gated {
				t.Fatalf("new session: Gated() = %v, want %v", got, tt.gated)
			}
			for i, st := range tt.steps {
				var changed bool
				switch st.op {
				case "begin":
					changed = s.Begin(ix, []string{"sql"}).Ungated
				case "read":
					changed = s.Read(ix, []string{"sql"}).Ungated
				case "intercept":
					var b Briefing
					b, changed = s.Intercept(ix, "search_prompts", json.RawMessage(`{"query":"sql"}`))
					if changed && (b.Kind != KindIntercept || b.Tool != "search_prompts" || !b.Ungated) {
						t.Errorf("step %d: intercept briefing %+v", i, b)
					}
				case "ungate":
					changed = s.Ungate()
				}
				if changed != st.wantChanged {
					t.Errorf("step %d (%s): changed = %v, want %v", i, st.op, changed, st.wantChanged)
				}
				if got := s.Gated(); got != st.wantGated {
					t.Errorf("step %d (%s): Gated() = %v, want %v", i, st.op, got, st.wantGated)
				}
			}
		})
	}
}

func TestSessionNeverResends(t *testing.T) {
	ix := buildIndex(t, 1000,
		spec{"Rules", 10, sized("rules", 10)},
		spec{"Sql", 5, sized("sql", 10)},
		spec{"Go", 5, sized("go", 10)},
	)
	s := NewSession(ix.Project())
	b := s.Begin(ix, []string{"sql", "SQL", " "})
	if got, want := names(b.Sent()), []string{"rules", "sql"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("begin sent %q, want %q", got, want)
	}
	if b.Kind != KindBegin || b.Project != "demo" {
		t.Errorf("briefing kind %q project %q", b.Kind, b.Project)
	}
	r := s.Read(ix, []string{"sql", "go"})
	if got := names(r.Full); !reflect.DeepEqual(got, []string{"go"}) {
		t.Errorf("read sent %q, want only the new match [go]", got)
	}
	if got := names(r.AlreadySent); !reflect.DeepEqual(got, []string{"sql"}) {
		t.Errorf("read reported %q as already provided, want [sql]", got)
	}
	if len(r.Critical) != 0 {
		t.Errorf("read re-sent the critical prompts %q", names(r.Critical))
	}
	for _, n := range []string{"rules", "sql", "go"} {
		if e, _ := ix.ByName(n); !s.WasSent(e.ID) {
			t.Errorf("WasSent(%s) = false", n)
		}
	}
	if got, want := s.Tags(), []string{"sql", "go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Tags() = %q, want %q", got, want)
	}
}

// Concurrent calls on a gated session: exactly one is intercepted. Run with -race.
func TestSessionConcurrentIntercept(t *testing.T) {
	ix := buildIndex(t, 1000, spec{"Sql", 5, sized("sql", 10)})
	s := NewSession(ix.Project())
	const calls = 32
	results := make(chan bool, calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			_, ok := s.Intercept(ix, "search_prompts", json.RawMessage(`{"query":"sql"}`))
			results <- ok
			s.Read(ix, []string{"sql"})
		})
	}
	wg.Wait()
	close(results)
	n := 0
	for ok := range results {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d calls were intercepted, want exactly 1", n)
	}
}

func TestToolVisible(t *testing.T) {
	tools := []string{ToolBeginSession, ToolReadPrompts, "search_prompts"}
	tests := []struct {
		name  string
		gated bool
		mode  GateMode
		open  bool // ungate first
		want  []string
	}{
		{"hard, gated", true, HardMode, false, []string{ToolBeginSession}},
		{"soft, gated", true, SoftMode, false, tools},
		{"hard, ungated", true, HardMode, true, []string{ToolReadPrompts, "search_prompts"}},
		{"soft, ungated", true, SoftMode, true, []string{ToolReadPrompts, "search_prompts"}},
		{"not gated", false, HardMode, false, []string{ToolReadPrompts, "search_prompts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NoProject()
			p.Gated, p.GateMode = tt.gated, tt.mode
			s := NewSession(p)
			if tt.open {
				s.Ungate()
			}
			var got []string
			for _, tool := range tools {
				if s.ToolVisible(tool) {
					got = append(got, tool)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("visible %q, want %q", got, tt.want)
			}
		})
	}
}

// What did not fit the budget comes with the next read_prompts of the same tags, since what was
// sent no longer takes room; a prompt larger than the budget never does.
func TestSessionReadPagesThroughMatches(t *testing.T) {
	ix := buildIndex(t, 100,
		spec{"Sql A", 5, sized("sql", 60)},
		spec{"Sql B", 5, sized("sql", 60)},
		spec{"Sql C", 5, sized("sql", 60)},
		spec{"Sql Huge", 5, sized("sql", 500)},
	)
	s := NewSession(ix.Project())
	var got [][]string
	for range 4 {
		got = append(got, names(s.Read(ix, []string{"sql"}).Full))
	}
	want := [][]string{{"sql-a"}, {"sql-b"}, {"sql-c"}, {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("successive reads sent %q, want %q", got, want)
	}
	if last := s.Read(ix, []string{"sql"}); !reflect.DeepEqual(names(last.Listed), []string{"sql-huge"}) {
		t.Errorf("the oversized prompt: listed %q, want [sql-huge]", names(last.Listed))
	}
}

// What a call's result carries in full is not sent by the briefing before it (Without), and
// what any result carried is not sent by a later briefing (Received).
func TestSessionCarriedPrompts(t *testing.T) {
	ix := buildIndex(t, 1000, spec{"Rules", 10, sized("rules", 20)}, spec{"Sql Style", 5, sized("sql style", 30)},
		spec{"Sql Migrations", 5, sized("sql migrations", 30)}, spec{"Deploy", 5, sized("deploy", 30)})
	style, _ := ix.ByName("sql-style")
	rules, _ := ix.ByName("rules")
	deploy, _ := ix.ByName("deploy")
	p := ix.Project()
	p.Gated = true

	s := NewSession(p)
	b, ok := s.Intercept(ix, "search_prompts", json.RawMessage(`{"query":"sql"}`))
	if !ok || !containsEntry(b.Full, style.ID) || !containsEntry(b.Remaining, deploy.ID) {
		t.Fatalf("intercept sent %v, left %v; want sql-style sent and deploy left", b.Full, b.Remaining)
	}
	b = b.Without([]string{strings.ToLower(style.ID), rules.ID, deploy.ID})
	if containsEntry(b.Full, style.ID) || len(b.Full) != 1 || containsEntry(b.Remaining, deploy.ID) {
		t.Errorf("Without left full %v, remaining %v; want only sql-migrations sent and deploy not listed", b.Full, b.Remaining)
	}
	if !containsEntry(b.Critical, rules.ID) {
		t.Errorf("Without took the priority-10 prompt out of the critical rules: %v", b.Critical)
	}
	if len(b.AlreadySent) != 1 || !containsEntry(b.AlreadySent, style.ID) {
		t.Errorf("Without: already sent %v, want the carried match sql-style alone", b.AlreadySent)
	}
	text, _ := render(t, Renderer{}, ix, b)
	if strings.Contains(text, "About sql style") || !strings.Contains(text, "## In this call's result") ||
		!strings.Contains(text, "the result below carries them in full") || strings.Contains(text, "- deploy:") {
		t.Errorf("briefing sends or lists a carried prompt, or does not say where it is:\n%s", text)
	}

	s = NewSession(ix.Project())
	s.Received(style.ID)
	r := s.Read(ix, []string{"sql"})
	if containsEntry(r.Full, style.ID) || !containsEntry(r.AlreadySent, style.ID) {
		t.Errorf("after Received: full %v, already sent %v; want sql-style named as already sent", r.Full, r.AlreadySent)
	}
	if !s.WasSent(style.ID) {
		t.Error("WasSent(received prompt) = false")
	}
}

func containsEntry(es []Entry, id string) bool {
	return slices.ContainsFunc(es, func(e Entry) bool { return e.ID == id })
}

// Priority-10 prompts are always in a briefing, but a briefing is one tool result: the ones that
// do not fit wholeBriefing in full go as their tables of contents or by name, the shortest
// sent in full first, and none is repeated by a later read_prompts.
func TestSessionBoundsLongCriticalPrompts(t *testing.T) {
	ix := buildIndex(t, 100_000,
		spec{"Runbook One", 10, sized("deploys", 45_000)},
		spec{"Runbook Two", 10, sized("deploys", 45_000)},
		spec{"Runbook Three", 10, sized("deploys", 45_000)},
		spec{"Golden Rules", 10, "Never push to main."},
		spec{"Deploy Checklist", 5, "Check the deploy dashboards."},
	)
	for i := range ix.entries {
		if ix.entries[i].Name == "runbook-three" {
			ix.entries[i].TOCBytes = 300
		}
	}
	s := NewSession(ix.Project())
	b := s.Begin(ix, []string{"deploy"})
	names := func(es []Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.Name)
		}
		slices.Sort(out)
		return out
	}
	if got := names(b.Critical); !slices.Equal(got, []string{"golden-rules", "runbook-one"}) {
		t.Errorf("sent in full: %v, want the shortest that fit: golden-rules, runbook-one", got)
	}
	if got := names(b.CriticalTOC); !slices.Equal(got, []string{"runbook-three"}) {
		t.Errorf("as contents: %v, want runbook-three (it has a table of contents)", got)
	}
	if got := names(b.CriticalNamed); !slices.Equal(got, []string{"runbook-two"}) {
		t.Errorf("named: %v, want runbook-two", got)
	}
	toc := func(_ context.Context, e Entry, _ string) string { return "1. Section one (" + e.Name + ")" }
	text, _ := render(t, Renderer{TOC: toc}, ix, b)
	if len(text) > 100_000 {
		t.Errorf("the briefing is %d bytes, over a tool result's 100 KB", len(text))
	}
	for _, want := range []string{"Never push to main.", `<prompt name="runbook-three" toc="true">`, "1. Section one (runbook-three)",
		"read each with get_prompt", "- runbook-two: About deploys. (id " + b.CriticalNamed[0].ID + ", 44 KB)", "Check the deploy dashboards."} {
		if !strings.Contains(text, want) {
			t.Errorf("the briefing lacks %q", want)
		}
	}
	if r := b.Result(text); !slices.Equal(slices.Sorted(slices.Values(r.Critical)), []string{"golden-rules", "runbook-one", "runbook-three", "runbook-two"}) {
		t.Errorf("result critical = %v, want every priority-10 prompt", r.Critical)
	}
	if again := s.Read(ix, []string{"deploy"}); len(again.Critical)+len(again.CriticalTOC)+len(again.CriticalNamed) != 0 {
		t.Errorf("read_prompts repeats priority-10 prompts: %v %v %v", names(again.Critical), names(again.CriticalTOC), names(again.CriticalNamed))
	}
}

// A briefing's prompt content is bounded in tokens as well as in bytes: 30 KB of Go is about
// 13,000 tokens, so two such priority-10 scripts, well within 80 KB, would pass what one tool
// result may carry, and a large budget fills with code only as far as the tokens go.
func TestSessionBoundsTheTokensABriefingCarries(t *testing.T) {
	ix := buildIndex(t, 100_000,
		spec{"Golden Rules", 10, "Never push to main."},
		spec{"Deploy Script One", 10, goCode("deploys", 30_000)},
		spec{"Deploy Script Two", 10, goCode("deploys", 30_000)},
		spec{"Deploy Helper A", 5, goCode("deploys", 9_000)},
		spec{"Deploy Helper B", 5, goCode("deploys", 9_000)},
	)
	bytes, tokens := 0, 0
	for _, e := range ix.entries {
		bytes, tokens = bytes+e.Bytes, tokens+e.Tokens
	}
	if bytes > maxBriefingBytes || tokens <= maxBriefingTokens {
		t.Fatalf("the prompts are %d bytes, %d tokens: the test wants them within the bytes and over the tokens", bytes, tokens)
	}
	b := NewSession(ix.Project()).Begin(ix, []string{"deploy"})
	sent, carried := 0, 0
	for _, e := range slices.Concat(b.Critical, b.Full) {
		sent++
		carried += e.Tokens
	}
	if carried > maxBriefingTokens {
		t.Errorf("the briefing carries %d tokens of prompts, over %d", carried, maxBriefingTokens)
	}
	if !containsEntry(b.Critical, ix.entries[ix.byName["golden-rules"]].ID) || len(b.Critical) != 2 || len(b.CriticalNamed) != 1 {
		t.Errorf("priority 10: %d in full, %d named; want the rules and one script in full, the other named", len(b.Critical), len(b.CriticalNamed))
	}
	if len(b.Full)+len(b.Listed) != 2 {
		t.Errorf("the helpers: %d sent, %d named; want both in the briefing", len(b.Full), len(b.Listed))
	}
	if sent == len(ix.entries) {
		t.Error("every prompt was sent in full")
	}
}

// goCode is a body about topic of about n bytes of Go: about 2.3 bytes a token.
func goCode(topic string, n int) string {
	line := "func (w *Writer) Write(e Event) error {\n\tline, err := json.Marshal(e)\n\treturn err\n}\n"
	return "About " + topic + ".\n" + strings.Repeat(line, n/len(line))
}

// A prompt of more tokens than any briefing carries is named with its id, for get_prompt:
// "call read_prompts again for the next ones" would list it again each time.
func TestBriefingSendsTooDenseAPromptToGetPrompt(t *testing.T) {
	ix := buildIndex(t, 200_000, spec{"Deploy Script", 5, goCode("deploys", 45_000)}, spec{"Deploy Notes", 5, "About deploys."})
	s := NewSession(ix.Project())
	b := s.Begin(ix, []string{"deploy"})
	text, _ := render(t, Renderer{}, ix, b)
	script := ix.entries[ix.byName["deploy-script"]]
	if script.Bytes > 200_000/2 || !strings.Contains(text, "(id "+script.ID+", 44 KB: more than a briefing carries)") || !strings.Contains(text, "with get_prompt and the id given") {
		t.Errorf("the %d-byte, %d-token script is not sent to get_prompt:\n%s", script.Bytes, script.Tokens, text)
	}
}

// The floor does not fall with what the session was sent: read_prompts repeating begin_session's
// tags sends nothing begin_session would not have sent on a fresh session. Scaled by the best
// matches not yet sent, it sent in full a prompt matching neither tag, only a word of the best
// match's title (feedback).
func TestSessionReadKeepsTheFloor(t *testing.T) {
	ix := buildIndex(t, 2048,
		spec{"Summarize Caching in Kotlin", 5, "Summarize the caching layer of a Kotlin service.\n\n## Cache keys\n\nName them.\n"},
		spec{"Refactor Test Coverage in Kotlin", 5, "Refactor the tests of a Kotlin module.\n\n## Coverage\n\nMeasure it.\n"},
		spec{"Summarize Concurrency in Elixir", 5, "Summarize how an Elixir service runs processes.\n\n## Supervisors\n\nRestart them.\n"},
		spec{"Review Authentication in Swift", 5, "Review the login flow.\n"},
	)
	tags := []string{"kotlin", "caching"}
	fresh := Select(ix, tags, 2048, 50, nil)
	if got := names(fresh.Weak); !slices.Equal(got, []string{"summarize-concurrency-in-elixir"}) {
		t.Fatalf("fresh weak matches %q; the test needs the Elixir prompt matched by feedback alone", got)
	}
	s := NewSession(ix.Project())
	b := s.Begin(ix, tags)
	if got, want := names(b.Full), names(fresh.Full); !slices.Equal(got, want) {
		t.Fatalf("begin_session sent %q, want the fresh selection %q", got, want)
	}
	r := s.Read(ix, tags)
	if len(r.Full)+len(r.TOC)+len(r.Listed) != 0 {
		t.Errorf("read_prompts with the same tags sent %q, contents %q, listed %q; want nothing new: the rest is below the floor",
			names(r.Full), names(r.TOC), names(r.Listed))
	}
	if got := names(r.Weak); !slices.Equal(got, []string{"summarize-concurrency-in-elixir"}) {
		t.Errorf("read_prompts weak matches %q, want the Elixir prompt still named as one", got)
	}
	if got := names(s.Read(ix, []string{"summarize-concurrency-in-elixir"}).Full); !slices.Equal(got, []string{"summarize-concurrency-in-elixir"}) {
		t.Errorf("read_prompts with its name sent %q, want the weak match", got)
	}
}

// A prompt sent as its table of contents counts as sent: read_prompts with the same tags names
// it as already provided instead of sending the same contents again, the structured result
// lists it, and the briefing does not claim the model has everything. Its name as a tag sends
// it whole when it fits the budget, never its contents again.
func TestSessionTablesOfContentsAreSent(t *testing.T) {
	ix := buildIndex(t, 4000,
		spec{"Deploy Guide", 8, sized("deploys", 3000)},
		spec{"Deploy Notes", 5, sized("deploys", 3500)},
		spec{"Deploy Windows", 5, sized("deploys", 3500)},
		spec{"Deploy Runbook", 5, sized("deploys", 5000)},
		spec{"Sql Style", 5, sized("sql", 100)},
		spec{"Go Errors", 5, sized("errors", 100)},
	)
	for i := range ix.entries {
		if ix.entries[i].Name != "deploy-guide" {
			ix.entries[i].TOCBytes = 300
		}
	}
	toc := func(_ context.Context, e Entry, _ string) string { return "1. Section one (" + e.Name + ")" }
	s := NewSession(ix.Project())
	b := s.Begin(ix, []string{"deploy"})
	text, _ := render(t, Renderer{TOC: toc}, ix, b)
	res := b.Result(text)
	if want := []string{"deploy-notes", "deploy-runbook", "deploy-windows"}; !slices.Equal(slices.Sorted(slices.Values(res.TableOfContents)), want) {
		t.Fatalf("begin_session: tableOfContents %q, want %q (the test needs them sent as contents)", res.TableOfContents, want)
	}
	if !slices.Equal(res.Matched, []string{"deploy-guide"}) {
		t.Errorf("begin_session: matched %q, want [deploy-guide]", res.Matched)
	}

	r := s.Read(ix, []string{"deploy"})
	text, _ = render(t, Renderer{TOC: toc}, ix, r)
	res = r.Result(text)
	if len(r.Full)+len(r.TOC)+len(r.Listed) != 0 || strings.Contains(text, "<prompt") {
		t.Errorf("read_prompts with the same tags sent %q, contents %q, listed %q; want nothing again:\n%s", names(r.Full), names(r.TOC), names(r.Listed), text)
	}
	if want := []string{"deploy-guide", "deploy-notes", "deploy-runbook", "deploy-windows"}; !slices.Equal(slices.Sorted(slices.Values(res.AlreadyProvided)), want) {
		t.Errorf("read_prompts: alreadyProvided %q, want %q", res.AlreadyProvided, want)
	}
	notes, _ := ix.ByName("deploy-notes")
	for _, want := range []string{"- deploy-guide\n", "- deploy-notes: its table of contents only; read_section reads its sections, get_prompt (id " + notes.ID + ") the whole"} {
		if !strings.Contains(text, want) {
			t.Errorf("read_prompts text lacks %q:\n%s", want, text)
		}
	}
	if err := schemas.Validate("read_prompts.output", res); err != nil {
		t.Error(err)
	}

	// By name: whole when it fits the budget; else named, not its contents again.
	if r := s.Read(ix, []string{"deploy-notes"}); !slices.Equal(names(r.Full), []string{"deploy-notes"}) {
		t.Errorf("read_prompts [deploy-notes] sent %q, contents %q; want it whole (it fits the budget)", names(r.Full), names(r.TOC))
	}
	if !s.WasSent(notes.ID) {
		t.Error("WasSent(deploy-notes) = false after it was sent whole")
	}
	r = s.Read(ix, []string{"deploy-runbook"})
	if len(r.Full)+len(r.TOC) != 0 || !slices.Equal(names(r.AlreadyTOC), []string{"deploy-runbook"}) {
		t.Errorf("read_prompts [deploy-runbook] (over the budget): sent %q, contents %q, contents already sent %q; want it named as already provided",
			names(r.Full), names(r.TOC), names(r.AlreadyTOC))
	}
	if got := names(s.Read(ix, []string{"deploy"}).AlreadySent); !slices.Contains(got, "deploy-notes") {
		t.Errorf("after it was sent whole, deploy-notes is not among the prompts sent in full: %q", got)
	}

	// The rest of the index sent, the model has two prompts as contents only: not everything.
	r = s.Read(ix, []string{"sql", "errors"})
	text, _ = render(t, Renderer{TOC: toc}, ix, r)
	if len(r.Full) != 2 || len(r.Remaining) != 0 || r.TOCHeld != 2 {
		t.Fatalf("read_prompts [sql errors]: sent %q, remaining %q, %d held as contents; the test needs the rest sent and two held", names(r.Full), names(r.Remaining), r.TOCHeld)
	}
	if strings.Contains(text, "you have everything") || !strings.Contains(text, "(none: every other prompt is above, or was sent to you earlier in this session)") {
		t.Errorf("read_prompts says the model has everything, while it has two prompts as contents only:\n%s", text)
	}
}

// A priority-10 prompt sent as its table of contents is handled as any other: never its
// contents again, whole when asked for by name, within what one briefing carries rather than
// the budget, from which priority 10 is exempt.
func TestSessionCriticalContentsAskedForByName(t *testing.T) {
	ix := buildIndex(t, 1000,
		spec{"Runbook One", 10, sized("deploys", 45_000)},
		spec{"Runbook Two", 10, sized("deploys", 50_000)},
		spec{"Deploy Checklist", 5, "Check the deploy dashboards."},
	)
	for i := range ix.entries {
		ix.entries[i].TOCBytes = 300
	}
	s := NewSession(ix.Project())
	if b := s.Begin(ix, []string{"deploy"}); !slices.Equal(names(b.CriticalTOC), []string{"runbook-two"}) {
		t.Fatalf("critical contents %q; the test needs runbook-two sent as contents", names(b.CriticalTOC))
	}
	r := s.Read(ix, []string{"deploy"})
	if len(r.Critical)+len(r.CriticalTOC)+len(r.TOC) != 0 || !slices.Equal(names(r.AlreadyTOC), []string{"runbook-two"}) {
		t.Errorf("read_prompts [deploy]: critical %q, contents %q %q, contents already sent %q; want runbook-two named as already provided",
			names(r.Critical), names(r.CriticalTOC), names(r.TOC), names(r.AlreadyTOC))
	}
	if r := s.Read(ix, []string{"runbook-two"}); !slices.Equal(names(r.Full), []string{"runbook-two"}) {
		t.Errorf("read_prompts [runbook-two] sent %q, want it whole: 50 KB is over the budget but within a briefing", names(r.Full))
	}
}

// A table of contents an intercepted call's briefing had no room for (NameLast) was not sent:
// the next read_prompts sends it.
func TestSessionNamedContentsAreNotSent(t *testing.T) {
	ix := buildIndex(t, 4000,
		spec{"Deploy Guide", 8, sized("deploys", 3000)},
		spec{"Deploy Runbook", 5, sized("deploys", 5000)},
		spec{"Sql Style", 5, sized("sql", 100)},
	)
	for i := range ix.entries {
		ix.entries[i].TOCBytes = 300
	}
	s := NewSession(ix.Project())
	chosen, ok := s.Intercept(ix, "search_prompts", json.RawMessage(`{"query":"deploy"}`))
	if !ok || !slices.Equal(names(chosen.TOC), []string{"deploy-runbook"}) || !slices.Equal(names(chosen.Full), []string{"deploy-guide"}) {
		t.Fatalf("intercept: full %q, contents %q; the test needs deploy-guide whole and deploy-runbook's contents", names(chosen.Full), names(chosen.TOC))
	}
	b := chosen.NameLast(2)
	if len(b.TOC)+len(b.Full) != 0 || !slices.Equal(names(b.Listed)[:2], []string{"deploy-guide", "deploy-runbook"}) {
		t.Fatalf("NameLast(2): full %q, contents %q, named %q; want both named, first", names(b.Full), names(b.TOC), names(b.Listed))
	}
	if b := chosen.NameLast(1); !slices.Equal(names(b.TOC), []string{"deploy-runbook"}) || len(b.Full) != 0 {
		t.Errorf("NameLast(1): full %q, contents %q; want the prompt sent whole named first", names(b.Full), names(b.TOC))
	}
	s.Unsent(chosen, b)
	r := s.Read(ix, []string{"deploy"})
	if !slices.Equal(names(r.TOC), []string{"deploy-runbook"}) || !slices.Equal(names(r.Full), []string{"deploy-guide"}) || len(r.AlreadyTOC)+len(r.AlreadySent) != 0 {
		t.Errorf("read_prompts after Unsent: full %q, contents %q, already sent %q %q; want both sent now",
			names(r.Full), names(r.TOC), names(r.AlreadySent), names(r.AlreadyTOC))
	}
}
