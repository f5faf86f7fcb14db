package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// Every request, response and notification of a session is one traffic event with the fields
// of DESIGN §8; payloads only when traced; 'mcpctl traffic tail' shows them.
func TestServeWritesTraffic(t *testing.T) {
	for _, traced := range []bool{false, true} {
		t.Run(map[bool]string{false: "lengths only", true: "traced"}[traced], func(t *testing.T) {
			lib := librarytest.New(t, 20)
			env := testHome(t)
			state := filepath.Join(t.TempDir(), "state")
			env = append(env, "XDG_STATE_HOME="+state)
			args := []string{"--library", lib.Dir}
			if traced {
				args = append(args, "--trace-content")
			}
			// A prompt the pipeline pages when read as a resource.
			var body strings.Builder
			for i := range 300 {
				fmt.Fprintf(&body, "## Step %d\n\n%s\n\n", i, strings.Repeat("Check the replica lag first. ", 15))
			}
			body.WriteString("The last line.")
			const bigID = "E0000000-0000-4000-8000-0000000000B1"
			lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
				VALUES (?, 'Big Runbook', ?, NULL, NULL, NULL, NULL, 1700000000, 1700000000)`, bigID, body.String())
			s := serve(t, env, args...)
			var read mcp.ReadResourceRequest
			read.Params.URI = "prompteka://prompt/" + bigID
			if res, err := s.ReadResource(context.Background(), read); err != nil || len(res.Contents) != 1 {
				t.Fatalf("read the big prompt: %v, %v", res, err)
			}
			s.call(t, "search_prompts", map[string]any{"query": "review"}, nil)
			s.callError(t, "get_prompt", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}, "PROMPT_NOT_FOUND")
			events := endedSessionEvents(t, s, state)
			count := map[string]int{}
			for _, e := range events {
				count[e.Kind+" "+e.Method]++
				if e.Session == "" || e.TS.IsZero() {
					t.Errorf("event without session or time: %+v", e)
				}
				if !traced && len(e.Payload) > 0 {
					t.Errorf("untraced, but event %s %s carries a payload %q", e.Kind, e.Method, e.Payload)
				}
				if traced && e.Kind != traffic.KindResponse && len(e.Payload) == 0 {
					t.Errorf("traced, but event %s %s carries no payload", e.Kind, e.Method)
				}
				if traced && e.Kind == traffic.KindResponse && e.Method == "tools/call" && len(e.Payload) == 0 {
					t.Errorf("traced, but the response to %s carries no payload", e.Name)
				}
			}
			for _, want := range []string{"request initialize", "response initialize", "notification notifications/initialized", "request tools/call", "response tools/call"} {
				if count[want] == 0 {
					t.Errorf("no %q event; got %v", want, count)
				}
			}
			if count["request tools/call"] != 2 || count["response tools/call"] != 2 {
				t.Errorf("tools/call events: %v, want one request and one response per call", count)
			}
			// What the pipeline transformed is kept where the content is (for the console's
			// Pipeline screen), and only there.
			var paged *traffic.Pipeline
			for _, e := range events {
				if e.Kind == traffic.KindResponse && e.Method == "resources/read" {
					paged = e.Pipeline
				}
			}
			switch {
			case paged == nil:
				t.Errorf("the big prompt's resources/read event has no pipeline part")
			case traced && (len(paged.Input) != paged.BytesBefore || !strings.HasSuffix(paged.Input, "The last line.")):
				t.Errorf("traced: the pipeline's input is %d bytes (before: %d), want the whole prompt it paged", len(paged.Input), paged.BytesBefore)
			case traced && (paged.Type != "resource" || paged.Source != read.Params.URI):
				t.Errorf("traced: the pipeline's input is typed %q from %q, want resource from %s", paged.Type, paged.Source, read.Params.URI)
			case !traced && paged.Input != "":
				t.Errorf("untraced, but the pipeline part holds its input (%d bytes)", len(paged.Input))
			}
			var failed *traffic.Event
			for i, e := range events {
				if e.Kind == traffic.KindResponse && e.Name == "get_prompt" {
					failed = &events[i]
				}
			}
			if failed == nil || failed.Status != traffic.StatusError || failed.ErrorCode != "PROMPT_NOT_FOUND" || failed.BytesOut == 0 || failed.DurationMs <= 0 {
				t.Errorf("get_prompt's response event: %+v", failed)
			}

			var out bytes.Buffer
			if code := Main(context.Background(), []string{"traffic", "tail"}, nil, &out, os.Stderr, envGetter(env)); code != 0 {
				t.Fatalf("traffic tail: exit %d", code)
			}
			for _, want := range []string{"tools/call", "search_prompts", "PROMPT_NOT_FOUND"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("traffic tail lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

// endedSessionEvents ends s, a session served with $XDG_STATE_HOME state, and returns the traffic
// events it recorded, which must be the only traffic file there.
func endedSessionEvents(t *testing.T, s *session, state string) []traffic.Event {
	t.Helper()
	s.Close()
	s.cmd.Wait()
	files, _ := filepath.Glob(filepath.Join(traffic.Dir(state), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("traffic files: %v, want one for the session", files)
	}
	events, err := traffic.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return events
}
