package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Short texts make the structure visible; the defaults are checked separately.
var testTexts = Texts{
	TextInstructions:      "INSTRUCTIONS for {{project_name}}\n{{prompt_index}}",
	TextGreeting:          "GREETING {{project_name}}; tools: {{tools}}",
	TextEncouragement:     "ENCOURAGEMENT\n{{remaining_prompts}}",
	TextReminder:          "REMINDER {{mystery}}",
	TextInterceptPreamble: "PREAMBLE",
}

func renderFixture(tb testing.TB) *Index {
	return buildIndex(tb, 120,
		spec{"Rules", 10, "Always run the tests.\n"},
		spec{"Sql Migrations", 5, "Write reversible migrations.\n\n## Rollback\n\nKeep a down step.\n"},
		spec{"Sql Huge", 6, sized("sql in depth", 300)},
		spec{"Go Style", 5, "Use gofmt.\n"},
		spec{"Release", 2, "Tag the release.\n"},
	)
}

func TestRenderBriefing(t *testing.T) {
	ix := renderFixture(t)
	r := Renderer{Texts: testTexts, Tools: []string{"list_prompts", "read_prompts"}}
	s := NewSession(ix.Project())

	got, unknown := render(t, r, ix, s.Begin(ix, []string{"SQL"}))
	want := `GREETING demo; tools: list_prompts, read_prompts

## Critical rules

Always included, whatever your task. Follow them.

<prompt name="rules">
Always run the tests.
</prompt>

## Prompts matching your task (tags: sql)

<prompt name="sql-migrations">
Write reversible migrations.

## Rollback

Keep a down step.
</prompt>

## Also matching, over the byte budget

Not included: each is more than a briefing carries. Read the ones you need with get_prompt and the id given:
- sql-huge: About sql in depth. (id 00000004-0000-4000-8000-000000000004, 1 KB: more than a briefing carries)

ENCOURAGEMENT
- go-style: Use gofmt.
- release: Tag the release.
`
	if got != want || len(unknown) != 0 {
		t.Errorf("begin_session briefing:\n%s\nwant:\n%s\nunknown %q", got, want, unknown)
	}

	got, unknown = render(t, r, ix, s.Read(ix, []string{"sql", "gofmt"}))
	want = `## Prompts matching your tags (tags: sql, gofmt)

<prompt name="go-style">
Use gofmt.
</prompt>

## Also matching, over the byte budget

Not included: each is more than a briefing carries. Read the ones you need with get_prompt and the id given:
- sql-huge: About sql in depth. (id 00000004-0000-4000-8000-000000000004, 1 KB: more than a briefing carries)

## Already provided in this session

These match too; they were sent to you earlier in this session and are not repeated:
- sql-migrations

## Other prompts

- release: Tag the release.

REMINDER {{mystery}}
`
	if got != want {
		t.Errorf("read_prompts answer:\n%s\nwant:\n%s", got, want)
	}
	if !reflect.DeepEqual(unknown, []string{"mystery"}) {
		t.Errorf("unknown = %q, want [mystery]", unknown)
	}

	got, _ = render(t, r, ix, s.Read(ix, []string{"kubernetes"}))
	want = `## Prompts matching your tags (tags: kubernetes)

No new prompt matched. Try other tags: the words of your task, the area of the code, the kind of change.

## Other prompts

- sql-huge: About sql in depth.
- release: Tag the release.

REMINDER {{mystery}}
`
	if got != want {
		t.Errorf("read_prompts without a match:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderIntercept(t *testing.T) {
	ix := renderFixture(t)
	r := Renderer{Texts: testTexts}
	b, ok := NewSession(ix.Project()).Intercept(ix, "search_prompts", json.RawMessage(`{"query":"gofmt"}`))
	if !ok {
		t.Fatal("not intercepted")
	}
	got, _ := render(t, r, ix, b)
	want := `PREAMBLE

GREETING demo; tools: every tool this server lists

## Critical rules

Always included, whatever your task. Follow them.

<prompt name="rules">
Always run the tests.
</prompt>

## Prompts matching your task (tags: gofmt)

<prompt name="go-style">
Use gofmt.
</prompt>

ENCOURAGEMENT
- sql-huge: About sql in depth.
- sql-migrations: Write reversible migrations.
- release: Tag the release.
`
	if got != want {
		t.Errorf("intercept briefing:\n%s\nwant:\n%s", got, want)
	}

	// A call without words asked nothing: no match "failed", and the briefing says how to ask.
	b, _ = NewSession(ix.Project()).Intercept(ix, "health_check", json.RawMessage(`{}`))
	got, _ = render(t, r, ix, b)
	if !strings.Contains(got, "This call gave no words to match") || strings.Contains(got, "Try other tags") || strings.Contains(got, "no tags") {
		t.Errorf("intercept briefing of a call without words:\n%s", got)
	}
}

func TestRenderInstructions(t *testing.T) {
	ix := renderFixture(t)
	r := Renderer{Texts: testTexts}
	got, _ := r.Instructions(ix, true)
	want := `INSTRUCTIONS for demo
- rules: Always run the tests.
- sql-huge: About sql in depth.
- go-style: Use gofmt.
- sql-migrations: Write reversible migrations.
- release: Tag the release.

Topics the prompts cover (good tags): huge, migrations, release, rollback, sql, style`
	if got != want {
		t.Errorf("gated instructions:\n%s\nwant:\n%s", got, want)
	}
	got, unknown := r.Instructions(ix, false)
	want = `GREETING demo; tools: every tool this server lists

Prompts in this project:
- rules: Always run the tests.
- sql-huge: About sql in depth.
- go-style: Use gofmt.
- sql-migrations: Write reversible migrations.
- release: Tag the release.

Topics the prompts cover (good tags): huge, migrations, release, rollback, sql, style

REMINDER {{mystery}}`
	if got != want || !reflect.DeepEqual(unknown, []string{"mystery"}) {
		t.Errorf("ungated instructions:\n%s\nwant:\n%s\nunknown %q", got, want, unknown)
	}
}

func TestRenderDefaults(t *testing.T) {
	ix, _ := sixty(t, 60, func(i int) int {
		if i <= 5 {
			return 10
		}
		return 5
	})
	r := Renderer{Tools: []string{"search_prompts"}}
	s := NewSession(ix.Project())
	for _, kind := range []string{"instructions", "begin", "read"} {
		var text string
		var unknown []string
		switch kind {
		case "instructions":
			text, unknown = r.Instructions(ix, true)
		case "begin":
			text, unknown = render(t, r, ix, s.Begin(ix, []string{"number 1"}))
		case "read":
			text, unknown = render(t, r, ix, s.Read(ix, []string{"number 2"}))
		}
		if len(unknown) > 0 || strings.Contains(text, "{{") {
			t.Errorf("%s: unexpanded variables %q in\n%s", kind, unknown, text)
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "- ") && len([]rune(line)) > MaxIndexLine {
				t.Errorf("%s: index line too long: %q", kind, line)
			}
		}
	}
	if desc := BeginSessionDescription(ix); !strings.Contains(desc, "- p01: Prompt number 1.") || !strings.Contains(desc, "- p50: Prompt number 50.") || !strings.Contains(desc, "… and 10 more") {
		// Over the cap the index still names the cap's worth of prompts, most important first
		// (issue 9: it used to name only priority ≥ 7, so none in a flat project).
		t.Errorf("begin_session description lacks the capped index:\n%s", desc)
	}
}

func FuzzRenderBriefing(f *testing.F) {
	f.Add("sql", "gofmt", "{{project_name}} {{x}}")
	f.Add("", "  ", "{{remaining_prompts}}{{")
	f.Fuzz(func(t *testing.T, tag1, tag2, text string) {
		ix := renderFixture(t)
		r := Renderer{Texts: Texts{TextEncouragement: text, TextReminder: text}}
		s := NewSession(ix.Project())
		for _, b := range []Briefing{s.Begin(ix, []string{tag1, tag2}), s.Read(ix, []string{tag2, tag1})} {
			out, unknown := render(t, r, ix, b)
			if !strings.HasSuffix(out, "\n") {
				t.Errorf("briefing does not end with a newline")
			}
			for _, u := range unknown {
				if !strings.Contains(text, u) {
					t.Errorf("unknown %q not in the template", u)
				}
			}
			checkTags(t, b.Tags)
			// Every prompt is sent at most once per session.
			for _, e := range b.Sent() {
				if strings.Count(out, "<prompt name=\""+e.Name+"\">\n") != 1 {
					t.Errorf("%s not rendered exactly once", e.Name)
				}
			}
		}
	})
}

// Claude Code cuts the instructions and a tool's description at ClientTextLimit, silently: the
// index in them is cut to fit, keeping the topics and saying how many prompts it leaves out.
func TestIndexFitsClientTextLimit(t *testing.T) {
	d := loadEval(t)
	ix, _, err := LibraryIndex(d.lib, d.project)
	if err != nil {
		t.Fatal(err)
	}
	if full := textLen(IndexText(ix)); full <= ClientTextLimit {
		t.Fatalf("the benchmark's index is %d long, under the limit: the test would prove nothing", full)
	}
	gated, _ := Renderer{}.Instructions(ix, true)
	ungated, _ := Renderer{}.Instructions(ix, false)
	for name, text := range map[string]string{"begin_session description": BeginSessionDescription(ix), "gated instructions": gated, "ungated instructions": ungated} {
		if n := textLen(text); n > ClientTextLimit || n < ClientTextLimit-200 {
			t.Errorf("%s: %d long, want within %d and not far under it", name, n, ClientTextLimit)
		}
		if !strings.Contains(text, "Topics the prompts cover (good tags): ") || !strings.Contains(text, "- golden-rules: ") {
			t.Errorf("%s lacks the topics or the first prompt:\n%s", name, text)
		}
		shown := strings.Count(text, "\n- ") - 1 // the "… and N more" line
		if want := fmt.Sprintf("- … and %d more", ix.Len()-shown); !strings.Contains(text, want) {
			t.Errorf("%s names %d prompts but lacks %q:\n%s", name, shown, want, text)
		}
	}
	// {{prompt_index}} in an ungated session's texts is the index they carry.
	if text, _ := (Renderer{Texts: Texts{TextGreeting: "Index: {{prompt_index}}"}}).Instructions(ix, false); !strings.Contains(text, "Index: - golden-rules: ") {
		t.Errorf("ungated instructions with {{prompt_index}} in the greeting:\n%s", text)
	}
	// A note (the project's servers are not started) ends the instructions whole: the index
	// gives way.
	note := "\n\nThis project's own MCP servers (db) are not started. " + strings.Repeat("é", 200)
	for _, g := range []bool{true, false} {
		if text, _ := (Renderer{Note: note}).Instructions(ix, g); !strings.HasSuffix(text, note) || textLen(text) > ClientTextLimit {
			t.Errorf("gated %v: instructions %d long, ending %q; want the note whole within %d", g, textLen(text), text[max(0, len(text)-80):], ClientTextLimit)
		}
	}
	for room := 0; room < 3000; room += 7 { // the measured length is the made one's
		if got := IndexTextWithin(ix, room); textLen(got) > room {
			t.Fatalf("IndexTextWithin(%d) is %d long", room, textLen(got))
		}
	}
	if got := IndexTextWithin(ix, 10); got != "" {
		t.Errorf("no room: got %q, want nothing", got)
	}
	if got := textLen("a😀é"); got != 4 {
		t.Errorf(`textLen("a😀é") = %d, want 4 (the emoji is two UTF-16 code units)`, got)
	}
}

// A project without prompts says so: other tags, or read_prompts, would find nothing either.
func TestRenderEmptyProject(t *testing.T) {
	p, err := ParseProject("empty.yaml", []byte("byteBudget: 1000\n"))
	if err != nil {
		t.Fatal(err)
	}
	ix, _, err := LibraryIndex(promptlib.Library{}, p)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(p)
	for _, b := range []Briefing{s.Begin(ix, []string{"sql"}), s.Read(ix, []string{"go"})} {
		text, _, err := Renderer{}.Briefing(context.Background(), b, LibraryBodies(promptlib.Library{}))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "## This project has no prompts yet") || strings.Contains(text, "Try other tags") || strings.Contains(text, "Do not assume") {
			t.Errorf("%s briefing of an empty project:\n%s", b.Kind, text)
		}
	}
}
