package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// listChangedWithin bounds the wait for a list_changed notification. The promise to users is
// 2 s; the wait is far longer so a loaded CI machine never fails a correct server, and the
// measured latency is logged.
// Tests wait up to it for a notification; they never time how long it took.
const listChangedWithin = 20 * time.Second

// The library as slash commands, end to end: a library written by another process, read by
// the real binary, listed, rendered and refused by a real MCP client.
func TestPromptsEndToEnd(t *testing.T) {
	lib := librarytest.FromLibrary(t, librarytest.Fixture())
	s := serve(t, testHome(t), "--library", lib.Dir)
	ctx := context.Background()

	if caps := s.init.Capabilities; caps.Prompts == nil || !caps.Prompts.ListChanged || caps.Resources == nil || !caps.Resources.ListChanged || caps.Completions == nil {
		t.Fatalf("capabilities %+v: want prompts and resources with listChanged, and completions", caps)
	}
	prompts := s.allPrompts(t)
	var review *mcp.Prompt
	for i := range prompts {
		if prompts[i].Name == "code-review" {
			review = &prompts[i]
		}
		if strings.HasPrefix(prompts[i].Name, "gate-") {
			t.Errorf("prompt %s of the mcpctl-system folder is listed", prompts[i].Name)
		}
	}
	if review == nil {
		t.Fatalf("no code-review prompt in %v", names(prompts))
	}
	if review.Title != "Code Review" || review.Description == "" {
		t.Errorf("code-review: got title %q description %q", review.Title, review.Description)
	}
	args := map[string]mcp.PromptArgument{}
	for _, a := range review.Arguments {
		args[a.Name] = a
	}
	if a := args["language"]; !a.Required || !strings.Contains(a.Description, "line 1") {
		t.Errorf("language: got %+v, want required, saying where it is used", a)
	}
	if a := args["tone"]; a.Required || !strings.Contains(a.Description, `default "friendly"`) {
		t.Errorf("tone: got %+v, want optional with its default", a)
	}

	res, err := s.GetPrompt(ctx, getPromptRequest("code-review", map[string]string{"language": "Go"}))
	if err != nil {
		t.Fatalf("prompts/get: %v", err)
	}
	want := "Review this **Go** code. Be thorough.\n\n## Tone\n\nKeep it friendly; Go idioms first.\n\nReference: https://example.com/guide"
	if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("got %+v, want one user message", res.Messages)
	}
	if tc, ok := res.Messages[0].Content.(mcp.TextContent); !ok || tc.Text != want {
		t.Errorf("rendered:\n got %+v\nwant %q", res.Messages[0].Content, want)
	}

	refusals := []struct {
		name   string
		prompt string
		args   map[string]string
		wantIn []string
	}{
		{"missing argument", "code-review", map[string]string{"tone": "dry"}, []string{`"language"`, "missing"}},
		{"extra argument", "code-review", map[string]string{"language": "Go", "audience": "juniors"}, []string{`"audience"`, "unknown"}},
		{"unknown prompt", "code-reviw", nil, []string{"'code-reviw'", "'code-review'"}},
	}
	for _, r := range refusals {
		_, err := s.GetPrompt(ctx, getPromptRequest(r.prompt, r.args))
		if !errors.Is(err, mcp.ErrInvalidParams) {
			t.Errorf("%s: got %v, want an invalid-params error", r.name, err)
			continue
		}
		t.Logf("%s: %v", r.name, err)
		for _, w := range r.wantIn {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", r.name, err, w)
			}
		}
	}
}

// Another process adds, renames and deletes prompts while the client stays connected.
func TestPromptsLiveEndToEnd(t *testing.T) {
	lib := librarytest.FromLibrary(t, librarytest.Fixture())
	s := serve(t, testHome(t), "--library", lib.Dir)
	const newID = "D0000000-0000-4000-8000-0000000000AA"
	bursts := []struct {
		name     string
		sql      []string
		has      []string // prompt names that must be listed after the burst
		hasNot   []string
		resource string // a resource URI that must (or, with !, must not) be listed
		title    string // the title it must be listed with
	}{
		{"add", []string{fmt.Sprintf(`INSERT INTO prompts (id, title, body, created_at, updated_at)
			VALUES ('%s', 'Write Tests', 'Write tests for {{target}}.', 1800000000, 1800000000)`, newID)},
			[]string{"write-tests"}, nil, "prompteka://prompt/" + newID, "Write Tests"},
		{"rename", []string{fmt.Sprintf(`UPDATE prompts SET title = 'Write Table Tests' WHERE id = '%s'`, newID)},
			[]string{"write-table-tests"}, []string{"write-tests"}, "prompteka://prompt/" + newID, "Write Table Tests"},
		{"delete", []string{fmt.Sprintf(`DELETE FROM prompts WHERE id = '%s'`, newID)},
			nil, []string{"write-table-tests"}, "!prompteka://prompt/" + newID, ""},
		{"burst of 500 edits", burstSQL(burstEdits), []string{fmt.Sprintf("burst-%d", burstEdits-1)}, nil, "", ""},
	}
	// The client lists first, as a client does: a change made before the server's first read
	// of the library is no change to a client that has seen nothing, and is not announced.
	s.allPrompts(t)
	for _, b := range bursts {
		first := s.count(mcp.MethodNotificationPromptsListChanged)
		seen := first
		seenRes := s.count(mcp.MethodNotificationResourcesListChanged)
		for _, q := range b.sql {
			lib.Exec(t, q)
		}
		// A notification that came in late from an earlier burst may precede this burst's;
		// wait for one after which the list shows the change.
		changed := time.Now()
		deadline := changed.Add(listChangedWithin)
		for {
			seen = s.waitCount(t, mcp.MethodNotificationPromptsListChanged, seen+1, time.Until(deadline), b.name)
			listed := names(s.allPrompts(t))
			if containsAll(listed, b.has) && !containsAny(listed, b.hasNot) {
				break
			}
		}
		t.Logf("%s: prompts/list_changed and the new list %s after the change", b.name, time.Since(changed).Round(time.Millisecond))
		// dbread debounces the app's writes and the surface coalesces reloads: a burst costs a
		// handful of notifications. Tenfold fewer than edits leaves room for a slow machine
		// that spreads the writes over several debounce windows.
		if n := seen - first; len(b.sql) >= burstEdits && n > burstEdits/10 {
			t.Errorf("%s: %d prompts/list_changed notifications, want a handful", b.name, n)
		} else {
			t.Logf("%s: %d prompts/list_changed notifications", b.name, n)
		}
		if b.resource == "" {
			continue
		}
		uri, absent := strings.CutPrefix(b.resource, "!")
		for {
			seenRes = s.waitCount(t, mcp.MethodNotificationResourcesListChanged, seenRes+1, time.Until(deadline), b.name+" (resources)")
			listed := s.allResources(t)
			i := slices.IndexFunc(listed, func(r mcp.Resource) bool { return r.URI == uri })
			if (absent && i < 0) || (!absent && i >= 0 && listed[i].Title == b.title) {
				break
			}
		}
	}
}

const burstEdits = 500

func burstSQL(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`INSERT INTO prompts (id, title, body, created_at, updated_at)
			VALUES ('B0000000-0000-4000-8000-%012d', 'Burst %d', 'x', 1800000000, 1800000000)`, i, i))
	}
	return out
}

func getPromptRequest(name string, args map[string]string) mcp.GetPromptRequest {
	var req mcp.GetPromptRequest
	req.Params.Name, req.Params.Arguments = name, args
	return req
}

func (s *session) allPrompts(tb testing.TB) []mcp.Prompt {
	tb.Helper()
	var all []mcp.Prompt
	var req mcp.ListPromptsRequest
	for {
		res, err := s.ListPrompts(context.Background(), req)
		if err != nil {
			tb.Fatalf("prompts/list: %v", err)
		}
		all = append(all, res.Prompts...)
		if res.NextCursor == "" {
			return all
		}
		req.Params.Cursor = res.NextCursor
	}
}

func (s *session) allResources(tb testing.TB) []mcp.Resource {
	tb.Helper()
	var all []mcp.Resource
	var req mcp.ListResourcesRequest
	for {
		res, err := s.ListResources(context.Background(), req)
		if err != nil {
			tb.Fatalf("resources/list: %v", err)
		}
		all = append(all, res.Resources...)
		if res.NextCursor == "" {
			return all
		}
		req.Params.Cursor = res.NextCursor
	}
}

func (s *session) allResourceURIs(tb testing.TB) []string {
	tb.Helper()
	var uris []string
	for _, r := range s.allResources(tb) {
		uris = append(uris, r.URI)
	}
	return uris
}

// count is how many notifications with method arrived so far.
func (s *session) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.notifications {
		if m.Method == method {
			n++
		}
	}
	return n
}

// notificationsOf is the notifications with method that have arrived, in order.
func (s *session) notificationsOf(method string) []mcp.JSONRPCNotification {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []mcp.JSONRPCNotification
	for _, m := range s.notifications {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// waitCount waits until at least n notifications with method have arrived and returns how many
// have, or fails the test after wait.
func (s *session) waitCount(tb testing.TB, method string, n int, wait time.Duration, what string) int {
	tb.Helper()
	timer := time.NewTimer(max(wait, 0))
	defer timer.Stop()
	for {
		if got := s.count(method); got >= n {
			return got
		}
		select {
		case <-s.notified:
		case <-timer.C:
			tb.Fatalf("%s: no %s (notification %d) within %s of the change", what, method, n, listChangedWithin)
		}
	}
}

func names(prompts []mcp.Prompt) []string {
	out := make([]string, len(prompts))
	for i, p := range prompts {
		out[i] = p.Name
	}
	return out
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}

func containsAny(list, unwanted []string) bool {
	for _, u := range unwanted {
		if slices.Contains(list, u) {
			return true
		}
	}
	return false
}

// updated_at has whole seconds: a second edit of a prompt within the second of the first
// leaves the library's fingerprint sums as they were, and must still be served.
func TestSameSecondEditsAreServed(t *testing.T) {
	lib := librarytest.FromLibrary(t, librarytest.Fixture())
	s := serve(t, testHome(t), "--library", lib.Dir)
	s.allPrompts(t)
	for i, title := range []string{"Edited Once", "Edited Twice"} {
		seen := s.count(mcp.MethodNotificationPromptsListChanged)
		lib.Exec(t, `UPDATE prompts SET title = ?, updated_at = 1900000000 WHERE id = ?`, title, librarytest.ReviewID)
		want := promptlib.Slug(title)
		for !slices.Contains(names(s.allPrompts(t)), want) {
			seen = s.waitCount(t, mcp.MethodNotificationPromptsListChanged, seen+1, listChangedWithin, fmt.Sprint("edit ", i+1))
		}
	}
}
