package cmd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

const (
	reviewID = "D0000000-0000-4000-8000-000000000001"
	systemID = "F0000000-0000-4000-8000-000000000001"
	subSysID = "F0000000-0000-4000-8000-000000000002"
	workID   = "F0000000-0000-4000-8000-000000000003"
)

// promptFixture is a small library: a prompt with a required and an optional placeholder and a
// url, a title clash, a folder, and the gate's system folder with a subfolder.
func promptFixture() promptlib.Library {
	return promptlib.Library{
		Folders: []promptlib.Folder{
			{ID: systemID, Name: gate.SystemFolder},
			{ID: subSysID, Name: "texts", ParentID: promptlib.Ptr(systemID)},
			{ID: workID, Name: "Work"},
		},
		Prompts: []promptlib.Prompt{
			{ID: reviewID, Title: "Code Review", FolderID: promptlib.Ptr(workID), URL: promptlib.Ptr("https://example.com/guide"),
				Content: "Review this **{{language}}** code. Be thorough.\n\n## Tone\n\nKeep it {{tone|friendly}}; {{language}} idioms first."},
			{ID: "D0000000-0000-4000-8000-000000000002", Title: "Code review", Content: "Another one."},
			{ID: "D0000000-0000-4000-8000-000000000003", Title: "Security Audit", Content: "Audit {{target}}."},
			{ID: "D0000000-0000-4000-8000-000000000004", Title: "Gate intro", FolderID: promptlib.Ptr(systemID), Content: "system"},
			{ID: "D0000000-0000-4000-8000-000000000005", Title: "Gate text", FolderID: promptlib.Ptr(subSysID), Content: "system"},
		},
	}
}

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
	snap := &librarySnapshot{}
	for _, n := range []string{"code-review", "code-review-ab12", "security-review", "summarize", "translate", "write-tests"} {
		snap.prompts = append(snap.prompts, &servedPrompt{name: n})
	}
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

func TestPromptsServedLibrary(t *testing.T) {
	lib := newMemLibrary(promptFixture())
	all := lib.lib.Prompts
	folders, _ := lib.Folders(t.Context())
	inWork := func(id *string) bool { return id != nil && *id == workID }
	tests := []struct {
		name        string
		inScope     func(*string) bool
		wantPrompts []string
		wantFolders []string
	}{
		{"whole library but mcpctl-system", nil, []string{"Code Review", "Code review", "Security Audit"}, []string{"Work"}},
		{"a project's folder", inWork, []string{"Code Review"}, []string{"Work"}},
	}
	for _, tt := range tests {
		prompts, fs := servedLibrary(all, folders, tt.inScope)
		var gotPrompts, gotFolders []string
		for _, p := range prompts {
			gotPrompts = append(gotPrompts, p.Title)
		}
		for _, f := range fs {
			gotFolders = append(gotFolders, f.Name)
		}
		if !reflect.DeepEqual(gotPrompts, tt.wantPrompts) || !reflect.DeepEqual(gotFolders, tt.wantFolders) {
			t.Errorf("%s: got prompts %q folders %q, want %q %q", tt.name, gotPrompts, gotFolders, tt.wantPrompts, tt.wantFolders)
		}
	}
}
