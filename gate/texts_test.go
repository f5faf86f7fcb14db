package gate

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"project_name": "web", "prompt_index": "- a: {{project_name}}", "empty": ""}
	tests := []struct {
		name, tmpl, want string
		unknown          []string
	}{
		{"no variables", "plain text", "plain text", nil},
		{"one", "Project {{project_name}}.", "Project web.", nil},
		{"spaces inside braces", "{{ project_name }}", "web", nil},
		{"single pass: values are not expanded again", "{{prompt_index}}", "- a: {{project_name}}", nil},
		{"unknown left as typed and reported once", "{{ nope }} {{project_name}} {{nope}} {{other}}", "{{ nope }} web {{nope}} {{other}}", []string{"nope", "other"}},
		{"empty value", "[{{empty}}]", "[]", nil},
		{"unclosed", "a {{project_name", "a {{project_name", nil},
		{"empty braces", "{{}} {{ }}", "{{}} {{ }}", nil},
		{"adjacent", "{{project_name}}{{project_name}}", "webweb", nil},
		{"prompt placeholder syntax is unknown", "{{language|Go}}", "{{language|Go}}", []string{"language|Go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unknown := Expand(tt.tmpl, vars)
			if got != tt.want || !reflect.DeepEqual(unknown, tt.unknown) {
				t.Errorf("Expand(%q) = %q, %q; want %q, %q", tt.tmpl, got, unknown, tt.want, tt.unknown)
			}
		})
	}
}

func FuzzExpand(f *testing.F) {
	f.Add("Project {{project_name}}: {{prompt_index}} {{x}}", "{{project_name}}")
	f.Add("{{{{}}}}", "}}{{")
	f.Add("{{ a", "")
	f.Fuzz(func(t *testing.T, tmpl, value string) {
		vars := map[string]string{"project_name": value}
		got, unknown := Expand(tmpl, vars)
		// Without variables the template comes back untouched.
		if plain, u := Expand(tmpl, nil); plain != tmpl {
			t.Fatalf("Expand(%q, nil) = %q, want it unchanged", tmpl, plain)
		} else if len(u) > strings.Count(tmpl, "{{") {
			t.Fatalf("%d unknown names from %d openings", len(u), strings.Count(tmpl, "{{"))
		}
		// Each substitution replaces at least 4 bytes ("{{}}" plus a name) with the value.
		if max := len(tmpl) + strings.Count(tmpl, "{{")*len(value); len(got) > max {
			t.Fatalf("output of %d bytes, want at most %d", len(got), max)
		}
		for _, u := range unknown {
			if u == "project_name" || !strings.Contains(tmpl, u) {
				t.Fatalf("unknown %q is not an unknown name of the template", u)
			}
		}
	})
}

func TestTexts(t *testing.T) {
	names := TextNames()
	if want := []string{TextEncouragement, TextInstructions, TextInterceptPreamble, TextReminder, TextGreeting}; !reflect.DeepEqual(names, want) {
		t.Errorf("TextNames() = %q, want %q", names, want)
	}
	known := map[string]string{VarPromptIndex: "", VarProjectName: "", VarMatchedPrompts: "", VarRemainingPrompts: "", VarTools: ""}
	for _, n := range names {
		body, ok := DefaultText(n)
		if !ok || body == "" {
			t.Errorf("no default for %s", n)
		}
		if _, unknown := Expand(body, known); len(unknown) > 0 {
			t.Errorf("default %s uses unknown variables %q", n, unknown)
		}
	}
	if _, ok := DefaultText("nope"); ok {
		t.Error("DefaultText(nope) found something")
	}
	if instr, _ := DefaultText(TextInstructions); !strings.Contains(instr, "begin_session") || !strings.Contains(instr, "read_prompts") || !strings.Contains(instr, "{{prompt_index}}") {
		t.Errorf("gate-instructions does not name begin_session, read_prompts and the index:\n%s", instr)
	}

	over := Texts{TextReminder: "Custom reminder.", TextGreeting: "  \n"}
	for _, tt := range []struct{ name, want string }{
		{TextReminder, "Custom reminder."},
		{TextGreeting, defaults[TextGreeting]}, // a blank override keeps the default
		{TextEncouragement, defaults[TextEncouragement]},
	} {
		if got := over.Get(tt.name); got != tt.want {
			t.Errorf("Get(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Texts(nil).Get(TextReminder); got != defaults[TextReminder] {
		t.Errorf("nil Texts: got %q", got)
	}
}

func TestSystemTexts(t *testing.T) {
	f := newFixture(t)
	f.prompt(SystemFolder, "Gate Encouragement", "old")
	f.prompt(SystemFolder+" / drafts", "gate-encouragement", "newer")
	f.prompt(SystemFolder, "Read Prompts Reminder", "reminder")
	f.prompt(SystemFolder, "Unrelated Note", "ignored")
	f.prompt("Docs / "+SystemFolder, "Session Greeting", "not the top-level system folder")
	f.prompt("", "Gate Instructions", "not in the system folder")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range f.lib.Prompts {
		f.lib.Prompts[i].UpdatedAt = promptlib.Time{Time: base.Add(time.Duration(i) * time.Hour)}
	}
	scope, err := NewScope(f.lib.Folders, NoProject())
	if err != nil {
		t.Fatal(err)
	}
	got := SystemTexts(scope.SystemPrompts(f.lib.Prompts))
	want := Texts{TextEncouragement: "newer", TextReminder: "reminder"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SystemTexts() = %q, want %q", got, want)
	}
}
