package gate

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// fakeLLM is a Completer whose answers come from a function; it counts the questions it gets.
type fakeLLM struct {
	answer func(ctx context.Context, prompt string) (string, error)
	calls  atomic.Int64
}

func (f *fakeLLM) Complete(ctx context.Context, _, prompt string) (string, error) {
	f.calls.Add(1)
	return f.answer(ctx, prompt)
}

var _ Completer = (*fakeLLM)(nil)

// rerankIndex has one priority-10 prompt and three that match "sql", which the deterministic
// ranking orders sql-style, sql, sql-notes.
func rerankIndex(tb testing.TB) *Index {
	return buildIndex(tb, 1000,
		spec{"Rules", 10, sized("rules", 10)},
		spec{"Sql Style", 5, "Sql naming.\n\n## Sql\n"},
		spec{"Sql", 5, "Sql.\n"},
		spec{"Sql Notes", 5, "Notes on sql and other things that are said at some length here.\n"},
	)
}

// numberOf answers with the list numbers of the named prompts, in the order given, as a model
// would.
func numberOf(prompt string, names ...string) string {
	num := map[string]string{}
	for _, line := range strings.Split(prompt, "\n") {
		n, rest, ok := strings.Cut(line, ". ")
		if name, _, _ := strings.Cut(rest, ":"); ok {
			num[strings.Fields(name + " ")[0]] = n
		}
	}
	var out []string
	for _, n := range names {
		if num[n] != "" {
			out = append(out, num[n])
		}
	}
	return strings.Join(out, ", ")
}

func TestLLMReranker(t *testing.T) {
	ix := rerankIndex(t)
	base := Select(ix, []string{"sql"}, 1000, 50, nil)
	if got := names(base.Full); !reflect.DeepEqual(got, []string{"sql-style", "sql", "sql-notes"}) {
		t.Fatalf("deterministic order %q; the test needs sql-style, sql, sql-notes", got)
	}

	t.Run("what the model chooses is sent in its order, the rest named; priority 10 stays first and is never asked about", func(t *testing.T) {
		llm := &fakeLLM{answer: func(_ context.Context, q string) (string, error) {
			if strings.Contains(q, "rules") {
				return "", errors.New("priority 10 was offered to the model")
			}
			return numberOf(q, "sql-notes", "sql"), nil
		}}
		sel := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, NewLLMReranker(llm, 0, nil))
		if got, want := names(sel.Sent()), []string{"rules", "sql-notes", "sql"}; !reflect.DeepEqual(got, want) {
			t.Errorf("sent %q, want %q (priority 10, then the model's choice in its order)", got, want)
		}
		if got := names(sel.Weak); !reflect.DeepEqual(got, []string{"sql-style"}) {
			t.Errorf("weak matches %q, want [sql-style]: a candidate the model did not choose is named with its summary, not lost", got)
		}
	})

	t.Run("a second identical request is answered from the cache", func(t *testing.T) {
		llm := &fakeLLM{answer: func(_ context.Context, q string) (string, error) { return numberOf(q, "sql"), nil }}
		rr := NewLLMReranker(llm, 0, nil)
		first := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, rr)
		second := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, rr)
		if n := llm.calls.Load(); n != 1 {
			t.Errorf("the model was asked %d times, want 1", n)
		}
		if !reflect.DeepEqual(names(first.Full), names(second.Full)) || names(first.Full)[0] != "sql" {
			t.Errorf("first %q, second %q: want the same, sql first", names(first.Full), names(second.Full))
		}
		// Another question (other tags) is asked.
		SelectReranked(context.Background(), ix, Task{Tags: []string{"sql", "naming"}}, 1000, 50, nil, rr)
		if n := llm.calls.Load(); n != 2 {
			t.Errorf("after a different request the model was asked %d times, want 2", n)
		}
	})

	t.Run("a timeout falls back to the deterministic selection", func(t *testing.T) {
		// The model never answers: it waits for the reranker's own deadline.
		llm := &fakeLLM{answer: func(ctx context.Context, _ string) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}}
		rr := NewLLMReranker(llm, 1, nil) // 1 ns: already over when the request starts
		sel := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, rr)
		if !reflect.DeepEqual(names(sel.Sent()), names(base.Sent())) {
			t.Errorf("sent %q, want the deterministic %q", names(sel.Sent()), names(base.Sent()))
		}
		// A failure is not cached: the next request asks again.
		SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, rr)
		if n := llm.calls.Load(); n != 2 {
			t.Errorf("the model was asked %d times, want 2 (failures are not cached)", n)
		}
	})

	t.Run("none: every candidate is named, none sent, and the answer is cached", func(t *testing.T) {
		llm := &fakeLLM{answer: func(context.Context, string) (string, error) { return "none", nil }}
		rr := NewLLMReranker(llm, 0, nil)
		for range 2 {
			sel := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, rr)
			if got := names(sel.Sent()); !reflect.DeepEqual(got, []string{"rules"}) {
				t.Errorf("sent %q, want only priority 10", got)
			}
			if got := names(sel.Weak); !reflect.DeepEqual(got[:min(len(got), 3)], names(base.Full)) {
				t.Errorf("weak matches %q, want the deterministic candidates %q first", got, names(base.Full))
			}
		}
		// The briefing does not tell the model to try other tags beside the matches it names.
		none := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, rr)
		text, _ := render(t, Renderer{}, ix, Briefing{Kind: KindBegin, Prompts: ix.Len(), Selection: none})
		if strings.Contains(text, "No new prompt matched") || !strings.Contains(text, "None of the matches was judged needed") {
			t.Errorf("briefing after the model chose none:\n%s", text)
		}
		if n := llm.calls.Load(); n != 1 {
			t.Errorf("the model was asked %d times, want 1 (none is an answer, cached)", n)
		}
		// A prompt a tag names is sent whatever the model says.
		sel := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql", "sql-notes"}}, 1000, 50, nil, rr)
		if got := names(sel.Full); !reflect.DeepEqual(got, []string{"sql-notes"}) {
			t.Errorf("with a tag naming sql-notes, sent %q; want [sql-notes]", got)
		}
	})

	t.Run("an answer naming no candidate is refused", func(t *testing.T) {
		llm := &fakeLLM{answer: func(context.Context, string) (string, error) { return "I would read them all. 0, 99", nil }}
		ids, err := NewLLMReranker(llm, 0, nil).Rerank(context.Background(), Task{Tags: []string{"sql"}}, ix.Entries()[1:3])
		if !errors.Is(err, ErrRerankAnswer) || ids != nil {
			t.Errorf("Rerank = %q, %v; want ErrRerankAnswer", ids, err)
		}
	})
}

func TestParseRerank(t *testing.T) {
	cands := []Entry{{Doc: &Doc{ID: "a"}}, {Doc: &Doc{ID: "b"}}, {Doc: &Doc{ID: "c"}}}
	for _, tc := range []struct {
		answer string
		want   []string
		ok     bool
	}{
		{"3, 1", []string{"c", "a"}, true},
		{"1,1,2", []string{"a", "b"}, true},
		{"Prompts 2 and 7, then 0.", []string{"b"}, true},
		{"None.", []string{}, true},
		{" none\n", []string{}, true},
		{"none of these but 3", []string{"c"}, true},
		{"I cannot tell", nil, false},
		{"0, 99", nil, false},
	} {
		if got, ok := parseRerank(tc.answer, cands); !reflect.DeepEqual(got, tc.want) || ok != tc.ok {
			t.Errorf("parseRerank(%q) = %q, %v; want %q, %v", tc.answer, got, ok, tc.want, tc.ok)
		}
	}
}

// begin_session and read_prompts are re-ranked with the assistant's task sentence before the
// tags, on one line whatever line breaks it was given with.
func TestSessionReranks(t *testing.T) {
	ix := rerankIndex(t)
	s, questions := questionedSession(ix)
	b := s.BeginContext(context.Background(), ix, Task{Tags: []string{"sql"}, Text: "Find out why\nthe orders report is slow"})
	if got := names(b.Sent()); len(got) < 2 || got[0] != "rules" || got[1] != "sql-notes" {
		t.Errorf("begin sent %q, want rules then sql-notes", got)
	}
	s.ReadContext(context.Background(), ix, Task{Tags: []string{"naming"}})
	if len(*questions) != 2 {
		t.Fatalf("%d questions, want one per briefing", len(*questions))
	}
	if want := "The task: Find out why the orders report is slow\nTask tags: sql\n"; !strings.HasPrefix((*questions)[0], want) {
		t.Errorf("begin_session's question begins %q, want %q", (*questions)[0][:min(len((*questions)[0]), 120)], want)
	}
	if want := "Task tags: naming\n"; !strings.HasPrefix((*questions)[1], want) {
		t.Errorf("read_prompts' question without a task begins %q, want %q", (*questions)[1][:min(len((*questions)[1]), 120)], want)
	}
}

// questionedSession is a session of ix re-ranked by a model that always chooses sql-notes, and
// the questions it is asked, in order.
func questionedSession(ix *Index) (*Session, *[]string) {
	var questions []string
	llm := &fakeLLM{answer: func(_ context.Context, q string) (string, error) {
		questions = append(questions, q)
		return numberOf(q, "sql-notes"), nil
	}}
	s := NewSession(ix.Project())
	s.SetReranker(NewLLMReranker(llm, 0, nil))
	return s, &questions
}

func TestTaskText(t *testing.T) {
	if got := taskText(" Add a\n\tphone field  "); got != "Add a phone field" {
		t.Errorf("taskText = %q, want the words on one line", got)
	}
	got := taskText(strings.Repeat("word ", 1000))
	if n := utf8.RuneCountInString(got); n > maxTaskText || !strings.HasSuffix(got, "…") {
		t.Errorf("a long task: %d characters; want at most %d, clipped with …", n, maxTaskText)
	}
}

// An intercepted call reaches the model as made, before the key terms taken from it: the
// sentence says more than its words.
func TestInterceptRerankQuestion(t *testing.T) {
	ix := rerankIndex(t)
	s, questions := questionedSession(ix)
	b, ok := s.InterceptContext(context.Background(), ix, "search_prompts", json.RawMessage(`{ "query": "why is this sql slow" }`))
	if !ok || len(*questions) != 1 {
		t.Fatalf("intercepted %v, %d questions; want one question", ok, len(*questions))
	}
	if want := "The assistant's first call: search_prompts {\"query\":\"why is this sql slow\"}\nTask tags: sql"; !strings.HasPrefix((*questions)[0], want) {
		t.Errorf("question begins %q, want %q", (*questions)[0][:min(len((*questions)[0]), 120)], want)
	}
	if got := names(b.Full); !reflect.DeepEqual(got, []string{"sql-notes"}) {
		t.Errorf("sent %q, want the model's choice [sql-notes]", got)
	}
}

func TestCallText(t *testing.T) {
	long := `{"path":"README.md","content":"` + strings.Repeat("word ", 1000) + `"}`
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"list_prompts", ``, "list_prompts"},
		{"list_prompts", `{}`, "list_prompts"},
		{"get_prompt", "{\n  \"name\": \"sql-style\"\n}", `get_prompt {"name":"sql-style"}`},
		{"broken", `{"a":`, "broken"},
	} {
		if got := callText(tc.tool, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("callText(%q, %q) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	got := callText("write_file", json.RawMessage(long))
	if n := utf8.RuneCountInString(got); n > maxCallText || !strings.HasPrefix(got, `write_file {"path":"README.md","content":"word word`) || !strings.HasSuffix(got, "…") {
		t.Errorf("a long call: %d characters, %q…; want at most %d, clipped with …", n, got[:min(len(got), 60)], maxCallText)
	}
}
