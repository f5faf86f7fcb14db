package mcpserver

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestCompleteResourceID(t *testing.T) {
	ts := newTestSurface(t, promptFixture())
	tests := []struct {
		template string
		value    string
		want     []string
	}{
		{promptURITemplate, "code", []string{reviewID, "D0000000-0000-4000-8000-000000000002"}},
		{promptURITemplate, "Audit", []string{"D0000000-0000-4000-8000-000000000003"}}, // a word of the title
		{promptURITemplate, "d0000000-0000-4000-8000-000000000003", []string{"D0000000-0000-4000-8000-000000000003"}},
		{promptURITemplate, "gate", []string{}}, // system prompts are not served
		{promptURITemplate, "zzz", []string{}},
		{folderURITemplate, "wo", []string{workID}},
		{folderURITemplate, "texts", []string{}},
	}
	for _, tt := range tests {
		var res mcp.CompleteResult
		e := ts.rpc(t, "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/resource", "uri": tt.template},
			"argument": map[string]any{"name": "id", "value": tt.value},
		}, &res)
		if e != nil {
			t.Fatalf("complete %s %q: %+v", tt.template, tt.value, e)
		}
		if !reflect.DeepEqual(res.Completion.Values, tt.want) {
			t.Errorf("complete %s %q: got %q, want %q", tt.template, tt.value, res.Completion.Values, tt.want)
		}
	}
}

func TestCompleteCapsAt20(t *testing.T) {
	lib := promptlib.Library{}
	for i := range 30 {
		lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: fmt.Sprintf("E0000000-0000-4000-8000-%012d", i), Title: fmt.Sprintf("Review %02d", i), Content: "x"})
	}
	ts := newTestSurface(t, lib)
	var res mcp.CompleteResult
	if e := ts.rpc(t, "completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/resource", "uri": promptURITemplate},
		"argument": map[string]any{"name": "id", "value": "rev"},
	}, &res); e != nil {
		t.Fatal(e)
	}
	if len(res.Completion.Values) != maxCompletions || res.Completion.Total != 30 || !res.Completion.HasMore {
		t.Errorf("got %d values, total %d, hasMore %v; want 20, 30, true", len(res.Completion.Values), res.Completion.Total, res.Completion.HasMore)
	}
}

func TestCompletionRank(t *testing.T) {
	tests := []struct {
		typed, id, name, text string
		want                  int
	}{
		{"code-review", "abcd", "code-review", "code review", 0},
		{"ab", "abcd", "x", "y", 1},
		{"code", "ffff", "code-review", "code review", 2},
		{"rev", "ffff", "code-review", "code review", 3},
		{"ode", "ffff", "code-review", "code review", 4},
		{"zz", "ffff", "code-review", "code review", -1},
		{"", "ffff", "x", "y", 5},
	}
	for _, tt := range tests {
		if got := rankMatch(tt.typed, tt.id, tt.name, []byte(tt.text)); got != tt.want {
			t.Errorf("rankMatch(%q, %q, %q, %q): got %d, want %d", tt.typed, tt.id, tt.name, tt.text, got, tt.want)
		}
	}
}

func TestAppendLower(t *testing.T) {
	for _, s := range []string{"", "Code Review", "ÉTÉ Données", "mixed Ünïcode ABC", "already lower"} {
		prefix := []byte("keep:")
		if got, want := string(appendLower(prefix, s)), "keep:"+strings.ToLower(s); got != want {
			t.Errorf("appendLower(%q) = %q, want %q", s, got, want)
		}
	}
}
