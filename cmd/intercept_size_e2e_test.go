package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// proseLine, idLine and spacedLine are what bigLibrary's prompts are made of: prose, about 4
// bytes a token; ids, under 2; and words spaced out, 10.
const (
	proseLine  = "A line of the guide that goes on for a while.\n"
	idLine     = "Pin 8f3a9c2e-41d7-4b6a-9e0f-2c5d7a1b3e4f at 41d7.\n"
	spacedLine = "Step one:                                    done.\n"
)

// bigLibrary is a folder Web App with a short priority-10 rule and prompts of about n bytes of
// line each, titled as given.
func bigLibrary(tb testing.TB, line string, n int, titles ...string) *librarytest.Library {
	tb.Helper()
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	lib := promptlib.Library{Folders: []promptlib.Folder{web}, Prompts: []promptlib.Prompt{{ID: "E0000000-0000-4000-8000-000000000000",
		Title: "Security Policy", Content: "Never log secrets.", FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0}}}
	for i, title := range titles {
		body := "About " + strings.ToLower(title) + ".\n" + strings.Repeat(line, n/len(line))
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

// textTokens is the tokens (promptlib.Tokens) of the text a result's content carries.
func textTokens(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			n += promptlib.Tokens(t.Text)
		}
	}
	return n
}

// An intercepted call's briefing and its result are one tool result, bounded like any other:
// the briefing names the prompts it has no room to send (read_prompts sends them later), and a
// result that leaves no room even then is left for a second call.
func TestInterceptedResultStaysWithinTheLimit(t *testing.T) {
	const project = "folder: Web App\nbyteBudget: 100000\npriorities:\n  security-policy: 10\n"
	for _, c := range []struct {
		name, line string
		bytes      int
	}{
		{"the briefing names what does not fit", proseLine, 35_000},
		{"the briefing names what does not fit in tokens", idLine, 13_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			lib := bigLibrary(t, c.line, c.bytes, "Deploy Guide A", "Deploy Guide B", "Deploy Guide C", "Garden Note One", "Garden Note Two")
			env := testHome(t)
			writeProject(t, env, "web", project)
			s := serve(t, env, "--library", lib.Dir, "--project", "web")
			var found promptsOut
			res := s.call(t, "search_prompts", map[string]any{"query": "deploy guide", "includeContent": true, "limit": 2}, &found)
			if len(found.Prompts) != 2 || len(res.Content) != 2 {
				t.Fatalf("intercepted search: %d prompts, %d content blocks; want 2 after a briefing", len(found.Prompts), len(res.Content))
			}
			if n, tk := textBytes(res), textTokens(res); n > mcpserver.MaxResultBytes || tk > mcpserver.MaxResultTokens {
				t.Errorf("the intercepted result is %d bytes of text, about %d tokens; over %d or %d", n, tk, mcpserver.MaxResultBytes, mcpserver.MaxResultTokens)
			}
			brief, _ := mcp.AsTextContent(res.Content[0])
			var left string // the guide the search did not return
			for _, title := range []string{"Deploy Guide A", "Deploy Guide B", "Deploy Guide C"} {
				if found.Prompts[0].Title != title && found.Prompts[1].Title != title {
					left = promptlib.Slug(title)
				}
			}
			if !strings.Contains(brief.Text, "Never log secrets.") || !strings.Contains(brief.Text, "- "+left+":") || strings.Count(brief.Text, c.line) > 0 {
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
	}
	pins := make([]string, 200)
	for i := range pins {
		pins[i] = fmt.Sprintf("Pin %03d", i)
	}
	for _, c := range []struct {
		name    string
		lib     func(t *testing.T) *librarytest.Library
		ask     int
		carried string // a prompt the thrown-away result carried
	}{
		// Two prompts of 48 KB, spaced out: the bytes bind.
		{"a result with no room left is for a second call", func(t *testing.T) *librarytest.Library {
			return bigLibrary(t, spacedLine, 48_000, "Garden Notes One", "Garden Notes Two")
		}, 3, "Garden Notes One"},
		// 200 prompts of ids: a page fills to the tokens' bound, a prompt short of it.
		{"a result with no tokens left is for a second call", func(t *testing.T) *librarytest.Library {
			return bigLibrary(t, idLine, 400, pins...)
		}, 200, "Pin 199"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lib := c.lib(t)
			env := testHome(t)
			writeProject(t, env, "web", project)
			s := serve(t, env, "--library", lib.Dir, "--project", "web")
			args := map[string]any{"includeContent": true, "limit": c.ask}
			res := s.call(t, "list_prompts", args, nil)
			if n, tk := textBytes(res), textTokens(res); n > mcpserver.MaxResultBytes || tk > mcpserver.MaxResultTokens || len(res.Content) != 1 || !res.IsError {
				t.Fatalf("the intercepted list is %d bytes of text, about %d tokens, in %d blocks (error %v); want it within the bounds, an error with its briefing",
					n, tk, len(res.Content), res.IsError)
			}
			var te toolError
			if err := json.Unmarshal(resultJSON(t, res), &te); err != nil || te.Error != "RESULT_TOO_LARGE" || !strings.Contains(te.Hint, "Call the tool again with the same arguments") || te.Briefing == "" {
				t.Errorf("the error does not say to call again, or lacks the briefing: %+v (%v)", te, err)
			}
			s.waitNotification(t, mcp.MethodNotificationToolsListChanged, 10*time.Second)
			// The result was thrown away: what it carried was not received, so the gate sends it.
			var r gate.Result
			s.call(t, "read_prompts", map[string]any{"tags": []string{c.carried}}, &r)
			if slug := promptlib.Slug(c.carried); !contains(r.Matched, slug) {
				t.Errorf("read_prompts does not send %s, which only the thrown-away result carried: matched %v, already provided %v", slug, r.Matched, r.AlreadyProvided)
			}
			var all promptsOut
			res = s.call(t, "list_prompts", args, &all)
			if len(res.Content) != 1 || len(all.Prompts) < 2 {
				t.Errorf("the second call: %d blocks, %d prompts; want the result alone", len(res.Content), len(all.Prompts))
			}
		})
	}
}

// A failed call's briefing goes inside its error, a JSON string: the escaping of its quotes and
// line ends counts toward the bound too. It passed it by the escaping, a few KB.
func TestInterceptedErrorStaysWithinTheLimit(t *testing.T) {
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	// A rule of quoted lines, each quote and line end a byte more once escaped; and an index.
	rule := strings.Repeat(`Set "a": "b" and "c": "d".`+"\n", 70_000/27)
	lib := promptlib.Library{Folders: []promptlib.Folder{web}, Prompts: []promptlib.Prompt{{ID: "E0000000-0000-4000-8000-000000000000",
		Title: "Security Policy", Content: rule, FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0}}}
	for i := range 1500 {
		lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: fmt.Sprintf("E0000000-0000-4000-8000-%012d", i+1), Title: fmt.Sprintf("Guide %04d", i),
			Content: "A \"guide\" on one of the many \"things\" a team writes down.", FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0})
	}
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\nbyteBudget: 100000\nindexCap: 1000\npriorities:\n  security-policy: 10\n")
	s := serve(t, env, "--library", librarytest.FromLibrary(t, lib).Dir, "--project", "web")
	var te toolError
	res := s.call(t, "get_prompt", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}, &te)
	if !res.IsError || te.Briefing == "" || !strings.Contains(te.Briefing, rule[:200]) {
		t.Fatalf("the failed call: error %v, briefing of %d bytes; want NOT_FOUND with the rule in its briefing", res.IsError, len(te.Briefing))
	}
	if n, tk := textBytes(res), textTokens(res); n > mcpserver.MaxResultBytes || tk > mcpserver.MaxResultTokens {
		t.Errorf("the failed call's result is %d bytes of text, about %d tokens; over %d or %d", n, tk, mcpserver.MaxResultBytes, mcpserver.MaxResultTokens)
	}
}

// A project's own texts can leave a begin_session briefing too little room for the prompts the
// gate chose: it names its last ones instead of sending them cut short, and read_prompts sends
// them. Cut short, they counted as sent, and read_prompts called them already provided.
func TestBeginSessionNamesWhatItsTextsLeaveNoRoomFor(t *testing.T) {
	t0 := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	web := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000001", Name: "Web App", CreatedAt: t0, UpdatedAt: t0}
	system := promptlib.Folder{ID: "F0000000-0000-4000-8000-000000000002", Name: "mcpctl-system", CreatedAt: t0, UpdatedAt: t0}
	// A greeting of about 9,000 tokens, and three guides of about 4,500 that the budget takes.
	greeting := "Session started for {{project_name}}.\n" + strings.Repeat(proseLine, 36_000/len(proseLine))
	lib := promptlib.Library{Folders: []promptlib.Folder{web, system}, Prompts: []promptlib.Prompt{{ID: "E0000000-0000-4000-8000-000000000000",
		Title: gate.TextGreeting, Content: greeting, FolderID: &system.ID, CreatedAt: t0, UpdatedAt: t0}}}
	for i, title := range []string{"Deploy Guide A", "Deploy Guide B", "Deploy Guide C"} {
		lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: fmt.Sprintf("E0000000-0000-4000-8000-%012d", i+1), Title: title,
			Content: "About deploys.\n" + strings.Repeat(proseLine, 18_000/len(proseLine)), FolderID: &web.ID, CreatedAt: t0, UpdatedAt: t0})
	}
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\nbyteBudget: 100000\n")
	s := serve(t, env, "--library", librarytest.FromLibrary(t, lib).Dir, "--project", "web")
	var b gate.Result
	res := s.call(t, "begin_session", map[string]any{"tags": []string{"deploy guide"}}, &b)
	if n, tk := textBytes(res), textTokens(res); n > mcpserver.MaxResultBytes || tk > mcpserver.MaxResultTokens {
		t.Errorf("begin_session is %d bytes of text, about %d tokens; over %d or %d", n, tk, mcpserver.MaxResultBytes, mcpserver.MaxResultTokens)
	}
	if len(b.Matched) == 0 || len(b.OverBudget) == 0 || strings.Contains(b.Text, "The briefing is cut here") {
		t.Fatalf("begin_session sent %v, named %v; want some sent and the rest named, nothing cut:\n…%s", b.Matched, b.OverBudget, b.Text[max(0, len(b.Text)-600):])
	}
	var r gate.Result
	s.call(t, "read_prompts", map[string]any{"tags": []string{"deploy guide"}}, &r)
	if !slices.Equal(r.Matched, b.OverBudget) {
		t.Errorf("read_prompts sent %v, already provided %v; want %v, which begin_session only named", r.Matched, r.AlreadyProvided, b.OverBudget)
	}
}
