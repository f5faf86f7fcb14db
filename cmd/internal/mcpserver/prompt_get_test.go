package mcpserver

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

const (
	reviewID = librarytest.ReviewID
	systemID = librarytest.SystemID
	subSysID = librarytest.SubSysID
	workID   = librarytest.WorkID
)

func promptFixture() promptlib.Library { return librarytest.Fixture() }

func TestPromptsList(t *testing.T) {
	ts := newTestSurface(t, promptFixture())
	var res mcp.ListPromptsResult
	if e := ts.rpc(t, "prompts/list", nil, &res); e != nil {
		t.Fatalf("prompts/list: %+v", e)
	}
	want := []mcp.Prompt{
		{Name: "code-review", Title: "Code Review", Description: "Review this {{language}} code.", Arguments: []mcp.PromptArgument{
			{Name: "language", Required: true, Description: "Required; used in line 1, line 5 under \"## Tone\"."},
			{Name: "tone", Description: "Optional, default \"friendly\"; used in line 5 under \"## Tone\"."},
		}},
		{Name: "code-review-d000", Title: "Code review", Description: "Another one."},
		{Name: "security-audit", Title: "Security Audit", Description: "Audit {{target}}.", Arguments: []mcp.PromptArgument{
			{Name: "target", Required: true, Description: "Required; used in line 1."},
		}},
	}
	if !reflect.DeepEqual(res.Prompts, want) {
		t.Errorf("prompts/list (system folder and its subfolders excluded):\n got %+v\nwant %+v", res.Prompts, want)
	}
}

func TestPromptsGet(t *testing.T) {
	ts := newTestSurface(t, promptFixture())
	tests := []struct {
		name     string
		prompt   string
		args     map[string]string
		wantText string
		wantCode int
		wantIn   []string // the error message names these
	}{
		{name: "defaults and url", prompt: "code-review", args: map[string]string{"language": "Go"},
			wantText: "Review this **Go** code. Be thorough.\n\n## Tone\n\nKeep it friendly; Go idioms first.\n\nReference: https://example.com/guide"},
		{name: "values stay literal", prompt: "code-review", args: map[string]string{"language": "{{tone}}", "tone": "{{language}}"},
			wantText: "Review this **{{tone}}** code. Be thorough.\n\n## Tone\n\nKeep it {{language}}; {{tone}} idioms first.\n\nReference: https://example.com/guide"},
		{name: "missing required", prompt: "code-review", args: map[string]string{"tone": "dry"},
			wantCode: mcp.INVALID_PARAMS, wantIn: []string{`missing required argument "language"`, `tone (optional, default "friendly")`}},
		{name: "unknown argument", prompt: "code-review", args: map[string]string{"language": "Go", "lang": "x"},
			wantCode: mcp.INVALID_PARAMS, wantIn: []string{`unknown argument "lang"`}},
		{name: "unknown prompt suggests names", prompt: "code-reveiw",
			wantCode: mcp.INVALID_PARAMS, wantIn: []string{"'code-reveiw'", "'code-review'", "prompts/list"}},
		{name: "asked by title", prompt: "security audit",
			wantCode: mcp.INVALID_PARAMS, wantIn: []string{"unknown prompt 'security audit': prompts are named by their title's slug, and the prompt of that title is named 'security-audit'."}},
		{name: "system prompts are not served", prompt: "gate-intro",
			wantCode: mcp.INVALID_PARAMS, wantIn: []string{"'gate-intro'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res getPromptResult
			e := ts.rpc(t, "prompts/get", map[string]any{"name": tt.prompt, "arguments": tt.args}, &res)
			if tt.wantCode != 0 {
				if e == nil {
					t.Fatalf("prompts/get %s %v: got success, want error %d", tt.prompt, tt.args, tt.wantCode)
				}
				if e.Code != tt.wantCode {
					t.Errorf("got code %d, want %d (%s)", e.Code, tt.wantCode, e.Message)
				}
				for _, w := range tt.wantIn {
					if !strings.Contains(e.Message, w) {
						t.Errorf("message %q does not contain %q", e.Message, w)
					}
				}
				return
			}
			if e != nil {
				t.Fatalf("prompts/get: %+v", e)
			}
			if got := res.text(t); got != tt.wantText {
				t.Errorf("text:\n got %q\nwant %q", got, tt.wantText)
			}
		})
	}
}

// A title in a script Slug keeps nothing of is named prompt-XXXX: asked by its title, the
// answer names it; asked by another such title, nothing is suggested (every "prompt…" name
// was, as the slug of the question).
func TestPromptsGetByATitleInAnotherScript(t *testing.T) {
	lib := promptFixture()
	lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: "D0000000-0000-4000-8000-000000000009", Title: "コードレビュー", Content: "x"})
	ts := newTestSurface(t, lib)
	var res getPromptResult
	e := ts.rpc(t, "prompts/get", map[string]any{"name": "コードレビュー"}, &res)
	if e == nil || !strings.Contains(e.Message, "the prompt of that title is named 'prompt'") {
		t.Errorf("prompts/get by its title: %+v, want its name", e)
	}
	e = ts.rpc(t, "prompts/get", map[string]any{"name": "ドキュメント"}, &res)
	if e == nil || strings.Contains(e.Message, "Did you mean") {
		t.Errorf("prompts/get by another title: %+v, want no suggestion", e)
	}
}

// getPromptResult decodes a prompts/get result (mcp.GetPromptResult's content is an interface
// that does not unmarshal).
type getPromptResult struct {
	Description string `json:"description"`
	Messages    []struct {
		Role    string `json:"role"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
}

// text is the one user text message a rendered library prompt must be.
func (r getPromptResult) text(tb testing.TB) string {
	tb.Helper()
	if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Content.Type != "text" {
		tb.Fatalf("got messages %+v, want one user text message", r.Messages)
	}
	return r.Messages[0].Content.Text
}

func TestPromptsClosestNames(t *testing.T) {
	tb := newTableBuilder(0, nil)
	for i, n := range []string{"code-review", "code-review-ab12", "security-review", "summarize", "translate", "write-tests"} {
		if err := tb.add(servedPrompt{id: fmt.Sprint(i), name: n}, -1); err != nil {
			t.Fatal(err)
		}
	}
	snap := &snapshot{prompts: tb.build()}
	tests := []struct {
		typed string
		want  []string
	}{
		{"code", []string{"code-review", "code-review-ab12"}},
		{"Code Reveiw", []string{"code-review"}},
		{"review", []string{"code-review", "security-review", "code-review-ab12"}},
		{"sumarize", []string{"summarize"}},
		{"zzzzzz", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := snap.closestNames(tt.typed, 3); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("closestNames(%q): got %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestViewServedLibrary(t *testing.T) {
	work := gate.NoProject()
	work.Name, work.Folder = "work", "Work"
	tests := []struct {
		name        string
		project     *gate.Project
		wantPrompts []string
		wantFolders []string
	}{
		{"whole library but mcpctl-system", nil, []string{"code-review", "code-review-d000", "security-audit"}, []string{"Work"}},
		{"a project's folder", &work, []string{"code-review"}, []string{"Work"}},
	}
	for _, tt := range tests {
		v := newView(newMemLibrary(promptFixture()), tt.project, nil)
		if err := v.reload(t.Context()); err != nil {
			t.Fatal(err)
		}
		var gotPrompts, gotFolders []string
		for i := range v.current().prompts.len() {
			gotPrompts = append(gotPrompts, v.current().prompts.nameAt(i))
		}
		for _, f := range v.current().folders {
			gotFolders = append(gotFolders, f.info.Path)
		}
		if !reflect.DeepEqual(gotPrompts, tt.wantPrompts) || !reflect.DeepEqual(gotFolders, tt.wantFolders) {
			t.Errorf("%s: got %q and %q, want %q and %q", tt.name, gotPrompts, gotFolders, tt.wantPrompts, tt.wantFolders)
		}
	}
}
