package cmd

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
)

// standaloneLib makes a standalone library (marker present: the server processes its queue).
func standaloneLib(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "lib")
	if err := queue.CreateLibrary(context.Background(), dir, promptlib.Starter()); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func openStore(tb testing.TB, dir string) *sql.DB {
	tb.Helper()
	db, err := queue.OpenStore(filepath.Join(dir, queue.DBName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// pendingOps lists the operation files waiting in a queue.
func pendingOps(tb testing.TB, q string) []string {
	tb.Helper()
	entries, err := os.ReadDir(q)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestWriteToolsRoundTrip is the acceptance flow through a real MCP client against a
// child `mcpctl serve` on a standalone library: every answer is checked against its schema, and
// the database must say exactly what the answers said.
func TestWriteToolsRoundTrip(t *testing.T) {
	dir := standaloneLib(t)
	s := serve(t, testHome(t), "--library", dir)
	db := openStore(t, dir)
	var out writeOut
	timed := func(name string, args map[string]any) writeOut {
		t.Helper()
		start := time.Now()
		var o writeOut
		s.call(t, name, args, &o)
		if o.Status != "success" || o.OperationID == "" || o.ID == nil {
			t.Fatalf("%s: got %+v, want success with an id and an operationId", name, o)
		}
		t.Logf("%s answered in %s", name, time.Since(start).Round(time.Millisecond))
		return o
	}

	folder := *timed("create_folder", map[string]any{"name": "Security"}).ID
	out = timed("create_prompt", map[string]any{"title": "Audit", "content": "Check {{target}}.", "folderId": strings.ToLower(folder),
		"emoji": "👨‍💻", "color": "purple", "url": "https://example.com/audit"})
	prompt := *out.ID

	var got promptlib.Prompt
	s.call(t, "get_prompt", map[string]any{"id": prompt}, &got)
	if got.Title != "Audit" || got.FolderID == nil || !strings.EqualFold(*got.FolderID, folder) || deref(got.Emoji) != "👨‍💻" ||
		deref(got.Color) != "purple" || deref(got.URL) != "https://example.com/audit" {
		t.Fatalf("get_prompt: got %+v", got)
	}
	var st queue.OpStatus
	s.call(t, "get_operation_status", map[string]any{"operationId": out.OperationID}, &st)
	if st.Status != queue.StateApplied {
		t.Errorf("get_operation_status: got %+v, want applied", st)
	}

	timed("update_prompt", map[string]any{"id": prompt, "emoji": nil})
	var icon, color, folderID sql.NullString
	db.QueryRow(`SELECT icon, color, folder_id FROM prompts WHERE id = ?`, prompt).Scan(&icon, &color, &folderID)
	if icon.Valid || color.String != "#A855F7" || folderID.String != folder {
		t.Errorf("after clearing the emoji: icon %v color %v folder %v; want null, #A855F7, %s", icon, color, folderID, folder)
	}
	timed("update_prompt", map[string]any{"id": prompt, "folderId": nil})
	db.QueryRow(`SELECT folder_id FROM prompts WHERE id = ?`, prompt).Scan(&folderID)
	if folderID.Valid {
		t.Errorf("after the move to the top level: folder_id %v, want null", folderID.String)
	}
	timed("delete_prompt", map[string]any{"id": prompt})
	s.callError(t, "get_prompt", map[string]any{"id": prompt}, "PROMPT_NOT_FOUND")

	// A non-empty folder: refused without recursive, deleted with its contents with it.
	sub := *timed("create_folder", map[string]any{"name": "Nested", "parentId": folder}).ID
	timed("create_prompt", map[string]any{"title": "Inside", "content": "x", "folderId": sub})
	te := s.callError(t, "delete_folder", map[string]any{"id": folder}, "FOLDER_NOT_EMPTY")
	if te.Hint == "" {
		t.Error("FOLDER_NOT_EMPTY without a hint")
	}
	timed("delete_folder", map[string]any{"id": folder, "recursive": true})
	var n int
	db.QueryRow(`SELECT (SELECT COUNT(*) FROM folders WHERE id IN (?, ?)) + (SELECT COUNT(*) FROM prompts WHERE title = 'Inside')`, folder, sub).Scan(&n)
	if n != 0 {
		t.Errorf("after the recursive delete %d rows remain, want 0", n)
	}
	if got := pendingOps(t, filepath.Join(dir, queue.QueueName)); len(got) != 0 {
		t.Errorf("queue holds %v", got)
	}
	if lines := s.stderr.logLines(t, "tool call"); !hasOperationID(lines, "create_prompt") {
		t.Errorf("no create_prompt log line with an operationId")
	}
}

// A prompt tool given a folder's id, or a folder tool a prompt's, says whose id it is and which
// tool does what was meant; delete_prompt answered success, "No prompt … to delete", and queued
// a delete, so the model told the user the folder was gone.
func TestWriteToolsGivenTheOtherKindsID(t *testing.T) {
	dir := standaloneLib(t)
	s := serve(t, testHome(t), "--library", dir)
	var folder, prompt writeOut
	s.call(t, "create_folder", map[string]any{"name": "Drafts"}, &folder)
	s.call(t, "create_prompt", map[string]any{"title": "Standup notes", "content": "x"}, &prompt)
	if folder.ID == nil || prompt.ID == nil {
		t.Fatalf("create_folder %+v, create_prompt %+v", folder, prompt)
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		code string
		want string
	}{
		{"delete_prompt", map[string]any{"id": *folder.ID}, "INVALID_INPUT", "it is the id of the folder 'Drafts'; delete_folder deletes a folder"},
		{"update_prompt", map[string]any{"id": *folder.ID, "title": "y"}, "PROMPT_NOT_FOUND", "it is the id of the folder 'Drafts'; update_folder changes a folder"},
		{"delete_folder", map[string]any{"id": *prompt.ID}, "FOLDER_NOT_FOUND", "it is the id of the prompt 'Standup notes'; delete_prompt deletes a prompt"},
		{"update_folder", map[string]any{"id": *prompt.ID, "name": "y"}, "FOLDER_NOT_FOUND", "it is the id of the prompt 'Standup notes'; update_prompt changes a prompt"},
	} {
		if te := s.callError(t, tt.tool, tt.args, tt.code); !strings.Contains(te.Message, tt.want) {
			t.Errorf("%s: %q, want it to say %q", tt.tool, te.Message, tt.want)
		}
	}
	if got := pendingOps(t, filepath.Join(dir, queue.QueueName)); len(got) != 0 {
		t.Errorf("queue holds %v; nothing should have been queued", got)
	}
	// A prompt that is not there at all is deleted already: a retried delete succeeds.
	var out writeOut
	s.call(t, "delete_prompt", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}, &out)
	if out.Status != "success" {
		t.Errorf("deleting a prompt that never existed: %+v, want success", out)
	}
}

// TestWritesAreServedAtOnce: what a write of the session changed is in prompts/list,
// prompts/get and resources/list as soon as the write has answered, as it is in the tools that
// read the database; no waiting for list_changed (some clients ignore it).
func TestWritesAreServedAtOnce(t *testing.T) {
	s := serve(t, testHome(t), "--library", standaloneLib(t))
	ctx := context.Background()
	s.allPrompts(t) // the first load done, as a client that has listed once sees it
	var out writeOut
	s.call(t, "create_prompt", map[string]any{"title": "Changelog Digest", "content": "Summarise {{changes}}."}, &out)
	if out.Status != "success" || out.ID == nil {
		t.Fatalf("create_prompt: %+v", out)
	}
	uri := "prompteka://prompt/" + *out.ID
	listed := func() (bool, bool) {
		ps := names(s.allPrompts(t))
		rs := s.allResources(t)
		return slices.Contains(ps, "changelog-digest"), slices.ContainsFunc(rs, func(r mcp.Resource) bool { return strings.EqualFold(r.URI, uri) })
	}
	if p, r := listed(); !p || !r {
		t.Fatalf("right after create_prompt: in prompts/list %v, in resources/list %v; want both", p, r)
	}
	got, err := s.GetPrompt(ctx, getPromptRequest("changelog-digest", map[string]string{"changes": "v2"}))
	if err != nil {
		t.Fatalf("prompts/get right after create_prompt: %v", err)
	}
	if text := got.Messages[0].Content.(mcp.TextContent).Text; !strings.Contains(text, "Summarise v2.") {
		t.Errorf("prompts/get: %q", text)
	}
	s.call(t, "delete_prompt", map[string]any{"id": *out.ID}, &out)
	if p, r := listed(); p || r {
		t.Errorf("right after delete_prompt: in prompts/list %v, in resources/list %v; want neither", p, r)
	}
}

func hasOperationID(lines []map[string]any, tool string) bool {
	for _, l := range lines {
		if l["tool"] == tool && l["operationId"] != nil && l["operationId"] != "" {
			return true
		}
	}
	return false
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Folder names that would look the same as a sibling's in a list, or that a project's folder
// path would read as a path, are refused before anything is queued, each saying why and what to
// do; "PERSONAL" beside "Personal" always was (found by a user walkthrough, where all of these
// were created at the top level of the starter library, which holds Engineering / Reviews).
func TestFolderNamesThatLookAlike(t *testing.T) {
	dir := standaloneLib(t)
	s := serve(t, testHome(t), "--library", dir)
	var made writeOut
	s.call(t, "create_folder", map[string]any{"name": "Données & Analyse"}, &made)
	if made.Status != "success" || made.ID == nil {
		t.Fatalf("create_folder Données & Analyse: %+v", made)
	}
	for _, tc := range []struct {
		name, code, want string
	}{
		{"Donne\u0301es & Analyse", "FOLDER_EXISTS", *made.ID}, // decomposed é
		{"DONNE\u0301ES & ANALYSE", "FOLDER_EXISTS", "\"DONNE\u0301ES & ANALYSE\" counts as the same name"},
		{"Données  &  Analyse", "FOLDER_EXISTS", *made.ID},
		{"Engineering / Reviews", "INVALID_INPUT", `contains "/", which separates the folders of a path`},
		{"Engineering/Reviews", "INVALID_INPUT", "create it with parentId"},
		{"  Personal", "INVALID_INPUT", "starts or ends with a space: remove it"},
		{"Personal\u200B", "INVALID_INPUT", "zero width space), U+200B, at character 9: remove it"},
		{"\u202Elanosrep", "INVALID_INPUT", "right-to-left override"},
	} {
		te := s.callError(t, "create_folder", map[string]any{"name": tc.name}, tc.code)
		if !strings.Contains(te.Message, tc.want) {
			t.Errorf("create_folder %q: %s %q; want it to say %q", tc.name, te.Error, te.Message, tc.want)
		}
	}
	// Titles show in clients' command pickers: no invisible characters there either.
	te := s.callError(t, "create_prompt", map[string]any{"title": "Review\u2066 checklist", "content": "x"}, "INVALID_INPUT")
	if !strings.Contains(te.Message, "title contains an invisible character") {
		t.Errorf("create_prompt with an isolate in its title: %q", te.Message)
	}
	if got := pendingOps(t, filepath.Join(dir, queue.QueueName)); len(got) != 0 {
		t.Errorf("queue holds %v", got)
	}
	var folders struct {
		Folders []struct{ Name, Path string }
	}
	s.call(t, "list_folders", map[string]any{"includeEmpty": true}, &folders)
	for _, f := range folders.Folders {
		if f.Path == "Engineering / Reviews" && f.Name != "Reviews" {
			t.Errorf("a folder %q has the path of Engineering's Reviews", f.Name)
		}
	}
}

// Invalid input is refused before anything touches the disk: the queue stays empty.
func TestWriteToolsValidateFirst(t *testing.T) {
	dir := standaloneLib(t)
	s := serve(t, testHome(t), "--library", dir)
	q := filepath.Join(dir, queue.QueueName)
	var f writeOut
	s.call(t, "create_folder", map[string]any{"name": "Top"}, &f)
	var child writeOut
	s.call(t, "create_folder", map[string]any{"name": "Child", "parentId": *f.ID}, &child)
	processed := func() int {
		entries, _ := os.ReadDir(filepath.Join(q, "processed"))
		return len(entries)
	}
	// The processor answers before it files an operation: wait until both writes are filed.
	eventually(t, 20*time.Second, "both folders' operations to be filed", func() bool { return processed() == 2 })
	before := processed()
	missing := "11111111-1111-4111-8111-111111111111"
	tests := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"create_prompt", map[string]any{"title": "x", "content": "y", "folderId": missing}, "FOLDER_NOT_FOUND"},
		{"create_prompt", map[string]any{"title": "x", "content": "y", "emoji": "ab"}, "INVALID_EMOJI"},
		{"create_prompt", map[string]any{"title": "x", "content": "y", "url": "ftp://x"}, "INVALID_URL"},
		{"create_prompt", map[string]any{"title": " ", "content": "y"}, "INVALID_INPUT"},
		{"create_prompt", map[string]any{"title": "x", "content": strings.Repeat("é", promptlib.MaxContent+1)}, "INVALID_INPUT"},
		{"update_prompt", map[string]any{"id": missing, "title": "x"}, "PROMPT_NOT_FOUND"},
		{"update_prompt", map[string]any{"id": missing, "title": nil}, "INVALID_INPUT"},
		{"update_prompt", map[string]any{"id": nil, "title": "x"}, "INVALID_INPUT"},
		{"create_folder", map[string]any{"name": "x", "parentId": missing}, "PARENT_FOLDER_NOT_FOUND"},
		{"create_folder", map[string]any{"name": "TOP"}, "FOLDER_EXISTS"},
		{"update_folder", map[string]any{"id": *f.ID, "parentId": *child.ID}, "FOLDER_CYCLE"},
		{"update_folder", map[string]any{"id": *f.ID, "parentId": *f.ID}, "FOLDER_CYCLE"},
		{"update_folder", map[string]any{"id": missing, "name": "x"}, "FOLDER_NOT_FOUND"},
		{"delete_folder", map[string]any{"id": *f.ID}, "FOLDER_NOT_EMPTY"},
		{"delete_folder", map[string]any{"id": missing}, "FOLDER_NOT_FOUND"},
		{"get_operation_status", map[string]any{"operationId": "nope"}, "INVALID_UUID"},
	}
	for _, tt := range tests {
		te := s.callError(t, tt.tool, tt.args, tt.code)
		if title, ok := tt.args["title"]; ok && title == nil && te.Message != "title cannot be null; leave it out to keep the title" {
			t.Errorf("update_prompt with a null title: %q, want it to say to leave it out", te.Message)
		}
		// The id is required: leaving it out is no fix.
		if id, ok := tt.args["id"]; ok && id == nil && te.Message != "id: cannot be null" {
			t.Errorf("update_prompt with a null id: %q, want %q", te.Message, "id: cannot be null")
		}
		// An operation id comes from a write, not from the read tools that give other ids.
		if tt.tool == "get_operation_status" && !strings.Contains(te.Hint, "write tool") {
			t.Errorf("get_operation_status with a bad id: hint %q, want it to name where operation ids come from", te.Hint)
		}
		// The existing folder may be empty, which list_folders leaves out unless asked: the
		// error names it.
		if tt.code == "FOLDER_EXISTS" && !strings.Contains(te.Message, *f.ID) {
			t.Errorf("FOLDER_EXISTS: message %q, want the existing folder's id %s", te.Message, *f.ID)
		}
	}
	if got := pendingOps(t, q); len(got) != 0 {
		t.Errorf("queue holds %v", got)
	}
	if got := processed(); got != before {
		t.Errorf("%d operations were processed for invalid input", got-before)
	}
	var st queue.OpStatus
	s.call(t, "get_operation_status", map[string]any{"operationId": missing}, &st)
	if st.Status != queue.StateUnknown {
		t.Errorf("status of an unknown operation: got %s, want unknown", st.Status)
	}
}

// The acceptance: with the real timings, a write on a Prompteka library with no app
// fails within 20 s saying nothing was applied, and leaves the queue as it found it. Away from
// macOS, where the app cannot run, it fails at once and says what to run instead.
func TestWriteNoAppRealTimings(t *testing.T) {
	lib := librarytest.New(t, 3)
	s := serve(t, testHome(t), "--library", lib.Dir)
	if runtime.GOOS != "darwin" {
		te := s.callError(t, "create_prompt", map[string]any{"title": "lost", "content": "x"}, "PROCESSOR_STOPPED")
		if te.Applied != "not_applied" || !strings.Contains(te.Hint, "'mcpctl queue process --force --library "+lib.Dir+"'") {
			t.Errorf("got %+v, want not applied, naming the command that applies the writes", te)
		}
		if got := pendingOps(t, lib.Queue); len(got) != 0 {
			t.Errorf("queue holds %v", got)
		}
		return
	}
	if testing.Short() {
		t.Skip("takes about 19 s")
	}
	start := time.Now()
	te := s.callError(t, "create_prompt", map[string]any{"title": "lost", "content": "x"}, "RESPONSE_TIMEOUT")
	// The bound (3 attempts of 5 s, 2 pauses of 1 s, the grace) is the writer's configuration;
	// the time is logged, not asserted: speed is measured in benchmarks, never in tests.
	t.Logf("the failed write answered after %s", time.Since(start))
	if te.Applied != "not_applied" || !strings.Contains(te.Message, "not to be running") {
		t.Errorf("got %+v", te)
	}
	if got := pendingOps(t, lib.Queue); len(got) != 0 {
		t.Errorf("queue holds %v", got)
	}
}

// Two servers on one standalone library: one processor between them, every write applied once.
func TestTwoServersOneProcessor(t *testing.T) {
	dir := standaloneLib(t)
	a := serve(t, testHome(t), "--library", dir)
	b := serve(t, testHome(t), "--library", dir)
	for i, s := range []*session{a, b, a, b} {
		var o writeOut
		s.call(t, "create_prompt", map[string]any{"title": "twice " + string(rune('a'+i)), "content": "x"}, &o)
		if o.Status != "success" {
			t.Fatalf("write %d: %+v", i, o)
		}
	}
	var n int
	openStore(t, dir).QueryRow(`SELECT COUNT(*) FROM prompts WHERE title LIKE 'twice %'`).Scan(&n)
	if n != 4 {
		t.Errorf("prompts: got %d, want 4", n)
	}
	processing := len(a.stderr.logLines(t, "queue: processing this library's queue")) + len(b.stderr.logLines(t, "queue: processing this library's queue"))
	if processing != 1 {
		t.Errorf("%d servers processed the queue, want exactly 1", processing)
	}
}
