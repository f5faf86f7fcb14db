package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
)

// A folder name that differs from a sibling's only in case is refused the same way by the MCP
// pre-check and by the processor (promptlib's rule, Unicode-aware), so the answer never depends
// on which of the two saw it.
func TestFolderNamesCaseOnEveryPath(t *testing.T) {
	dir := standaloneLib(t)
	s := serve(t, testHome(t), "--library", dir)
	var made writeOut
	s.call(t, "create_folder", map[string]any{"name": "Über"}, &made)
	if made.Status != "success" {
		t.Fatalf("create Über: %+v", made)
	}
	s.callError(t, "create_folder", map[string]any{"name": "über"}, "FOLDER_EXISTS")

	// The processor, given the same operation directly (no pre-check), refuses it too.
	tx, err := openStore(t, dir).BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	resp := promptlib.Apply(t.Context(), tx, promptlib.Operation{ID: "6b9f1c1e-7d5a-4c1e-9a8e-0f6d2b1c3a4e", Operation: promptlib.OpCreateFolder,
		Data: []byte(`{"name":"über"}`)})
	if resp.Status != "error" || resp.Error == nil || *resp.Error != string(promptlib.CodeFolderExists) {
		t.Errorf("Apply: got %+v; want FOLDER_EXISTS", resp)
	}
}

// A queue directory other users may write is refused by the writer, and health_check says the
// same: not writable, with the writer's reason.
func TestQueueModeSameAnswerEverywhere(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o770} {
		t.Run(mode.String(), func(t *testing.T) {
			lib := librarytest.New(t, 3)
			if err := os.Chmod(lib.Queue, mode); err != nil {
				t.Fatal(err)
			}
			s := serve(t, testHome(t), "--library", lib.Dir)
			te := s.callError(t, "create_prompt", map[string]any{"title": "t", "content": "c"}, "PERMISSION_DENIED")
			var h healthOut
			s.call(t, "health_check", map[string]any{}, &h)
			if h.Status != "degraded" || h.Queue.State != queue.DirInsecure || h.Queue.Error == nil || !strings.HasPrefix(te.Message, *h.Queue.Error) {
				t.Errorf("health: %s, queue %s (%v); the write said %q", h.Status, h.Queue.State, h.Queue.Error, te.Message)
			}
		})
	}
}

// A project's session may not rename or move its own folder (it would lose its project).
func TestProjectCannotRenameItsFolder(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\ngated: false\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	te := s.callError(t, "update_folder", map[string]any{"id": "F0000000-0000-4000-8000-000000000001", "name": "Web App 2"}, "INVALID_INPUT")
	if !strings.Contains(te.Message, "project's own folder") {
		t.Errorf("got %q", te.Message)
	}
}

// A folder the session has just created is the project's on the very next call: the scope comes
// from the library view, which used to follow the write about half a second later.
func TestProjectUsesTheFolderItJustCreated(t *testing.T) {
	dir := standaloneLib(t) // its own processor applies the writes
	env := testHome(t)
	writeProject(t, env, "eng", "folder: Engineering\ngated: false\n")
	s := serve(t, env, "--library", dir, "--project", "eng")
	for i := range 5 {
		var folder struct {
			ID string `json:"id"`
		}
		s.call(t, "create_folder", map[string]any{"name": fmt.Sprintf("Race %d", i)}, &folder)
		var created struct {
			ID string `json:"id"`
		}
		res := s.call(t, "create_prompt", map[string]any{"title": fmt.Sprintf("In race %d", i), "content": "c", "folderId": folder.ID}, &created)
		if res.IsError {
			t.Fatalf("create_prompt into the folder just created: %s", resultJSON(t, res))
		}
		var listed promptsOut
		if res := s.call(t, "list_prompts", map[string]any{"folderId": folder.ID}, &listed); res.IsError || listed.Total != 1 {
			t.Errorf("list_prompts of the folder just created: %s", resultJSON(t, res))
		}
	}
}

// A standalone library whose processor cannot run fails writes at once with the reason, never
// "make sure the Prompteka app is running", and health_check says so.
func TestDeadProcessorFailsFast(t *testing.T) {
	dir := standaloneLib(t)
	q := filepath.Join(dir, queue.QueueName)
	if err := os.RemoveAll(filepath.Join(q, "processed")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(q, "processed")); err != nil {
		t.Fatal(err)
	}
	s := serve(t, testHome(t), "--library", dir)
	var h healthOut
	eventually(t, 20e9, "health_check reports the processor failed", func() bool {
		s.call(t, "health_check", map[string]any{}, &h)
		return h.Queue.Processor.State == queue.ProcFailed
	})
	if h.Status != "degraded" || h.Queue.Processor.Error == nil || !strings.Contains(*h.Queue.Processor.Error, "processed") {
		t.Errorf("health: %+v", h)
	}
	res := s.call(t, "create_prompt", map[string]any{"title": "t", "content": "c"}, nil)
	text := string(resultJSON(t, res))
	if !res.IsError || strings.Contains(text, "Prompteka app") || !strings.Contains(text, "processed") {
		t.Errorf("write: %s", text)
	}
}

// health_check tells the truth about a library changed under the server: a dropped column, or
// the file replaced by garbage.
func TestHealthSeesALibraryChangedUnderIt(t *testing.T) {
	t.Run("a column dropped", func(t *testing.T) {
		lib := librarytest.New(t, 3)
		s := serve(t, testHome(t), "--library", lib.Dir)
		lib.Exec(t, `ALTER TABLE prompts DROP COLUMN url`)
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		if h.Status != "unhealthy" || h.Database.SchemaCompatible || h.Database.Error == nil || !strings.Contains(*h.Database.Error, "url") {
			t.Errorf("health: %s, schemaCompatible %v, %v", h.Status, h.Database.SchemaCompatible, h.Database.Error)
		}
	})
	t.Run("the file replaced by garbage", func(t *testing.T) {
		lib := librarytest.New(t, 3)
		s := serve(t, testHome(t), "--library", lib.Dir)
		garbage := filepath.Join(lib.Dir, "garbage")
		if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 400)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(garbage, lib.DB); err != nil {
			t.Fatal(err)
		}
		var h mcpserver.HealthResult
		s.call(t, "health_check", map[string]any{}, &h)
		if h.Status != "unhealthy" || h.Database.Error == nil || !strings.Contains(*h.Database.Error, "replaced") {
			t.Errorf("health: %s, %v", h.Status, h.Database.Error)
		}
	})
}

// Text with a NUL, and an emoji that is invisible or half a flag, are refused by the tools.
func TestHostileTextRefused(t *testing.T) {
	dir := standaloneLib(t)
	s := serve(t, testHome(t), "--library", dir)
	s.callError(t, "create_prompt", map[string]any{"title": "a\x00b", "content": "c"}, "INVALID_INPUT")
	s.callError(t, "create_prompt", map[string]any{"title": "t", "content": "before\x00after"}, "INVALID_INPUT")
	s.callError(t, "create_folder", map[string]any{"name": "x\x00y"}, "INVALID_INPUT")
	for _, emoji := range []string{"\ufe0f", "\U0001F1EB"} {
		s.callError(t, "create_prompt", map[string]any{"title": "t", "content": "c", "emoji": emoji}, "INVALID_EMOJI")
	}
}

// A YAML alias bomb in the projects directory is refused quickly, naming the file, by every
// command that reads projects.
func TestProjectAliasBombRefused(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "mcpctl", "projects")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i, c := range "bcdefghij" {
		prev := string("abcdefghij"[i])
		bomb += string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+", ", 8) + "*" + prev + "]\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "bomb.yaml"), []byte(bomb), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_CONFIG_HOME": config, "HOME": t.TempDir()}
	code, out, _ := run(t, vars, "get", "projects")
	if code != 0 || !strings.Contains(out, "bomb") || !strings.Contains(out, "expands to more than") {
		t.Errorf("get projects: exit %d\n%s", code, out)
	}
	lib := librarytest.New(t, 3)
	// serve goes on, serving nothing but why (TestServeAProjectItCannotServe).
	code, _, errOut := run(t, vars, "serve", "--library", lib.Dir, "--project", "bomb")
	if code != 0 || !strings.Contains(errOut, "the project cannot be served") || !strings.Contains(errOut, "bomb.yaml") || !strings.Contains(errOut, "expands to more than") {
		t.Errorf("serve --project bomb: exit %d, %s", code, errOut)
	}
}

// Two folders whose paths read alike ("Engineering / Web App" and a folder named
// "Engineering/Web App") make a project's folder ambiguous: serve refuses to serve it, naming
// both.
func TestAmbiguousProjectFolderRefused(t *testing.T) {
	lib := librarytest.FromLibrary(t, promptlib.Library{Folders: []promptlib.Folder{
		{ID: "F1000000-0000-4000-8000-000000000001", Name: "Engineering"},
		{ID: "F1000000-0000-4000-8000-000000000002", Name: "Web App", ParentID: promptlib.Ptr("F1000000-0000-4000-8000-000000000001")},
		{ID: "F1000000-0000-4000-8000-000000000003", Name: "Engineering/Web App"},
	}})
	config := t.TempDir()
	dir := filepath.Join(config, "mcpctl", "projects")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "web.yaml"), []byte("folder: Engineering / Web App\n"), 0o600)
	vars := map[string]string{"XDG_CONFIG_HOME": config, "HOME": t.TempDir()}
	code, _, errOut := run(t, vars, "serve", "--library", lib.Dir, "--project", "web")
	if code != 0 || !strings.Contains(errOut, "the project cannot be served") || !strings.Contains(errOut, "F1000000-0000-4000-8000-000000000002") || !strings.Contains(errOut, "F1000000-0000-4000-8000-000000000003") {
		t.Errorf("serve: exit %d, %s", code, errOut)
	}
}

// A link planted at the search index's predictable path, pointing at the served prompts.db, is
// removed, never followed: the app's database gains no table, and search still works.
func TestPlantedSearchIndexLink(t *testing.T) {
	lib := librarytest.New(t, 20)
	lib.Writer.Close()
	env := testHome(t)
	cache := envValue(env, "XDG_CACHE_HOME")
	sum := sha256.Sum256([]byte(lib.DB))
	planted := filepath.Join(cache, "mcpctl", "search", hex.EncodeToString(sum[:12])+".db")
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(lib.DB, planted); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(lib.DB)
	s := serve(t, env, "--library", lib.Dir)
	var found mcpserver.PromptsResult
	s.call(t, "search_prompts", map[string]any{"query": "reviewer"}, &found)
	if found.Total != 20 {
		t.Errorf("search found %d of 20", found.Total)
	}
	s.Close()
	s.cmd.Wait()
	after, _ := os.ReadFile(lib.DB)
	if !bytes.Equal(before, after) {
		t.Error("prompts.db changed")
	}
	if fi, err := os.Lstat(planted); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the planted link is still there")
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if data, err := os.ReadFile(lib.DB + suffix); err == nil && bytes.Contains(data, []byte("CREATE VIRTUAL TABLE")) {
			t.Errorf("prompts.db%s holds the index's tables", suffix)
		}
	}
}

// One operation id dropped twice, in lower and upper case, is applied once.
func TestMixedCaseOperationAppliedOnce(t *testing.T) {
	dir := standaloneLib(t)
	q := filepath.Join(dir, queue.QueueName)
	id := "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	for _, spelled := range []string{id, strings.ToUpper(id)} {
		op := fmt.Sprintf(`{"id":%q,"operation":"create_prompt","timestamp":"2026-01-01T00:00:00.000Z","data":{"title":"Once Only","content":"x"}}`, spelled)
		if err := os.WriteFile(filepath.Join(q, spelled+".json"), []byte(op), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := serve(t, testHome(t), "--library", dir)
	var page mcpserver.PromptsResult
	eventually(t, 20e9, "both files are processed", func() bool {
		entries, _ := os.ReadDir(filepath.Join(q, "processed"))
		return len(entries) == 2
	})
	s.call(t, "search_prompts", map[string]any{"query": "once only"}, &page)
	if page.Total != 1 {
		t.Errorf("the operation was applied %d times, want once", page.Total)
	}
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// A project whose folder is renamed in the app keeps its folder: the session follows it by id.
func TestProjectFollowsItsRenamedFolder(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\ngated: false\n")
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	lib.Exec(t, `UPDATE folders SET name = 'Web Application', updated_at = 1900000000 WHERE id = 'F0000000-0000-4000-8000-000000000001'`)
	eventually(t, 20e9, "the session follows the folder by id", func() bool {
		return len(s.stderr.logLines(t, "project folder renamed or moved; following it by id")) > 0
	})
	var page mcpserver.PromptsResult
	s.call(t, "list_prompts", map[string]any{}, &page)
	if page.Total != 4 {
		t.Errorf("after the rename the project lists %d prompts, want its 4", page.Total)
	}
}
