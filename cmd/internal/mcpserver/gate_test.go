package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// rerankLibrary is a project folder "Web" with a priority-10 prompt and three prompts about sql
// that the deterministic ranking sends as sql-style, sql, sql-notes.
func rerankLibrary(tb testing.TB) (Library, gate.Project) {
	tb.Helper()
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web", CreatedAt: t0, UpdatedAt: t0}
	p := func(n int, title, body string) promptlib.Prompt {
		return promptlib.Prompt{ID: "E0000000-0000-4000-8000-00000000000" + string(rune('0'+n)), Title: title, Content: body,
			FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0}
	}
	lib := librarytest.FromLibrary(tb, promptlib.Library{
		Folders: []promptlib.Folder{web},
		Prompts: []promptlib.Prompt{
			p(1, "Rules", "Never push to main."),
			p(2, "Sql Style", "Sql naming.\n\n## Sql\n"),
			p(3, "Sql", "Sql."),
			p(4, "Sql Notes", "Notes on sql and other things that are said at some length here."),
		},
	})
	proj, err := gate.ParseProject("web.yaml", []byte("folder: Web\nbyteBudget: 4000\npriorities:\n  rules: 10\n"))
	if err != nil {
		tb.Fatal(err)
	}
	proj.Name = "web"
	return Library{Dir: lib.Dir, DB: lib.DB, Queue: lib.Queue}, proj
}

// fakeChat is an OpenAI-compatible chat-completions server standing in for the LLM (a
// third-party service the tests cannot run). While hang is set it never answers, until the
// client gives up, and says on hung that a request came; otherwise it names the prompts in
// order, by their numbers in the question.
type fakeChat struct {
	*httptest.Server
	order    []string
	hang     atomic.Bool
	hung     chan struct{}
	requests atomic.Int64
}

func newFakeChat(tb testing.TB, order ...string) *fakeChat {
	tb.Helper()
	f := &fakeChat{order: order, hung: make(chan struct{}, 16)}
	release := make(chan struct{})
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if f.hang.Load() {
			f.hung <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		num := map[string]string{} // prompt name → its number in the question
		for _, line := range strings.Split(req.Messages[1].Content, "\n") {
			n, rest, ok := strings.Cut(line, ". ")
			if name, _, _ := strings.Cut(rest, ":"); ok {
				num[strings.Fields(name + " ")[0]] = n
			}
		}
		var nums []string
		for _, name := range f.order {
			if num[name] != "" {
				nums = append(nums, num[name])
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": strings.Join(nums, ", ")}}}})
	}))
	tb.Cleanup(func() { close(release); f.Close() })
	return f
}

// beginSession starts a server for the project and calls begin_session with tags and a task
// sentence, which a server without a Reranker does not list but accepts.
func beginSession(tb testing.TB, lib Library, p gate.Project, rr gate.Reranker, tags ...string) gate.Result {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	s, err := New(ctx, Config{Library: lib, Project: &p, Reranker: rr})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": gate.ToolBeginSession, "arguments": map[string]any{"tags": tags, "task": "Speed up the sql of the orders page"}}})
	raw, err := json.Marshal(s.srv.HandleMessage(ctx, msg))
	if err != nil {
		tb.Fatal(err)
	}
	var resp struct {
		Result struct {
			IsError           bool        `json:"isError"`
			StructuredContent gate.Result `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Result.IsError {
		tb.Fatalf("begin_session: %s (%v)", raw, err)
	}
	return resp.Result.StructuredContent
}

// TestGateRerank runs begin_session on the assembled server with an LLM reranker over a fake
// chat-completions server: the model's choice is what is sent, in its order, the rest named as
// weak matches, priority 10 is sent whatever the model says, a model that does not answer in time leaves the deterministic selection, and the
// same question is asked once.
func TestGateRerank(t *testing.T) {
	lib, p := rerankLibrary(t)
	deterministic := beginSession(t, lib, p, nil, "sql")
	if want := []string{"sql-style", "sql", "sql-notes"}; !reflect.DeepEqual(deterministic.Matched, want) {
		t.Fatalf("deterministic matched %q; the test needs %q", deterministic.Matched, want)
	}
	chat := newFakeChat(t, "sql-notes", "sql")
	llm := pipeline.NewLLMClient(pipeline.LLMConfig{URL: chat.URL + "/v1", Model: "m"}, os.Getenv, nil)

	t.Run("the model's choice is sent in its order, priority 10 first, and an identical request hits the cache", func(t *testing.T) {
		rr := gate.NewLLMReranker(llm, time.Minute, nil)
		got := beginSession(t, lib, p, rr, "sql")
		if want := []string{"sql-notes", "sql"}; !reflect.DeepEqual(got.Matched, want) {
			t.Errorf("matched %q, want the model's choice in its order %q", got.Matched, want)
		}
		if !reflect.DeepEqual(got.WeakMatches, []string{"sql-style"}) || !strings.Contains(got.Text, "- sql-style") {
			t.Errorf("weak matches %q: want [sql-style], the candidate the model passed over, named in the briefing", got.WeakMatches)
		}
		if !reflect.DeepEqual(got.Critical, []string{"rules"}) || !strings.Contains(got.Text, "Never push to main.") {
			t.Errorf("critical %q: want [rules], sent in full", got.Critical)
		}
		if n := chat.requests.Load(); n != 1 {
			t.Fatalf("the model was asked %d times, want 1", n)
		}
		// A second session of the project asks the same question: the reranker answers it.
		again := beginSession(t, lib, p, rr, "sql")
		if n := chat.requests.Load(); n != 1 {
			t.Errorf("after an identical request the model was asked %d times, want 1 (cached)", n)
		}
		if !reflect.DeepEqual(again.Matched, got.Matched) {
			t.Errorf("cached answer matched %q, want %q", again.Matched, got.Matched)
		}
	})

	t.Run("a model that does not answer in time leaves the deterministic selection", func(t *testing.T) {
		chat.hang.Store(true)
		defer chat.hang.Store(false)
		// Long enough for the request to reach the model on a loaded machine.
		rr := gate.NewLLMReranker(llm, 500*time.Millisecond, nil)
		got := beginSession(t, lib, p, rr, "sql")
		// The reranker has given up; the model's handler may see the request only now.
		select {
		case <-chat.hung:
		case <-time.After(20 * time.Second):
			t.Fatal("the model was not asked")
		}
		if !reflect.DeepEqual(got.Matched, deterministic.Matched) || !reflect.DeepEqual(got.Critical, deterministic.Critical) {
			t.Errorf("matched %q critical %q, want the deterministic %q %q", got.Matched, got.Critical, deterministic.Matched, deterministic.Critical)
		}
	})
}

// A briefing's prompt content is bounded by the gate, but its lines naming prompts grow with
// indexCap: fitBriefing cuts them to the room, counting what it cut.
func TestFitBriefing(t *testing.T) {
	lib := promptlib.Sample(3000, 1)
	p, err := gate.ParseProject("big.yaml", []byte("indexCap: 1000\nbyteBudget: 98304\n"))
	if err != nil {
		t.Fatal(err)
	}
	ix, _, err := gate.LibraryIndex(lib, p)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	load := gate.LibraryBodies(lib)
	for _, tags := range [][]string{{"kotlin"}, {"sql", "go", "rust"}} {
		b := gate.NewSession(p).Begin(ix, tags)
		whole, _, err := gate.Renderer{}.Briefing(ctx, b, load)
		if err != nil {
			t.Fatal(err)
		}
		if wholeResult.holds(whole) {
			t.Fatalf("tags %v: the whole briefing is %d bytes, %d tokens, within the bound: the test would prove nothing", tags, len(whole), promptlib.Tokens(whole))
		}
		fit, text, _, err := fitBriefing(ctx, gate.Renderer{}, b, load, wholeResult, asResult)
		if err != nil {
			t.Fatal(err)
		}
		// As the model reads it: the structured result, the text escaped beside the lists. A
		// line cut takes its name from a list too, which the cut does not count: a few hundred
		// tokens may be left over.
		seen := asResult(fit, text)[1]
		if n, tk := len(seen), promptlib.Tokens(seen); !wholeResult.fits(asResult, fit, text) || n < MaxResultBytes-3000 && tk < MaxResultTokens-1000 {
			t.Errorf("tags %v: %d bytes, %d tokens as a result (text %d, %d); want within %d and %d, and not far under both",
				tags, n, tk, len(text), promptlib.Tokens(text), MaxResultBytes, MaxResultTokens)
		}
		listed := len(fit.Remaining) + len(fit.Weak) + len(fit.Listed)
		if was := len(b.Remaining) + len(b.Weak) + len(b.Listed); fit.Omitted+fit.MoreListed-b.Omitted-b.MoreListed != was-listed {
			t.Errorf("tags %v: cut %d lines but counts %d more as omitted", tags, was-listed, fit.Omitted+fit.MoreListed-b.Omitted-b.MoreListed)
		}
		if want := fmt.Sprintf("- … and %d more", fit.Omitted); fit.Omitted > 0 && !strings.Contains(text, want) {
			t.Errorf("tags %v: the text lacks %q", tags, want)
		}
		if !slices.Equal(fit.Full, b.Full) || !slices.Equal(fit.Critical, b.Critical) {
			t.Errorf("tags %v: fitting changed the prompts sent in full", tags)
		}
	}

	// A project's greeting that shows the whole index goes without it when nothing else is left
	// to cut; and texts longer than a result are cut, saying so.
	b := gate.NewSession(p).Begin(ix, []string{"kotlin"})
	r := gate.Renderer{Texts: gate.Texts{gate.TextGreeting: "Index:\n{{prompt_index}}"}}
	if fit, text, _, err := fitBriefing(ctx, r, b, load, wholeResult, asResult); err != nil || fit.PromptIndex != "" ||
		!wholeResult.fits(asResult, fit, capText(fit, text, wholeResult, asResult)) {
		t.Errorf("a greeting with the index: %d bytes, %d tokens, index kept %v (%v), want within %+v once capped", len(text), promptlib.Tokens(text), fit.PromptIndex != "", err, wholeResult)
	}
	// A greeting of about 9,000 tokens leaves the prompts too little room: the fewest last ones
	// are named instead of sent.
	chosen := gate.NewSession(p).Begin(ix, []string{"sql", "go", "rust"})
	r = gate.Renderer{Texts: gate.Texts{gate.TextGreeting: strings.Repeat("Read the rules before you start.\n", 1100)}}
	fit, text, _, err := fitNaming(ctx, r, chosen, load, wholeResult, asResult)
	named := len(chosen.Full) - len(fit.Full)
	if err != nil || !wholeResult.fits(asResult, fit, text) || named == 0 || !slices.Equal(fit.Full, chosen.Full[:len(fit.Full)]) {
		t.Fatalf("a long greeting: named %d of %d, holds %v (%v); want the last ones named, within the bound", named, len(chosen.Full), wholeResult.fits(asResult, fit, text), err)
	}
	if fewer, text, _, _ := fitBriefing(ctx, r, chosen.NameLast(named-1), load, wholeResult, asResult); wholeResult.fits(asResult, fewer, text) {
		t.Errorf("a long greeting: named %d, but %d would do", named, named-1)
	}
	// Greetings fitBriefing cannot fit: 112 KB of prose, over the bytes, and 60 KB of ids, over
	// the tokens.
	for name, greeting := range map[string]string{
		"prose": strings.Repeat("Read the rules.\n", 7000),
		"ids":   strings.Repeat("Pinned build: 8f3a9c2e-41d7-4b6a-9e0f-2c5d7a1b3e4f\n", 1200),
	} {
		r = gate.Renderer{Texts: gate.Texts{gate.TextGreeting: greeting}}
		fit, text, _, err := fitBriefing(ctx, r, b, load, wholeResult, asResult)
		if err != nil || wholeResult.fits(asResult, fit, text) {
			t.Fatalf("%s: a greeting of %d bytes, %d tokens (%v); the test wants a briefing fitBriefing cannot fit", name, len(text), promptlib.Tokens(text), err)
		}
		for fname, f := range map[string]form{"asResult": asResult, "framed": framed} {
			capped := capText(fit, text, wholeResult, f)
			bytes, tokens := wholeResult.over(f, fit, capped) // of the largest reading
			near := bytes > -2000 || tokens > -500
			if !wholeResult.fits(f, fit, capped) || !strings.HasSuffix(capped, capNote) || !near {
				t.Errorf("%s, %s: capped to %d of %d bytes, its largest reading %d bytes, %d tokens from the bound, ending %q", name, fname, len(capped), len(text), bytes, tokens, capped[max(0, len(capped)-200):])
			}
		}
	}
}

// BenchmarkFitNaming fits a begin_session briefing of a 3,000-prompt library with indexCap 1000
// and a 96 KB budget: "lines" cuts index lines only; "names" has a greeting of about 9,000
// tokens too, so that prompts are named instead of sent (each bisection step renders again).
func BenchmarkFitNaming(b *testing.B) {
	lib := promptlib.Sample(3000, 1)
	p, err := gate.ParseProject("big.yaml", []byte("indexCap: 1000\nbyteBudget: 98304\n"))
	if err != nil {
		b.Fatal(err)
	}
	ix, _, err := gate.LibraryIndex(lib, p)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	load := gate.LibraryBodies(lib)
	chosen := gate.NewSession(p).Begin(ix, []string{"sql", "go", "rust"})
	for name, greeting := range map[string]string{"lines": "", "names": strings.Repeat("Read the rules before you start.\n", 1100)} {
		r := gate.Renderer{Texts: gate.Texts{gate.TextGreeting: greeting}}
		b.Run(name, func(b *testing.B) {
			var fit gate.Briefing
			for b.Loop() {
				if fit, _, _, err = fitNaming(ctx, r, chosen, load, wholeResult, asResult); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(chosen.Full)-len(fit.Full)), "named")
		})
	}
}

// An intercepted call whose briefing cannot be made (the bodies cannot be read) sends none of
// it, so none of its prompts counts as sent: they were, and read_prompts then called the
// priority-10 rule "already provided" while the model had never seen it.
func TestInterceptWhoseBriefingFailedSendsItLater(t *testing.T) {
	lib, p := rerankLibrary(t)
	p.GateMode = gate.SoftMode
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := New(ctx, Config{Library: lib, Project: &p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var recorded *call // the traffic event's part of the last call
	call := func(name string, args map[string]any) string {
		t.Helper()
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		recorded = &call{}
		raw, err := json.Marshal(s.srv.HandleMessage(withCall(ctx, recorded), msg))
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	s.db.Close() // every body read now fails; the queue tool intercepted needs no prompt
	if out := call("get_operation_status", map[string]any{"operationId": "00000000-0000-4000-8000-000000000000"}); strings.Contains(out, "Never push to main.") {
		t.Fatalf("the intercepted call carries the rule although bodies could not be read: %s", out)
	}
	// Its traffic says so too: nothing sent, not the prompts that would have been.
	if g := recorded.gate; g == nil || g.Sent != 0 || g.Critical != 0 || g.Bytes != 0 {
		t.Errorf("the failed briefing's traffic: %+v; want a gate part with nothing sent", g)
	}
	reopened, err := dbread.Open(ctx, lib.DB, dbread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.db = reopened // s.Close closes it
	if out := call(gate.ToolReadPrompts, map[string]any{"tags": []string{"sql"}}); !strings.Contains(out, "Never push to main.") {
		t.Errorf("read_prompts after the failed briefing: %s; want the priority-10 rule sent, never having been", out)
	}
}

// A briefing's renders read each body once: fitNaming renders it once per try, and each read is
// a query, or an upstream's resources/read for a linked prompt.
func TestMemoBodiesReadsEachOnce(t *testing.T) {
	reads := map[string]int{}
	load := memoBodies(func(_ context.Context, ids []string) (map[string]string, error) {
		out := map[string]string{}
		for _, id := range ids {
			reads[id]++
			if id != "gone" {
				out[id] = "body of " + id
			}
		}
		return out, nil
	})
	for range 3 {
		got, err := load(context.Background(), []string{"a", "gone", "b"})
		if err != nil || len(got) != 2 || got["a"] != "body of a" || got["b"] != "body of b" {
			t.Fatalf("got %v, %v; want a and b, and gone left out", got, err)
		}
	}
	if !reflect.DeepEqual(reads, map[string]int{"a": 1, "gone": 1, "b": 1}) {
		t.Errorf("reads %v, want each id once", reads)
	}
}
