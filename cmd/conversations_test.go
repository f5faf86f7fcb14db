package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// The recorded conversations (testdata/conversations/*.txt) are the main flows as a client sees
// them on the wire: each request the client sends and the response the server gives, with the
// values that change from run to run (times, ids, paths, versions) masked. A change to what
// mcpctl says is a visible diff; run with -update to accept one. Notifications are listed at the
// end of each conversation, sorted: their order relative to responses is not fixed.
func TestRecordedConversations(t *testing.T) {
	flows := []struct {
		name    string
		project string // a project file's text, or ""
		setup   func(t *testing.T) string
		steps   []string
	}{
		{name: "browse-search-read", setup: func(t *testing.T) string { return librarytest.FromLibrary(t, librarytest.Fixture()).Dir }, steps: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_folders","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_prompts","arguments":{"query":"review"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_prompt","arguments":{"id":"` + librarytest.ReviewID + `"}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"prompteka://folder/` + librarytest.WorkID + `"}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_prompt","arguments":{"id":"not-a-uuid"}}}`,
		}},
		{name: "write-round-trip", setup: func(t *testing.T) string { return standaloneLib(t) }, steps: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_folder","arguments":{"name":"Recorded"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_prompt","arguments":{"title":"Recorded Prompt","content":"Say {{thing}} twice.","emoji":"📝","color":"green"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_prompts","arguments":{"query":"recorded prompt"}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_folder","arguments":{"name":"recorded"}}}`,
		}},
		{name: "slash-command", setup: func(t *testing.T) string { return librarytest.FromLibrary(t, librarytest.Fixture()).Dir }, steps: []string{
			`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"code-review","arguments":{"language":"Go"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"code-review","arguments":{"tone":"blunt"}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"code-reveiw","arguments":{}}}`,
		}},
		{name: "gated-session", project: webProject, setup: func(t *testing.T) string { return projectLibrary(t).Dir }, steps: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"begin_session","arguments":{"tags":["sql","errors"]}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_prompts","arguments":{"tags":["deploy"]}}}`,
		}},
	}
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			dir := f.setup(t)
			env := testHome(t)
			args := []string{"--library", dir}
			if f.project != "" {
				writeProject(t, env, "web", f.project)
				args = append(args, "--project", "web")
			}
			s := serveRaw(t, env, args...)
			var rec bytes.Buffer
			record := func(dir string, m any) {
				b, _ := json.Marshal(m)
				fmt.Fprintf(&rec, "%s %s\n", dir, mask(string(b), dir))
			}
			var notes []string
			exchange := func(line string) {
				var req map[string]any
				json.Unmarshal([]byte(line), &req)
				record(">", req)
				s.send(line)
				resp, before := s.until(req["id"].(float64))
				for _, m := range before {
					notes = append(notes, fmt.Sprint(m["method"]))
				}
				record("<", resp)
			}
			exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"recorder","version":"1"}}}`)
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			fmt.Fprintln(&rec, "> notifications/initialized")
			// A search that comes while the index is first built is answered by a scan, in
			// another order: the recording is of the steady state.
			eventually(t, 20*time.Second, "the search index is built", func() bool {
				return len(s.stderr.logLines(t, "search index synced")) > 0
			})
			for _, step := range f.steps {
				exchange(step)
			}
			s.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
			_, before := s.until(99)
			for _, m := range before {
				notes = append(notes, fmt.Sprint(m["method"]))
			}
			golden := filepath.Join("..", "testdata", "conversations", f.name+".txt")
			// A notification follows the change that causes it by however long the server
			// takes to read the library: wait for the recorded ones (one message at a time, at
			// most 20 s each) rather than assume they came before the ping.
			if !*update {
				for _, want := range recordedNotifications(golden) {
					for !slices.Contains(notes, want) {
						if m := s.next(); m["method"] != nil {
							notes = append(notes, fmt.Sprint(m["method"]))
						}
					}
				}
			}
			slices.Sort(notes)
			notes = slices.Compact(notes) // how many of one kind depends on timing, not on mcpctl
			fmt.Fprintf(&rec, "notifications: %s\n", strings.Join(notes, ", "))

			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, rec.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no recording (run with -update): %v", err)
			}
			if !bytes.Equal(rec.Bytes(), want) {
				t.Errorf("the conversation differs from %s (run with -update if intended):\n%s", golden, rec.String())
			}
		})
	}
}

// recordedNotifications is the notifications line of a recorded conversation.
func recordedNotifications(golden string) []string {
	data, _ := os.ReadFile(golden) // a missing recording fails the comparison below
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "notifications: "); ok && rest != "" {
			return strings.Split(rest, ", ")
		}
	}
	return nil
}

var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<time>"},
	{regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`), "<uuid>"},
	{regexp.MustCompile(`"version":"[^"]*"`), `"version":"<version>"`},
	{regexp.MustCompile(`/tmp/[^"\\ ]*`), "<path>"},
	{regexp.MustCompile(`"uptimeSeconds":[0-9.e+-]+`), `"uptimeSeconds":0`},
}

// mask hides what changes from run to run. Fixture ids are kept: they are the same every run.
func mask(s, _ string) string {
	keep := map[string]string{}
	for i, id := range []string{librarytest.ReviewID, librarytest.WorkID, librarytest.SystemID, librarytest.SubSysID} {
		k := fmt.Sprintf("<fixture-%d>", i)
		keep[k] = id
		s = strings.ReplaceAll(s, id, k)
	}
	for _, m := range masks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	for k, id := range keep {
		s = strings.ReplaceAll(s, k, id)
	}
	return s
}
