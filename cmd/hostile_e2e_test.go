package cmd

import (
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
