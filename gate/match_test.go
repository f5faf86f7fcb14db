package gate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestHits(t *testing.T) {
	e := Entry{Name: "error-handling", Title: "Error Handling in Go", Summary: "Wrap errors with context.",
		Chapters: []string{"Sentinel errors", "Logging"}, FolderPath: "Engineering / Go"}
	tests := []struct {
		tags []string
		want int
	}{
		{nil, 0},
		{[]string{"error"}, 4},              // name, title, summary ("errors"), chapters
		{[]string{"error handling"}, 2},     // name (folded), title
		{[]string{"go"}, 2},                 // title, folder
		{[]string{"logging", "context"}, 2}, // chapters, summary
		{[]string{"kubernetes"}, 0},
		{[]string{"engineering / go"}, 0}, // tags never hold '/', so paths match piecewise only
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.tags, ","), func(t *testing.T) {
			if got := Hits(&e, NormalizeTags(tt.tags)); got != tt.want {
				t.Errorf("Hits(%q) = %d, want %d", tt.tags, got, tt.want)
			}
		})
	}
}

// library is a small project for matching tests: name → (priority, content size).
type spec struct {
	title    string
	priority int
	body     string
}

func buildIndex(tb testing.TB, budget int, specs ...spec) *Index {
	tb.Helper()
	f := newFixture(tb)
	p := project(budget, nil)
	for _, s := range specs {
		f.prompt("Docs", s.title, s.body)
		p.Priorities[promptlib.Slug(s.title)] = s.priority
	}
	return f.index(tb, p)
}

// sized is a body of exactly n bytes whose first sentence is "About topic."
func sized(topic string, n int) string {
	s := "About " + topic + "."
	return s + strings.Repeat(" ", max(0, n-len(s)))
}

func TestSelect(t *testing.T) {
	type want struct {
		critical, full, listed, already, remaining []string
		omitted, moreListed                        int
	}
	tests := []struct {
		name   string
		budget int
		specs  []spec
		tags   []string
		sent   []string // names already sent
		want   want
	}{
		{
			name: "empty tags: only priority 10", budget: 1000,
			specs: []spec{{"Rules", 10, sized("rules", 100)}, {"Sql", 5, sized("sql", 100)}},
			tags:  nil,
			want:  want{critical: []string{"rules"}, remaining: []string{"sql"}},
		},
		{
			name: "no match", budget: 1000,
			specs: []spec{{"Sql", 5, sized("sql", 100)}, {"Go", 9, sized("go", 100)}},
			tags:  []string{"kubernetes"},
			want:  want{remaining: []string{"go", "sql"}},
		},
		{
			name: "thresholds: 4-9 need one hit, 1-3 need two", budget: 10000,
			specs: []spec{
				{"Sql Low", 3, sized("nothing", 10)},   // one hit (name+title = 2 hits: included)
				{"Other Low", 2, sized("sql", 10)},     // one hit (summary): excluded
				{"Sql Mid", 4, sized("nothing", 10)},   // included
				{"Other High", 7, sized("sql", 10)},    // one hit: included
				{"Unrelated", 9, sized("nothing", 10)}, // no hit: excluded
			},
			tags: []string{"sql"},
			want: want{full: []string{"sql-mid", "other-high", "sql-low"}, remaining: []string{"unrelated", "other-low"}},
		},
		{
			name: "order: score, then priority, then title", budget: 10000,
			specs: []spec{
				{"B Sql", 5, sized("sql", 10)},   // 3 hits × 5 = 15
				{"A Sql", 5, sized("sql", 10)},   // 15, same priority: title A first
				{"Sql X", 3, sized("sql", 10)},   // 3 × 3 = 9
				{"Y", 9, sized("sql", 10)},       // 1 × 9 = 9, higher priority than Sql X
				{"C Sql", 8, sized("other", 10)}, // 2 × 8 = 16
			},
			tags: []string{"sql"},
			want: want{full: []string{"c-sql", "a-sql", "b-sql", "y", "sql-x"}},
		},
		{
			name: "a prompt larger than the budget is listed and filling goes on", budget: 150,
			specs: []spec{{"Sql Huge", 9, sized("sql", 5000)}, {"Sql Small", 5, sized("sql", 100)}, {"Sql Next", 5, sized("sql", 100)}},
			tags:  []string{"sql"},
			want:  want{full: []string{"sql-next"}, listed: []string{"sql-huge", "sql-small"}},
		},
		{
			name: "a single prompt larger than the budget", budget: 100,
			specs: []spec{{"Sql", 5, sized("sql", 101)}},
			tags:  []string{"sql"},
			want:  want{listed: []string{"sql"}},
		},
		{
			name: "priority 10 beyond the budget: all in full, nothing else fits", budget: 100,
			specs: []spec{
				{"R1", 10, sized("one", 80)}, {"R2", 10, sized("two", 80)}, {"R3 Sql", 10, sized("three", 80)},
				{"Sql", 9, sized("sql", 10)},
			},
			tags: []string{"sql"},
			want: want{critical: []string{"r3-sql", "r1", "r2"}, listed: []string{"sql"}},
		},
		{
			name: "already sent: reported when matched, never re-sent", budget: 1000,
			specs: []spec{{"Rules", 10, sized("rules", 10)}, {"Sql", 5, sized("sql", 10)}, {"Sql Two", 5, sized("sql", 10)}, {"Go", 5, sized("go", 10)}},
			tags:  []string{"sql"},
			sent:  []string{"rules", "sql", "go"},
			want:  want{full: []string{"sql-two"}, already: []string{"sql"}},
		},
		{
			name: "already sent priority 10 reported when a tag hits it", budget: 1000,
			specs: []spec{{"Sql Rules", 10, sized("rules", 10)}},
			tags:  []string{"sql"},
			sent:  []string{"sql-rules"},
			want:  want{already: []string{"sql-rules"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := buildIndex(t, tt.budget, tt.specs...)
			sent := map[string]bool{}
			for _, n := range tt.sent {
				e, ok := ix.ByName(n)
				if !ok {
					t.Fatalf("no prompt %q", n)
				}
				sent[e.ID] = true
			}
			sel := Select(ix, tt.tags, tt.budget, DefaultIndexCap, sent)
			got := want{names(sel.Critical), names(sel.Full), names(sel.Listed), names(sel.AlreadySent), names(sel.Remaining), sel.Omitted, sel.MoreListed}
			norm := func(w want) want {
				for _, p := range []*[]string{&w.critical, &w.full, &w.listed, &w.already, &w.remaining} {
					if *p == nil {
						*p = []string{}
					}
				}
				return w
			}
			if !reflect.DeepEqual(norm(got), norm(tt.want)) {
				t.Errorf("got  %+v\nwant %+v", norm(got), norm(tt.want))
			}
		})
	}
}

func TestSelectCaps(t *testing.T) {
	// 60 prompts against the index cap of 50; ten of them important.
	ix, _ := sixty(t, 60, func(i int) int {
		if i > 50 {
			return 8
		}
		return 5
	})
	t.Run("remaining index over the cap: important only", func(t *testing.T) {
		sel := Select(ix, []string{"nothing"}, 1000, 50, nil)
		if len(sel.Remaining) != 10 || sel.Remaining[0].Name != "p51" || sel.Omitted != 50 {
			t.Errorf("got %d remaining from %q, %d omitted; want p51..p60 and 50 omitted", len(sel.Remaining), names(sel.Remaining[:1]), sel.Omitted)
		}
	})
	t.Run("remaining index within the cap once some are matched", func(t *testing.T) {
		// "number 1" hits p01 and p10..p19 (summaries "Prompt number 1x."): 11 matched, 49 left.
		sel := Select(ix, []string{"number 1"}, 1000, 50, nil)
		if n := len(sel.Full) + len(sel.Listed); n != 11 {
			t.Fatalf("got %d matched, want 11", n)
		}
		if len(sel.Remaining) != 49 || sel.Omitted != 0 {
			t.Errorf("got %d remaining, %d omitted; want 49 and 0", len(sel.Remaining), sel.Omitted)
		}
	})
	t.Run("over-budget listing is capped", func(t *testing.T) {
		sel := Select(ix, []string{"prompt"}, 0, 50, nil)
		if len(sel.Listed) != 50 || sel.MoreListed != 10 || len(sel.Full) != 0 {
			t.Errorf("got %d listed, %d more, %d full; want 50, 10, 0", len(sel.Listed), sel.MoreListed, len(sel.Full))
		}
	})
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
