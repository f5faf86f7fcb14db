package gate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzInterceptTags checks what every intercept's tags guarantee, whatever the call: normalised
// tags, at most MaxTags, and nothing taken from the user's text under "content".
func FuzzInterceptTags(f *testing.F) {
	f.Add("search_prompts", []byte(`{"query": "database migrations and request timeouts"}`))
	f.Add("getHTTPStatus", []byte(`{"content": "x", "a": ["b", {"body": "c"}], "n": 1}`))
	f.Add("fs__read_file", []byte(`{"path": "web/src/pages/AccountPage.tsx"}`))
	f.Add("", []byte(`[[[[[[`))
	f.Add("x", []byte(`{"a":"\ud800"}`))
	fx := newFixture(f)
	fx.prompt("Engineering / Database", "Database Migrations", "Reversible, with a rollback.\n")
	fx.prompt("Engineering / Api", "Request Timeouts", "Every HTTP call has a timeout.\n")
	fx.prompt("Engineering / Frontend", "React Error Boundaries", "Wrap each page.\n")
	ix := fx.index(f, project(1000, nil))
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		got := ix.InterceptTags(tool, args)
		checkTags(t, got)
		if len(got) > MaxTags {
			t.Errorf("%d tags, more than MaxTags", len(got))
		}
		if !json.Valid(args) {
			return
		}
		hidden := ix.InterceptTags(tool, json.RawMessage(`{"content": `+string(args)+`}`))
		if bare := ix.InterceptTags(tool, json.RawMessage(`{}`)); !slices.Equal(hidden, bare) {
			t.Errorf("tags %q from under \"content\", want only the tool name's %q", hidden, bare)
		}
	})
}

func TestInterceptTags(t *testing.T) {
	f := newFixture(t)
	mig := f.prompt("Engineering / Database", "Database Migrations", "Reversible.\n")
	f.prompt("Engineering / Database", "Query Review", "Explain plans.\n")
	f.prompt("Engineering / Api", "Request Timeouts", "Every HTTP call has a timeout; retry with backoff.\n")
	f.prompt("Engineering / Payments", "Refunds", "Through the payments service.\n")
	f.prompt("Engineering / Frontend", "React Error Boundaries", "Wrap each page.\n")
	f.prompt("Engineering / Infra", "Terraform Conventions", "One state per environment.\n")
	ix := f.index(t, project(1000, nil))
	long := `{"query": "We keep seeing intermittent failures when the orders service calls the inventory service over HTTP; sometimes requests hang for a long time, so I would like to add sensible timeouts and retries."}`
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"a query's meaningful words; tool verbs kept in values", "search_prompts", `{"query": "delete slow query review"}`, []string{"delete", "slow", "query review"}},
		{"a long request is summarised to words the index knows", "search_prompts", long, []string{"service", "calls", "inventory", "http", "requests", "timeouts", "retries"}},
		{"a folder name is a tag", "list_prompts", `{"folder": "Payments"}`, []string{"payments"}},
		{"a prompt id gives its title", "get_prompt", `{"id": "` + strings.ToLower(mig) + `"}`, []string{"database migrations"}},
		{"a prompt name gives its title, as an id does", "get_prompt", `{"name": "query-review"}`, []string{"query review", "query", "review"}},
		{"synonyms count as known words", "search_prompts", `{"query": "observability"}`, []string{"observability"}},
		{"content is never read", "create_prompt", `{"title": "Refunds", "content": "timeouts"}`, []string{"refunds"}},
		{"a file's type says what it is written in", "fs__read_file", `{"path": "web/src/pages/AccountPage.tsx"}`, []string{"file", "pages", "react"}},
		{"in a command too; a type the project does not know is dropped", "shell__run", `{"command": "cat deploy/main.tf api.py"}`, []string{"deploy", "api", "terraform"}},
		{"a URL is not a file", "fetch", `{"url": "https://example.com/x.tsx"}`, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.InterceptTags(tt.tool, json.RawMessage(tt.args))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("InterceptTags(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}

func TestInterceptTagsKeyTerms(t *testing.T) {
	f := newFixture(t)
	f.prompt("Api", "Request Timeouts", "Seeing a timeout makes people retry; we keep seeing it.\n")
	f.prompt("Api", "Retries", "Back off between tries.\n")
	f.prompt("Ops", "Deploys", "Add a pause after each deploy.\n")
	for i := range 12 {
		f.prompt("Misc", fmt.Sprintf("Topic %c", 'a'+i), fmt.Sprintf("Word%c appears only in this body.\n", 'a'+i))
	}
	ix := f.index(t, project(1000, nil))
	t.Run("inflected filler is filler", func(t *testing.T) {
		got := ix.InterceptTags("search_prompts", json.RawMessage(`{"query": "seeing timeouts, makes retries"}`))
		if want := []string{"timeouts", "retries"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("request verbs and function words are not topics", func(t *testing.T) {
		// "add" and "after" are in a body, so the index knows them, but they say how the
		// request is phrased, not what it is about.
		got := ix.InterceptTags("search_prompts", json.RawMessage(`{"query": "add retries after timeouts"}`))
		if want := []string{"retries", "timeouts"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("a phrase the index holds is a tag in place of its words", func(t *testing.T) {
		got := ix.InterceptTags("search_prompts", json.RawMessage(`{"query": "request timeouts for the worda client"}`))
		if want := []string{"request timeouts", "worda"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("a long request keeps the words that name topics", func(t *testing.T) {
		// Twelve words each in one body only, as rare as "timeouts" and "retries" (one prompt
		// each) but said in passing: the two title words must survive the cut to MaxTags.
		var q []string
		for i := range 12 {
			q = append(q, fmt.Sprintf("word%c", 'a'+i))
		}
		q = append(q, "timeouts", "retries")
		args, _ := json.Marshal(map[string]string{"query": strings.Join(q, " ")})
		got := ix.InterceptTags("search_prompts", args)
		if len(got) != MaxTags || !slices.Contains(got, "timeouts") || !slices.Contains(got, "retries") {
			t.Errorf("got %q, want %d tags with timeouts and retries", got, MaxTags)
		}
	})
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"getUserName HTTPServer": {"get", "User", "Name", "HTTP", "Server"},
		"API設計":                  {"API", "設計"},
		"日本語の文章をレビュー":            {"日本語", "文章", "レビュー"},
		// A combining mark stays with its letter, and does not hide what the letter is.
		"テ\u3099ータベース":  {"テ\u3099ータベース"},
		"Cafe\u0301Bar": {"Cafe\u0301", "Bar"},
		"ﾃﾞｰﾀ":          {"ﾃﾞｰﾀ"},
	} {
		if got := splitWords(in); !slices.Equal(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
