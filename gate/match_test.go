package gate

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

// sentNames runs Select and returns the names sent in full (critical first) and the names
// listed over the budget.
func sentNames(ix *Index, tags []string, budget int) (full, listed []string) {
	sel := Select(ix, tags, budget, DefaultIndexCap, nil)
	return names(sel.Sent()), names(sel.Listed)
}

func TestSelectMatching(t *testing.T) {
	tests := []struct {
		name  string
		specs []spec
		tags  []string
		want  []string // sent in full, in order
	}{
		{"empty tags: only priority 10",
			[]spec{{"Rules", 10, sized("rules", 50)}, {"Sql", 5, sized("sql", 50)}},
			nil, []string{"rules"}},
		{"no match",
			[]spec{{"Sql", 5, sized("sql", 50)}, {"Go", 9, sized("go", 50)}},
			[]string{"kubernetes"}, []string{}},
		{"whole words: ci is not in incident, decision or capacity",
			[]spec{{"Incident Review", 5, "Every incident gets a decision on capacity.\n"}, {"CI Pipeline", 5, "Runs on every push.\n"}},
			[]string{"ci"}, []string{"ci-pipeline"}},
		{"dates is not in updates",
			[]spec{{"Updates", 5, "Send updates weekly.\n"}, {"Dates", 5, "Store dates in UTC.\n"}},
			[]string{"dates"}, []string{"dates"}},
		{"stems both ways: permissions, alerting, testing, migrate",
			[]spec{
				{"Permission Checks", 5, "Check on the server.\n"},
				{"Alert Rules", 5, "Page for symptoms.\n"},
				{"Tests", 5, "Table tests.\n"},
				{"Schema Migration", 5, "Reversible.\n"},
				{"Unrelated", 5, "Nothing here.\n"},
			},
			[]string{"permissions", "alerting", "testing", "migrate"},
			[]string{"alert-rules", "permission-checks", "schema-migration", "tests"}},
		{"the body is searched",
			[]spec{{"Style", 5, "Wrap errors with context.\n"}, {"Other", 5, "Nothing.\n"}},
			[]string{"errors"}, []string{"style"}},
		{"headings are searched",
			[]spec{{"Database", 5, "Intro.\n\n## Rollback\n\nSteps.\n"}, {"Other", 5, "Nothing.\n"}},
			[]string{"rollback"}, []string{"database"}},
		{"the synonym of api is rest api, not rest: data encrypted at rest is no API",
			[]spec{{"Encryption at Rest", 5, "Keys per environment.\n"}, {"Conventions", 5, "Our REST API uses plural nouns.\n"}, {"Other", 5, "Nothing.\n"}},
			[]string{"api"}, []string{"conventions"}},
		{"built-in synonyms: observability finds tracing",
			[]spec{{"Distributed Tracing", 5, "Propagate context.\n"}, {"Other", 5, "Nothing.\n"}},
			[]string{"observability"}, []string{"distributed-tracing"}},
		{"priority is a bounded boost: it does not lift an incidental hit over the floor",
			[]spec{
				{"Sql Style", 5, "Name tables in the plural. Sql keywords in upper case.\n\n## Sql\n"},
				{"Release Notes", 9, wordy("release", 600) + "Mention a sql change when there is one.\n"},
			},
			[]string{"sql"}, []string{"sql-style"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := buildIndex(t, 10_000, tt.specs...)
			got, _ := sentNames(ix, tt.tags, 10_000)
			slices.Sort(got[min(len(got), countCritical(ix)):])
			want := slices.Clone(tt.want)
			slices.Sort(want[min(len(want), countCritical(ix)):])
			if !reflect.DeepEqual(got, want) {
				t.Errorf("tags %q sent %q, want %q", tt.tags, got, want)
			}
		})
	}
}

func countCritical(ix *Index) int {
	n := 0
	for _, e := range ix.Entries() {
		if e.Priority >= CriticalPriority {
			n++
		}
	}
	return n
}

func TestSelectRanking(t *testing.T) {
	t.Run("the title outranks the body, the folder path is weak", func(t *testing.T) {
		f := newFixture(t)
		f.prompt("Database", "Vendor Contacts", "Call the account manager.\n")
		f.prompt("Database", "Database Migrations", "Reversible migrations.\n")
		f.prompt("Api", "Reports", "Reports read from the database replica.\n")
		ix := f.index(t, project(10_000, nil))
		sel := Select(ix, []string{"database"}, 10_000, 50, nil)
		if got := names(sel.Full); len(got) == 0 || got[0] != "database-migrations" || slices.Contains(got, "vendor-contacts") {
			t.Errorf("sent %q, want database-migrations first and not vendor-contacts (folder only)", got)
		}
	})
	t.Run("a phrase ranks the prompt that has it above one with the words apart", func(t *testing.T) {
		ix := buildIndex(t, 10_000,
			spec{"Notes", 5, "An error here, some handling there.\n"},
			spec{"Error Handling", 5, "Wrap errors.\n"},
		)
		sel := Select(ix, []string{"error handling"}, 10_000, 50, nil)
		if got := names(sel.Full); len(got) == 0 || got[0] != "error-handling" {
			t.Errorf("sent %q, want error-handling first", got)
		}
	})
	t.Run("a tag that names a folder weighs less beside other tags", func(t *testing.T) {
		f := newFixture(t)
		f.prompt("Backend / Go", "Concurrency in Go", "A goroutine leaks when nothing reads its channel; close channels and cancel contexts.\n")
		f.prompt("Backend / Go", "Generics in Go", "Use type parameters for containers only.\n")
		f.prompt("Backend / Go", "Go Package Layout", "One package per concept.\n")
		f.prompt("Operations", "Memory Profiling", "Take heap profiles to find a leak.\n")
		ix := f.index(t, project(10_000, nil))
		sel := Select(ix, []string{"go", "goroutine", "leak"}, 10_000, 50, nil)
		if got := names(sel.Full); len(got) == 0 || got[0] != "concurrency-in-go" || slices.Contains(got, "generics-in-go") || slices.Contains(got, "go-package-layout") {
			t.Errorf("sent %q, want concurrency-in-go first and no prompt that matches only the folder's name", got)
		}
		// Alone, the tag is the task: the folder's prompts are what it asks for.
		if got := names(Select(ix, []string{"go"}, 10_000, 50, nil).Full); !slices.Contains(got, "generics-in-go") {
			t.Errorf("for [go] sent %q, want generics-in-go among them", got)
		}
		explained := false
		for _, x := range Explain(ix, []string{"go", "goroutine", "leak"}, 10_000, 50, nil) {
			if x.Name == "generics-in-go" {
				explained = true
				if !strings.Contains(x.String(), "(names a folder: ×0.7)") {
					t.Errorf("explain: %s; want the go part marked as naming a folder", x)
				}
			}
		}
		if !explained {
			t.Error("explain does not name generics-in-go, which matches the tag go")
		}
	})
	t.Run("project synonyms", func(t *testing.T) {
		f := newFixture(t)
		f.prompt("Docs", "Cart Rules", "Keep the cart for 30 days.\n")
		f.prompt("Docs", "Other", "Nothing.\n")
		p := project(10_000, nil)
		p.Synonyms = map[string][]string{"basket": {"cart"}}
		sel := Select(f.index(t, p), []string{"basket"}, 10_000, 50, nil)
		if got := names(sel.Full); !reflect.DeepEqual(got, []string{"cart-rules"}) {
			t.Errorf("sent %q, want [cart-rules]", got)
		}
	})
	t.Run("a synonym that is also a tag counts once, as its own tag", func(t *testing.T) {
		// "basket" has the synonym "cart"; with both as tags, a prompt with only "cart" must not
		// also score under "basket" and outrank the one that has both words.
		f := newFixture(t)
		f.prompt("Docs", "Cart Rules", "Keep it for 30 days.\n")
		f.prompt("Docs", "Basket Cart Checkout", "Both words, once each.\n")
		p := project(10_000, nil)
		p.Synonyms = map[string][]string{"basket": {"cart"}}
		xs := Explain(f.index(t, p), []string{"basket", "cart"}, 10_000, 50, nil)
		for _, x := range xs {
			if x.Name != "cart-rules" {
				continue
			}
			if len(x.Tags) != 1 || x.Tags[0].Tag != "cart" {
				t.Errorf("cart-rules scored under %+v, want only under the tag cart", x.Tags)
			}
		}
	})
}

func TestSelectBudget(t *testing.T) {
	tests := []struct {
		name       string
		budget     int
		specs      []spec
		full, list []string
	}{
		{"a prompt larger than what is left is named and packing goes on", 150,
			[]spec{{"Sql Huge", 5, sized("sql", 5000)}, {"Sql Small", 5, sized("sql", 100)}, {"Sql Next", 5, sized("sql", 100)}},
			[]string{"sql-next"}, []string{"sql-huge", "sql-small"}},
		{"priority 10 beyond the budget: all in full, nothing else fits", 100,
			[]spec{{"R1", 10, sized("one", 80)}, {"R2", 10, sized("two", 80)}, {"Sql", 9, sized("sql", 10)}},
			[]string{"r1", "r2"}, []string{"sql"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := buildIndex(t, tt.budget, tt.specs...)
			full, listed := sentNames(ix, []string{"sql"}, tt.budget)
			slices.Sort(full)
			slices.Sort(listed)
			if !reflect.DeepEqual(full, tt.full) || !reflect.DeepEqual(listed, tt.list) {
				t.Errorf("full %q listed %q, want %q and %q", full, listed, tt.full, tt.list)
			}
		})
	}
}

func TestSelectAlreadySent(t *testing.T) {
	ix := buildIndex(t, 1000, spec{"Rules", 10, sized("rules", 10)}, spec{"Sql", 5, sized("sql", 10)}, spec{"Sql Two", 5, sized("sql", 10)}, spec{"Go", 5, sized("go", 10)})
	sent := map[string]bool{}
	for _, n := range []string{"rules", "sql", "go"} {
		e, _ := ix.ByName(n)
		sent[e.ID] = true
	}
	sel := Select(ix, []string{"sql"}, 1000, 50, sent)
	if got, want := [][]string{names(sel.Critical), names(sel.Full), names(sel.AlreadySent), names(sel.Remaining)},
		[][]string{{}, {"sql-two"}, {"sql"}, {}}; !reflect.DeepEqual(got, want) {
		t.Errorf("critical, full, already, remaining = %q, want %q", got, want)
	}
}

// wordy is a body of about n bytes of prose about topic.
func wordy(topic string, n int) string {
	return strings.Repeat("Write the "+topic+" notes for every version. ", n/(30+len(topic)))
}

func TestSelectCaps(t *testing.T) {
	var specs []spec
	for i := range 120 {
		topic := "other"
		if i%2 == 0 {
			topic = "sql"
		}
		specs = append(specs, spec{fmt.Sprintf("Note %03d", i), 5, sized(topic, 10)})
	}
	ix := buildIndex(t, 0, specs...)
	sel := Select(ix, []string{"sql"}, 0, 50, nil)
	if len(sel.Listed) != 50 || sel.MoreListed != 10 || len(sel.Full) != 0 {
		t.Errorf("got %d listed, %d more, %d full; want 50, 10, 0", len(sel.Listed), sel.MoreListed, len(sel.Full))
	}
	sel = Select(ix, []string{"nothing"}, 1000, 50, nil)
	if len(sel.Remaining) != 50 || sel.Omitted != 70 {
		t.Errorf("got %d remaining, %d omitted; want 50 and 70", len(sel.Remaining), sel.Omitted)
	}
}

func TestSelectDeterministic(t *testing.T) {
	var specs []spec
	for i := range 40 {
		specs = append(specs, spec{fmt.Sprintf("T%02d sql", 40-i), 1 + i%9, sized("sql", 10+i)})
	}
	ix := buildIndex(t, 200, specs...)
	first := Select(ix, []string{"sql", "t1"}, 200, 50, nil)
	for range 5 {
		if again := Select(ix, []string{"t1", "sql"}, 200, 50, nil); !reflect.DeepEqual(names(again.Full), names(first.Full)) || !reflect.DeepEqual(names(again.Listed), names(first.Listed)) {
			t.Fatalf("selection changed: %q then %q", names(first.Full), names(again.Full))
		}
	}
}

// reverseRanker names the candidates in reverse; failRanker fails.
type reverseRanker struct{}

func (reverseRanker) Rerank(_ context.Context, _ Task, c []Entry) ([]string, error) {
	var ids []string
	for i := len(c) - 1; i >= 0; i-- {
		ids = append(ids, c[i].ID)
	}
	return ids, nil
}

type failRanker struct{}

func (failRanker) Rerank(context.Context, Task, []Entry) ([]string, error) {
	return nil, errors.New("model unavailable")
}

var _ Reranker = reverseRanker{}

func TestSelectReranked(t *testing.T) {
	ix := buildIndex(t, 1000,
		spec{"Rules", 10, sized("rules", 10)},
		spec{"Sql Style", 5, "Sql naming.\n\n## Sql\n"},
		spec{"Sql", 5, "Sql.\n"},
	)
	base := Select(ix, []string{"sql"}, 1000, 50, nil)
	re := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, reverseRanker{})
	want := slices.Clone(names(base.Full))
	slices.Reverse(want)
	if got := names(re.Full); len(got) < 2 || !slices.Equal(got, want) {
		t.Errorf("reranked %q, base %q: want the reverse", got, names(base.Full))
	}
	if names(re.Critical)[0] != "rules" {
		t.Errorf("priority 10 lost by the reranker: %q", names(re.Critical))
	}
	if fb := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 1000, 50, nil, failRanker{}); !reflect.DeepEqual(names(fb.Full), names(base.Full)) {
		t.Errorf("a failing reranker changed the selection: %q, want %q", names(fb.Full), names(base.Full))
	}
}

func TestExplain(t *testing.T) {
	ix := buildIndex(t, 120,
		spec{"Rules", 10, sized("rules", 10)},
		spec{"Sql Style", 5, sized("sql", 100)},
		spec{"Sql Huge", 5, sized("sql", 400)},
		spec{"Deploys", 5, wordy("deploys", 900) + "Run a sql check once."},
	)
	got := map[string]Explanation{}
	for _, x := range Explain(ix, []string{"sql"}, 120, 50, nil) {
		got[x.Name] = x
	}
	for name, want := range map[string]string{"rules": OutcomeCritical, "sql-style": OutcomeSent, "sql-huge": OutcomeNamed, "deploys": OutcomeWeak} {
		if got[name].Outcome != want {
			t.Errorf("%s: outcome %q, want %q (%s)", name, got[name].Outcome, want, got[name])
		}
	}
	if x := got["sql-style"]; len(x.Tags) != 1 || x.Tags[0].Tag != "sql" || x.Tags[0].Score <= 0 || x.Relevance < x.Tags[0].Score {
		t.Errorf("sql-style score parts: %+v", x)
	}
	if x := got["deploys"]; x.Relevance >= x.Floor || x.Relevance <= 0 {
		t.Errorf("deploys: relevance %.2f, floor %.2f: want below the floor and above 0", x.Relevance, x.Floor)
	}
	// Without index lines to name it in, a match below the floor is only left out.
	found := false
	for _, x := range Explain(ix, []string{"sql"}, 120, 0, nil) {
		if x.Name == "deploys" {
			found = true
			if x.Outcome != OutcomeBelow {
				t.Errorf("deploys with an index cap of 0: outcome %q, want %q", x.Outcome, OutcomeBelow)
			}
		}
	}
	if !found {
		t.Error("deploys with an index cap of 0: not explained, want it below the floor")
	}
	// With a table of contents that fits (a content pipeline made one), the big prompt is sent
	// as its contents, and said so.
	for i := range ix.entries {
		if ix.entries[i].Name == "sql-huge" {
			ix.entries[i].TOCBytes = 10
		}
	}
	for _, x := range Explain(ix, []string{"sql"}, 120, 50, nil) {
		if x.Name == "sql-huge" && x.Outcome != OutcomeTOC {
			t.Errorf("sql-huge with a table of contents: outcome %q, want %q", x.Outcome, OutcomeTOC)
		}
	}
}

// namingRanker names the candidates whose names it holds, in its order; it records what it
// was offered.
type namingRanker struct {
	names   []string
	offered *[]string
}

func (n namingRanker) Rerank(_ context.Context, _ Task, c []Entry) ([]string, error) {
	var ids []string
	for _, name := range n.names {
		for _, e := range c {
			if e.Name == name {
				ids = append(ids, e.ID)
			}
		}
	}
	for _, e := range c {
		*n.offered = append(*n.offered, e.Name)
	}
	return ids, nil
}

func TestSelectRerankedBelowFloor(t *testing.T) {
	ix := buildIndex(t, 10_000,
		spec{"Sql Style", 5, "Name tables in the plural. Sql keywords in upper case.\n\n## Sql\n"},
		spec{"Release Notes", 5, wordy("release", 600) + "Mention a sql change when there is one.\n"},
		spec{"Other", 5, "Nothing.\n"},
	)
	base := Select(ix, []string{"sql"}, 10_000, 50, nil)
	if got := names(base.Full); !slices.Equal(got, []string{"sql-style"}) {
		t.Fatalf("deterministic selection %q; the test needs release-notes below the floor", got)
	}
	var offered []string
	re := SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 10_000, 50, nil, namingRanker{[]string{"release-notes"}, &offered})
	if !slices.Equal(offered, []string{"sql-style", "release-notes"}) {
		t.Errorf("offered %q, want the candidate then the match below the floor", offered)
	}
	if got := names(re.Full); !slices.Equal(got, []string{"release-notes"}) {
		t.Errorf("sent %q: a match below the floor the reranker names is sent; the candidate it does not name is not", got)
	}
	if got := names(re.Weak); !slices.Equal(got, []string{"sql-style"}) {
		t.Errorf("weak matches %q: the candidate the reranker does not name is named as one, one read_prompts away", got)
	}
	// A tag that is a prompt's name sends it, whatever the reranker chooses.
	re = SelectReranked(context.Background(), ix, Task{Tags: []string{"sql", "sql-style"}}, 10_000, 50, nil, namingRanker{[]string{"release-notes"}, &offered})
	if got := names(re.Full); !slices.Equal(got, []string{"release-notes", "sql-style"}) {
		t.Errorf("sent %q with the tag sql-style: want the reranker's choice and the prompt asked for by name", got)
	}
	offered = nil
	re = SelectReranked(context.Background(), ix, Task{Tags: []string{"sql"}}, 10_000, 50, nil, namingRanker{[]string{"sql-style"}, &offered})
	if got := names(re.Full); !slices.Equal(got, []string{"sql-style"}) {
		t.Errorf("sent %q: a match below the floor the reranker leaves out stays out", got)
	}
	if got := names(re.Weak); !slices.Equal(got, []string{"release-notes"}) {
		t.Errorf("weak matches %q: one the reranker leaves out is still named, for the assistant to judge", got)
	}
}

// TestSelectWeakMatches: the best matches below the floor are named, best first, at most
// weakCap and within the index cap, in place of as many index lines; the rest of the index
// follows without them, and read_prompts with a weak match's name as a tag sends it.
func TestSelectWeakMatches(t *testing.T) {
	specs := []spec{{"Sql Style", 5, sized("sql", 100)}, {"Sql Guide", 5, sized("sql", 100)}}
	// Bodies that say "sql" once, longer and longer: weaker and weaker matches.
	for i := range weakCap + 3 {
		specs = append(specs, spec{fmt.Sprintf("Weak %02d", i), 5, wordy(fmt.Sprintf("topic%c", 'a'+i), 1000+200*i) + "Run the sql check."})
	}
	for i := range 20 {
		specs = append(specs, spec{fmt.Sprintf("Other %02d", i), 5, sized("other", 50)})
	}
	ix := buildIndex(t, 10000, specs...)
	sel := Select(ix, []string{"sql"}, 10000, 12, nil)
	if got := names(sel.Full); !reflect.DeepEqual(got, []string{"sql-guide", "sql-style"}) {
		t.Fatalf("sent %q, want [sql-guide sql-style]: the weak matches must stay below the floor", got)
	}
	var want []string
	for i := range weakCap {
		want = append(want, fmt.Sprintf("weak-%02d", i))
	}
	if got := names(sel.Weak); !reflect.DeepEqual(got, want) {
		t.Errorf("weak matches %q, want the %d best below the floor, best first: %q", got, weakCap, want)
	}
	if len(sel.Weak)+len(sel.Remaining) != 12 {
		t.Errorf("%d weak + %d remaining index lines, want the cap, 12", len(sel.Weak), len(sel.Remaining))
	}
	for _, e := range sel.Remaining {
		if slices.Contains(want, e.Name) {
			t.Errorf("%s is named twice: as a weak match and in the rest of the index", e.Name)
		}
	}
	if unnamed := ix.Len() - 2 - len(sel.Weak) - len(sel.Remaining); sel.Omitted != unnamed {
		t.Errorf("omitted %d, want %d (neither sent nor named)", sel.Omitted, unnamed)
	}
	if small := Select(ix, []string{"sql"}, 10000, 3, nil); len(small.Weak) != 3 || len(small.Remaining) != 0 {
		t.Errorf("cap 3: %d weak, %d remaining; want 3 and 0", len(small.Weak), len(small.Remaining))
	}

	s := NewSession(project(10000, nil))
	b := s.Begin(ix, []string{"sql"})
	text, _ := render(t, Renderer{}, ix, b)
	// After what is sent, before the rest of the index.
	matched, weak, rest := strings.Index(text, "## Prompts matching your task"), strings.Index(text, "## Weaker matches, not sent"), strings.Index(text, "Other prompts in this project")
	if matched < 0 || weak < matched || rest < weak {
		t.Errorf("sections at %d (matching), %d (weaker matches), %d (other prompts): want them present, in that order:\n%s", matched, weak, rest, text)
	}
	for _, e := range b.Weak {
		if !strings.Contains(text, e.Line()) {
			t.Errorf("the briefing lacks the weak match %q", e.Line())
		}
	}
	if got := b.Result(text).WeakMatches; !reflect.DeepEqual(got, names(b.Weak)) {
		t.Errorf("result weakMatches %q, want %q", got, names(b.Weak))
	}
	weakest := b.Weak[len(b.Weak)-1].Name
	if got := names(s.Read(ix, []string{weakest}).Full); len(got) == 0 || got[0] != weakest {
		t.Errorf("read_prompts [%s] sent %q: the name of a weak match must fetch it, first", weakest, got)
	}
}

// TestSelectByName: a tag that is a prompt's whole name puts it first, also a name longer than
// a tag may be (tags are cut to MaxTagLen) beside prompts that share all its words, and also
// when its words alone would leave it below the floor.
func TestSelectByName(t *testing.T) {
	// Siblings whose bodies say the name's words again rank above the named prompt.
	long := "Review dependency updates in the payment service"
	words := "Review dependency updates in the payment service."
	ix := buildIndex(t, 10_000,
		spec{long + " 42", 5, sized("the first", 100)},
		spec{long + " 17", 5, sized(words, 100)},
		spec{long + " 9", 5, sized(words, 100)},
		spec{long + " 8", 5, sized(words, 100)},
		spec{long + " 7", 5, sized(words, 100)},
		spec{"Sql Style", 5, sized("sql", 100)},
		spec{"Release Notes", 5, wordy("release", 900) + "Run the sql check.\n"},
	)
	name := promptlib.Slug(long + " 42")
	if utf8.RuneCountInString(name) <= MaxTagLen {
		t.Fatalf("the test needs a name over MaxTagLen: %q", name)
	}
	// Budget for one prompt of the three alike: the named one must be it.
	sel := Select(ix, []string{name}, 130, 50, nil)
	if got := names(sel.Full); !slices.Equal(got, []string{name}) {
		t.Errorf("tag %q sent %q, want that prompt first (the budget takes one)", name, got)
	}
	sel = Select(ix, []string{"sql", "release-notes"}, 10_000, 50, nil)
	if got := names(sel.Full); len(got) == 0 || got[0] != "release-notes" {
		t.Errorf("tags [sql release-notes] sent %q, want release-notes first", got)
	}
	sent := map[string]bool{}
	e, _ := ix.ByName("release-notes")
	sent[e.ID] = true
	if got := names(Select(ix, []string{"release-notes"}, 10_000, 50, sent).AlreadySent); !slices.Equal(got, []string{"release-notes"}) {
		t.Errorf("asked for by name after it was sent: already sent %q, want [release-notes]", got)
	}
	for _, x := range Explain(ix, []string{"sql", "release-notes"}, 10_000, 50, nil) {
		if x.Name == "release-notes" && (!x.ByName || !strings.Contains(x.String(), "asked for by name")) {
			t.Errorf("explain: %s; want it asked for by name", x)
		}
	}
}

func TestBritishAndAmericanSpellings(t *testing.T) {
	// A library in British English, tags in American, and the reverse.
	ix := buildIndex(t, 10_000,
		spec{"Analytics Anonymisation", 5, "Drop the last octet of every IP address.\n"},
		spec{"Query Optimization", 5, "Read the plan before adding an index.\n"},
		spec{"Colour Contrast", 5, "Text meets 4.5:1 against its background.\n"},
		spec{"Data Centre Failover", 5, "Promote the standby region.\n"},
		spec{"Cancelled Orders", 5, "Refund before you release the stock.\n"},
		spec{"Unrelated", 5, "Nothing here.\n"},
	)
	for tag, want := range map[string]string{
		"anonymizing": "analytics-anonymisation",
		"optimised":   "query-optimization",
		"color":       "colour-contrast",
		"centers":     "data-centre-failover",
		"canceled":    "cancelled-orders",
	} {
		got := names(Select(ix, []string{tag}, 10_000, 50, nil).Full)
		if len(got) == 0 || got[0] != want {
			t.Errorf("%q sent %q, want %s first", tag, got, want)
		}
	}
}

func TestScriptsWithoutSpaces(t *testing.T) {
	// Chinese and Japanese are written without spaces, and Korean words carry their particles:
	// a tag is found inside a run of text, in a title, a heading or the body.
	ix := buildIndex(t, 10_000,
		spec{"日本語のレビュー", 5, "日本語の文章を確認する。\n"},
		spec{"数据库迁移", 5, "在生产环境中执行数据库迁移前先备份。\n"},
		spec{"데이터베이스 백업", 5, "데이터베이스를 매일 백업합니다.\n"},
		spec{"API設計", 5, "## エラー処理\n\nエラーは構造化して返す。\n"},
		spec{"हिंदी समीक्षा", 5, "परीक्षण से पहले समीक्षा करें।\n"},
		spec{"Unrelated", 5, "Nothing here.\n"},
	)
	for tag, want := range map[string]string{
		"日本語":     "日本語のレビュー",
		"レビュー":    "日本語のレビュー",
		"文章":      "日本語のレビュー",
		"数据库":     "数据库迁移",
		"备份":      "数据库迁移",
		"데이터베이스":  "데이터베이스 백업",
		"エラー処理":   "API設計",
		"設計":      "API設計",
		"api":     "API設計",
		"परीक्षण": "हिंदी समीक्षा",
	} {
		got := Select(ix, NormalizeTags([]string{tag}), 10_000, 50, nil).Full
		if len(got) == 0 || got[0].Title != want {
			var titles []string
			for _, e := range got {
				titles = append(titles, e.Title)
			}
			t.Errorf("%q sent %q, want %q first", tag, titles, want)
		}
	}
	// A request in Japanese, intercepted, asks for the Japanese prompts.
	tags := ix.InterceptTags("search_prompts", []byte(`{"query":"日本語の文章をレビューしてください"}`))
	got := Select(ix, tags, 10_000, 50, nil).Full
	if len(got) == 0 || got[0].Title != "日本語のレビュー" {
		t.Errorf("intercepted Japanese request: tags %q sent %v", tags, got)
	}
}
