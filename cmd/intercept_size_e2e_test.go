package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// bigLibrary is a folder Web App with a short priority-10 rule and prompts of about n bytes each,
// titled as given.
func bigLibrary(tb testing.TB, n int, titles ...string) *librarytest.Library {
	tb.Helper()
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	lib := promptlib.Library{Folders: []promptlib.Folder{web}, Prompts: []promptlib.Prompt{{ID: "E0000000-0000-4000-8000-000000000000",
		Title: "Security Policy", Content: "Never log secrets.", FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0}}}
	for i, title := range titles {
		body := "About " + strings.ToLower(title) + ".\n" + strings.Repeat("A line of the guide that goes on for a while.\n", n/46)
		lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: fmt.Sprintf("E0000000-0000-4000-8000-%012d", i+1), Title: title,
			Content: body, FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0})
	}
	return librarytest.FromLibrary(tb, lib)
}

// textBytes is the text a result's content carries.
func textBytes(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			n += len(t.Text)
		}
	}
	return n
}

// An intercepted call's briefing and its result are one tool result, bounded like any other:
// the briefing names the prompts it has no room to send (read_prompts sends them later), and a
// result that leaves no room even then is left for a second call.
func TestInterceptedResultStaysWithinTheLimit(t *testing.T) {
	const project = "folder: Web App\nbyteBudget: 100000\npriorities:\n  security-policy: 10\n"
	t.Run("the briefing names what does not fit", func(t *testing.T) {
		lib := bigLibrary(t, 35_000, "Deploy Guide A", "Deploy Guide B", "Deploy Guide C", "Garden Note One", "Garden Note Two")
		env := testHome(t)
		writeProject(t, env, "web", project)
		s := serve(t, env, "--library", lib.Dir, "--project", "web")
		var found promptsOut
		res := s.call(t, "search_prompts", map[string]any{"query": "deploy guide", "includeContent": true, "limit": 2}, &found)
		if len(found.Prompts) != 2 || len(res.Content) != 2 {
			t.Fatalf("intercepted search: %d prompts, %d content blocks; want 2 after a briefing", len(found.Prompts), len(res.Content))
		}
		if n := textBytes(res); n > 100_000 {
			t.Errorf("the intercepted result is %d bytes of text, over 100 KB", n)
		}
		brief, _ := mcp.AsTextContent(res.Content[0])
		var left string // the guide the search did not return
		for _, title := range []string{"Deploy Guide A", "Deploy Guide B", "Deploy Guide C"} {
			if found.Prompts[0].Title != title && found.Prompts[1].Title != title {
				left = promptlib.Slug(title)
			}
		}
		if !strings.Contains(brief.Text, "Never log secrets.") || !strings.Contains(brief.Text, "- "+left+":") || strings.Count(brief.Text, "A line of the guide") > 0 {
			t.Errorf("the briefing does not keep the rule and name %s instead of sending it:\n%.2000s", left, brief.Text)
		}
		// Naming the guide made room: the index lines stay.
		if !strings.Contains(brief.Text, "- garden-note-one:") || !strings.Contains(brief.Text, "- garden-note-two:") {
			t.Errorf("the briefing lost index lines it had room for:\n%.3000s", brief.Text)
		}
		s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)
		var r gate.Result
		s.call(t, "read_prompts", map[string]any{"tags": []string{"deploy guide"}}, &r)
		if !contains(r.Matched, left) {
			t.Errorf("read_prompts does not send %s, which the briefing only named: matched %v", left, r.Matched)
		}
	})
	t.Run("a result with no room left is for a second call", func(t *testing.T) {
		lib := bigLibrary(t, 48_000, "Garden Notes One", "Garden Notes Two")
		env := testHome(t)
		writeProject(t, env, "web", project)
		s := serve(t, env, "--library", lib.Dir, "--project", "web")
		var all promptsOut
		res := s.call(t, "list_prompts", map[string]any{"includeContent": true, "limit": 3}, nil)
		if n := textBytes(res); n > 100_000 || len(res.Content) != 1 || !res.IsError {
			t.Fatalf("the intercepted list is %d bytes of text in %d blocks (error %v); want at most 100 KB, an error with its briefing", n, len(res.Content), res.IsError)
		}
		var te toolError
		if err := json.Unmarshal(resultJSON(t, res), &te); err != nil || te.Error != "RESULT_TOO_LARGE" || !strings.Contains(te.Hint, "Call the tool again with the same arguments") || te.Briefing == "" {
			t.Errorf("the error does not say to call again, or lacks the briefing: %+v (%v)", te, err)
		}
		s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)
		res = s.call(t, "list_prompts", map[string]any{"includeContent": true, "limit": 3}, &all)
		if len(res.Content) != 1 || len(all.Prompts) < 2 {
			t.Errorf("the second call: %d blocks, %d prompts; want the result alone", len(res.Content), len(all.Prompts))
		}
	})
}
