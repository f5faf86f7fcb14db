package cmd

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// A library as the app writes it: upper-case ids, hex colors, a REAL timestamp.
func appLibrary(tb testing.TB) *librarytest.Library {
	tb.Helper()
	lib := librarytest.New(tb, 200)
	lib.Exec(tb, `INSERT INTO folders (id, name, parent_id, position, created_at, updated_at)
		VALUES ('A1B2C3D4-0000-4000-8000-00000000F01D', 'Security', NULL, 99, 1700000000, 1700000000)`)
	lib.Exec(tb, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('A1B2C3D4-0000-4000-8000-0000000000AB', 'Threat Modelling Checklist',
		'Walk through every boundary of the service and name the attacker for each one.',
		'A1B2C3D4-0000-4000-8000-00000000F01D', '👨‍💻', '#A855F7', 'https://example.com/tm',
		1800000000.25, 1800000001.5)`)
	return lib
}

func TestReadToolsEndToEnd(t *testing.T) {
	lib := appLibrary(t)
	s := serve(t, testHome(t), "--library", lib.Dir)

	tools, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]mcp.Tool{}
	for _, tl := range tools.Tools {
		have[tl.Name] = tl
	}
	for _, name := range []string{"list_folders", "list_prompts", "get_prompt", "search_prompts", "health_check"} {
		tl, ok := have[name]
		if !ok {
			t.Fatalf("tools/list lacks %s", name)
		}
		if tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not annotated read-only", name)
		}
	}

	t.Run("get_prompt keeps the app's spelling and speaks names and RFC 3339", func(t *testing.T) {
		var p promptlib.Prompt
		s.call(t, "get_prompt", map[string]any{"id": "a1b2c3d4-0000-4000-8000-0000000000ab"}, &p)
		if p.ID != "A1B2C3D4-0000-4000-8000-0000000000AB" {
			t.Errorf("id %q, want the stored upper-case spelling", p.ID)
		}
		if p.Color == nil || *p.Color != "purple" || p.Emoji == nil || *p.Emoji != "👨‍💻" {
			t.Errorf("color %v emoji %v, want purple 👨‍💻", p.Color, p.Emoji)
		}
		if got := p.CreatedAt.String(); got != "2027-01-15T08:00:00.250Z" {
			t.Errorf("createdAt %s, want 2027-01-15T08:00:00.250Z", got)
		}
	})

	t.Run("list_prompts is newest first and filters by folder", func(t *testing.T) {
		var page promptsOut
		s.call(t, "list_prompts", map[string]any{"limit": 5}, &page)
		if page.Total != 201 || len(page.Prompts) != 5 || page.Prompts[0].Title != "Threat Modelling Checklist" {
			t.Fatalf("got total %d, %d prompts, first %q", page.Total, len(page.Prompts), page.Prompts[0].Title)
		}
		for i := 1; i < len(page.Prompts); i++ {
			if page.Prompts[i].CreatedAt.After(page.Prompts[i-1].CreatedAt.Time) {
				t.Errorf("prompt %d is newer than prompt %d", i, i-1)
			}
		}
		s.call(t, "list_prompts", map[string]any{"folderId": "a1b2c3d4-0000-4000-8000-00000000f01d"}, &page)
		if page.Total != 1 {
			t.Errorf("folder filter: total %d, want 1", page.Total)
		}
		var root promptsOut
		s.call(t, "list_prompts", map[string]any{"folderId": nil, "limit": 500}, &root)
		for _, p := range root.Prompts {
			if p.FolderID != nil {
				t.Fatalf("folderId null listed %s in folder %s", p.ID, *p.FolderID)
			}
		}
		if root.Total == 0 || root.Total == 201 {
			t.Errorf("top-level prompts: total %d, want some but not all", root.Total)
		}
	})

	t.Run("search finds two non-adjacent words, ranked", func(t *testing.T) {
		var found promptsOut
		s.call(t, "search_prompts", map[string]any{"query": "attacker boundary"}, &found)
		if found.Total != 1 || found.Prompts[0].ID != "A1B2C3D4-0000-4000-8000-0000000000AB" {
			t.Errorf("search for two non-adjacent words: got %d results %v", found.Total, titles(found.Prompts))
		}
		for _, q := range []string{`100%`, `"unbalanced`, `NEAR(`, `a OR b*`, `'; DROP TABLE prompts;--`} {
			s.call(t, "search_prompts", map[string]any{"query": q}, &found) // checkResult rejects an error result's shape mismatch
		}
	})

	t.Run("list_folders gives paths and counts", func(t *testing.T) {
		var fs foldersOut
		s.call(t, "list_folders", map[string]any{"includeEmpty": true}, &fs)
		var sec *folderOut
		for i := range fs.Folders {
			if fs.Folders[i].ID == "A1B2C3D4-0000-4000-8000-00000000F01D" {
				sec = &fs.Folders[i]
			}
		}
		if sec == nil || sec.PromptCount != 1 || sec.Path != "Security" || fs.Total != len(lib.Data.Folders)+1 {
			t.Errorf("Security folder %+v, total %d", sec, fs.Total)
		}
	})

	t.Run("errors the model can act on", func(t *testing.T) {
		te := s.callError(t, "get_prompt", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}, "PROMPT_NOT_FOUND")
		if !strings.Contains(te.Hint, "search_prompts") {
			t.Errorf("not-found hint %q does not suggest search_prompts", te.Hint)
		}
		te = s.callError(t, "get_prompt", map[string]any{"id": "12345"}, "INVALID_UUID")
		if !strings.Contains(te.Message, "id") {
			t.Errorf("malformed id message %q does not name the field", te.Message)
		}
		te = s.callError(t, "list_prompts", map[string]any{"limit": 501}, "INVALID_INPUT")
		if !strings.Contains(te.Message, "limit") || te.Hint == "" {
			t.Errorf("out-of-range limit: message %q hint %q", te.Message, te.Hint)
		}
		s.callError(t, "list_prompts", map[string]any{"folderId": "00000000-0000-4000-8000-000000000000"}, "FOLDER_NOT_FOUND")
		s.callError(t, "search_prompts", map[string]any{"query": "   "}, "SEARCH_INVALID")
	})

	t.Run("a prompt the app adds is found by the next search", func(t *testing.T) {
		lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
			VALUES ('B0000000-0000-4000-8000-000000000001', 'Kubernetes Rollout', 'Plan a canary rollout with automatic rollback.',
			NULL, NULL, NULL, NULL, 1900000000, 1900000000)`)
		var found promptsOut
		s.call(t, "search_prompts", map[string]any{"query": "canary rollback"}, &found)
		if found.Total != 1 {
			t.Errorf("search after the app added a prompt: %d results, want 1", found.Total)
		}
		var p promptlib.Prompt
		s.call(t, "get_prompt", map[string]any{"id": "B0000000-0000-4000-8000-000000000001"}, &p)
	})

	t.Run("one log line per call, no content", func(t *testing.T) {
		lines := s.stderr.logLines(t, "tool call")
		if len(lines) == 0 {
			t.Fatal("no tool call log lines")
		}
		for _, l := range lines {
			if l["tool"] == nil || l["status"] == nil || l["durationMs"] == nil || l["requestId"] == nil {
				t.Errorf("log line lacks fields: %v", l)
			}
		}
		if strings.Contains(s.stderr.String(), "attacker") {
			t.Error("prompt content reached the log")
		}
	})
}

// The reader never writes: the database is byte-identical after a session, and nothing but
// SQLite's own -wal/-shm appears beside it.
func TestServeLeavesLibraryUntouched(t *testing.T) {
	lib := appLibrary(t)
	if err := lib.Writer.Close(); err != nil { // checkpoints: prompts.db now holds everything
		t.Fatal(err)
	}
	before := fileSum(t, lib.DB)
	filesBefore := dirNames(t, lib.Dir)

	s := serve(t, testHome(t), "--library", lib.Dir)
	var page promptsOut
	s.call(t, "list_prompts", map[string]any{}, &page)
	s.call(t, "search_prompts", map[string]any{"query": "review"}, &page)
	s.call(t, "list_folders", map[string]any{}, nil)
	s.call(t, "health_check", map[string]any{}, nil)
	s.Close()

	if fileSum(t, lib.DB) != before {
		t.Error("prompts.db changed during a read-only session")
	}
	for _, name := range dirNames(t, lib.Dir) {
		if !contains(filesBefore, name) && name != "prompts.db-wal" && name != "prompts.db-shm" {
			t.Errorf("new file %s beside the database", name)
		}
	}
}

// With nothing configured, serve creates and serves the standalone starter library.
func TestServeWithNoConfigurationUsesStandaloneLibrary(t *testing.T) {
	env := testHome(t)
	s := serve(t, env)
	var h healthOut
	s.call(t, "health_check", map[string]any{}, &h)
	if h.Mode != "standalone" || h.Counts.Prompts != len(promptlib.Starter().Prompts) || h.Status != "healthy" && h.Status != "degraded" {
		t.Errorf("health: %+v", h)
	}
	if !strings.HasSuffix(h.Library, filepath.Join("data", "mcpctl", "library")) {
		t.Errorf("library %s, want under $XDG_DATA_HOME/mcpctl/library", h.Library)
	}
	var found promptsOut
	s.call(t, "search_prompts", map[string]any{"query": "security"}, &found)
	if found.Total == 0 {
		t.Error("the starter library has no security prompt")
	}
}

func fileSum(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

func dirNames(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A library serve cannot open (a --library path with no library, as a client's config passes
// "~/prompts"; a file that is not a library) does not stop serve before the handshake, which a
// client shows only as "failed to connect". The session says what is wrong, where it looked and
// what chose it, and the command that fixes it, and serves nothing else.
func TestServeALibraryItCannotOpen(t *testing.T) {
	junk := t.TempDir()
	if err := os.WriteFile(filepath.Join(junk, "prompts.db"), []byte("this is not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		library func(home string) (arg, db string)
		want    []string // in the problem, after the path and "(found by --library)"
	}{
		{"no library at a path under ~", func(home string) (string, string) {
			return "~/prompts", filepath.Join(home, "prompts", "prompts.db")
		}, []string{"no library database at", "To fix: check the path, or create a library there with ", "mcpctl library init "}},
		{"a file that is not a library", func(string) (string, string) {
			return junk, filepath.Join(junk, "prompts.db")
		}, []string{"cannot open the library at", "not a database", "To fix: a library's prompts.db is the SQLite database"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testHome(t)
			home := strings.TrimPrefix(env[1], "HOME=")
			arg, db := c.library(home)
			s := serve(t, env, "--library", arg)
			want := append(c.want, db+" (found by --library)", "restart the MCP server")
			for _, w := range want {
				if !strings.Contains(s.init.Instructions, w) {
					t.Errorf("the instructions lack %q:\n%s", w, s.init.Instructions)
				}
			}
			if names := toolNames(t, s); !slices.Equal(names, []string{"health_check"}) {
				t.Errorf("tools/list: %v; want health_check alone", names)
			}
			for tool, args := range map[string]map[string]any{"list_prompts": {}, "create_folder": {"name": "Notes"}} {
				te := s.callError(t, tool, args, "LIBRARY_UNAVAILABLE")
				if !strings.Contains(te.Message, db+" (found by --library)") || !strings.Contains(te.Message, "To fix:") || !strings.Contains(te.Hint, "Tell the user") {
					t.Errorf("%s: %+v; want the problem, the fix and to tell the user", tool, te)
				}
			}
			var h mcpserver.HealthResult
			s.call(t, "health_check", map[string]any{}, &h)
			if h.Status != "unhealthy" || h.Database.Path != db || h.Database.Reachable || h.Database.Error == nil ||
				!strings.Contains(*h.Database.Error, c.want[0]) {
				t.Errorf("health_check: %+v; want unhealthy with the problem as the database's error", h)
			}
			if lines := s.stderr.logLines(t, "the library cannot be opened: only health_check is served until it is fixed"); len(lines) != 1 {
				t.Errorf("logged %d times why the library is not served, want once", len(lines))
			}
		})
	}
}

// A gated session's assistant starts with begin_session (the instructions say so); without a
// library it must learn why, as from any other tool, not that no such tool exists.
func TestServeAProjectWithoutItsLibrary(t *testing.T) {
	env := testHome(t)
	writeProject(t, env, "web", webProject+"proxyModel: subindex\n")
	s := serve(t, env, "--library", "~/prompts", "--project", "web")
	for tool, args := range map[string]map[string]any{
		"begin_session": {"tags": []string{"security"}},
		"read_prompts":  {"tags": []string{"security"}},
		"read_section":  {"ref": "security-policy", "section": "1"},
	} {
		if te := s.callError(t, tool, args, "LIBRARY_UNAVAILABLE"); !strings.Contains(te.Message, "To fix:") {
			t.Errorf("%s: %+v; want the library's problem and its fix", tool, te)
		}
	}
	if names := toolNames(t, s); !slices.Equal(names, []string{"health_check"}) {
		t.Errorf("tools/list: %v; want health_check alone", names)
	}
}

// The command a session without a library gives is the one that fixes it: run as given, the
// next serve finds the library there.
func TestServeWithoutALibraryGivesTheFix(t *testing.T) {
	env := testHome(t)
	home := strings.TrimPrefix(env[1], "HOME=")
	s := serve(t, env, "--library", "~/prompts")
	te := s.callError(t, "search_prompts", map[string]any{"query": "review"}, "LIBRARY_UNAVAILABLE")
	fix := regexp.MustCompile(`'mcpctl (library init [^']+)'`).FindStringSubmatch(te.Message)
	if fix == nil {
		t.Fatalf("no command in %q", te.Message)
	}
	if code, _, stderr := run(t, map[string]string{"HOME": home}, strings.Fields(fix[1])...); code != 0 {
		t.Fatalf("mcpctl %s: exit %d, %s", fix[1], code, stderr)
	}
	s = serve(t, env, "--library", "~/prompts")
	var page mcpserver.PromptsResult
	s.call(t, "list_prompts", map[string]any{}, &page)
	if page.Total == 0 {
		t.Errorf("after %q, list_prompts found no prompts", fix[1])
	}
}

// A library file with damaged pages: the read that meets them says the file is damaged and to
// restore it (trying again cannot help), and health_check, which that hint points at, says
// unhealthy. It said healthy: its checks read no rows.
func TestDamagedLibraryFile(t *testing.T) {
	dir := standaloneLib(t)
	f, err := os.OpenFile(filepath.Join(dir, "prompts.db"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff", 8192)), 4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s := serve(t, testHome(t), "--library", dir)
	te := s.callError(t, "list_folders", map[string]any{}, "DATABASE_ERROR")
	if !strings.Contains(te.Message, "damaged") || !strings.Contains(te.Hint, "backup") {
		t.Errorf("list_folders on a damaged file: %+v", te)
	}
	var h struct {
		Status   string `json:"status"`
		Database struct {
			Error *string `json:"error"`
		} `json:"database"`
	}
	s.call(t, "health_check", map[string]any{}, &h)
	if h.Status != "unhealthy" || h.Database.Error == nil || !strings.Contains(*h.Database.Error, "damaged") {
		t.Errorf("health_check after a read found the file damaged: %+v", h)
	}
}

// Rows another writer made outside the limits mcpctl's own writes keep (an empty or 300-character
// title, a long icon or url, an unnamed folder) are read like any other: one such row used to
// make a whole page fail a client's check against the output schema.
func TestRowsOutsideTheWriteLimitsStillRead(t *testing.T) {
	lib := librarytest.New(t, 3)
	long := strings.Repeat("Long title ", 30)
	lib.Exec(t, `INSERT INTO folders (id, name, parent_id, position, created_at, updated_at) VALUES
		('F0000000-0000-4000-8000-000000000001', '', NULL, 900, 1700000000, 1700000000),
		('F0000000-0000-4000-8000-000000000002', ?, NULL, 901, 1700000000, 1700000000)`, long)
	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at) VALUES
		('E0000000-0000-4000-8000-000000000001', '', 'an odd row', 'F0000000-0000-4000-8000-000000000001', NULL, NULL, NULL, 1900000000, 1900000000),
		('E0000000-0000-4000-8000-000000000002', ?, 'an odd row', 'F0000000-0000-4000-8000-000000000002', ?, NULL, ?, 1900000001, 1900000001)`,
		long, strings.Repeat("🙂", 40), "https://example.com/"+strings.Repeat("a", 3000))
	s := serve(t, testHome(t), "--library", lib.Dir)

	var page mcpserver.PromptsResult
	s.call(t, "list_prompts", map[string]any{}, &page)
	if page.Total != 5 {
		t.Errorf("list_prompts: %d prompts, want 5", page.Total)
	}
	s.call(t, "search_prompts", map[string]any{"query": "odd row"}, &page)
	if page.Total != 2 {
		t.Errorf("search_prompts: %d matches, want the 2 odd rows", page.Total)
	}
	for _, id := range []string{"E0000000-0000-4000-8000-000000000001", "E0000000-0000-4000-8000-000000000002"} {
		s.call(t, "get_prompt", map[string]any{"id": id}, nil)
	}
	var folders struct{ Folders []struct{ Name string } }
	s.call(t, "list_folders", map[string]any{}, &folders)
	odd := 0
	for _, f := range folders.Folders {
		if f.Name == "" || f.Name == long {
			odd++
		}
	}
	if odd != 2 {
		t.Errorf("list_folders: %+v, want the 2 odd folders among them", folders.Folders)
	}
}

// list_folders leaves out folders holding nothing unless includeEmpty, and says how many: a
// model that has just made a folder and does not see it listed learns why. A null parentId is
// the whole library, as an omitted one.
func TestListFoldersCountsTheEmptyOnesItLeavesOut(t *testing.T) {
	lib := librarytest.New(t, 3)
	lib.Exec(t, `INSERT INTO folders (id, name, parent_id, position, created_at, updated_at) VALUES
		('F0000000-0000-4000-8000-000000000003', 'Just Made', NULL, 900, 1700000000, 1700000000)`)
	s := serve(t, testHome(t), "--library", lib.Dir)
	var all foldersOut
	s.call(t, "list_folders", map[string]any{"includeEmpty": true}, &all)
	if all.EmptyOmitted != 0 || !slices.ContainsFunc(all.Folders, func(f folderOut) bool { return f.Name == "Just Made" }) {
		t.Errorf("includeEmpty: %+v, want every folder, none left out", all)
	}
	for _, args := range []map[string]any{{}, {"parentId": nil}} {
		var some foldersOut
		s.call(t, "list_folders", args, &some)
		if some.EmptyOmitted == 0 || some.Total+some.EmptyOmitted != all.Total ||
			slices.ContainsFunc(some.Folders, func(f folderOut) bool { return f.Name == "Just Made" }) {
			t.Errorf("list_folders %v: %d listed and %d left out as empty, of %d", args, some.Total, some.EmptyOmitted, all.Total)
		}
	}
}
