package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeProject writes REPO/.mcpctl/project.yaml and returns its path.
func writeProject(tb testing.TB, repo, text string) string {
	tb.Helper()
	dir := filepath.Join(repo, ProjectDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(dir, ProjectFile)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return file
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	file := writeProject(t, repo, "servers: {}\n")
	deep := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A .mcpctl directory without the file, closer than the repository's, is passed over.
	if err := os.MkdirAll(filepath.Join(repo, "src", ProjectDir), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
		err             error
	}{
		{"the repository itself", repo, file, nil},
		{"a subdirectory", deep, file, nil},
		{"outside", root, "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.dir)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("Find(%s) = %q, %v; want %q, %v", tt.dir, got, err, tt.want, tt.err)
			}
		})
	}
	if got := RepoDir(file); got != repo {
		t.Errorf("RepoDir = %q, want %q", got, repo)
	}
}

func TestFindRefusesSymlink(t *testing.T) {
	repo := t.TempDir()
	target := writeProject(t, t.TempDir(), "servers: {}\n")
	if err := os.MkdirAll(filepath.Join(repo, ProjectDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(repo, ProjectDir, ProjectFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(repo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Find through a symlink: got %v, want a refusal", err)
	}
	if _, err := (Store{Dir: t.TempDir() + "/trust"}).Trust(filepath.Join(repo, ProjectDir, ProjectFile)); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Trust of a symlink: got %v, want a refusal", err)
	}
}

func TestTrustLifecycle(t *testing.T) {
	repo := t.TempDir()
	file := writeProject(t, repo, "servers:\n  db: {command: db-mcp}\n")
	store := Store{Dir: filepath.Join(t.TempDir(), "state", "mcpctl", "trust")}

	ok, reason := store.Trusted(file)
	if ok || !strings.Contains(reason, "not trusted") || !strings.Contains(reason, "mcpctl trust "+repo) {
		t.Errorf("before trust: got %v %q, want untrusted naming the command", ok, reason)
	}
	rec, err := store.Trust(file)
	if err != nil {
		t.Fatal(err)
	}
	if rec.File != file || len(rec.SHA256) != 64 {
		t.Errorf("got record %+v", rec)
	}
	fi, err := os.Stat(store.Dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("trust dir mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	if ok, reason := store.Trusted(file); !ok {
		t.Errorf("after trust: untrusted: %s", reason)
	}
	data, _ := os.ReadFile(file)
	if ok, _ := store.TrustedData(file, append(data, '#')); ok {
		t.Error("TrustedData accepted bytes that differ from the trusted file")
	}

	// Any change makes it untrusted until it is trusted again.
	if err := os.WriteFile(file, []byte("servers:\n  db: {command: evil}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, reason := store.Trusted(file); ok || !strings.Contains(reason, "changed since it was trusted") {
		t.Errorf("after a change: got %v %q, want untrusted as changed", ok, reason)
	}
	if _, err := store.Trust(file); err != nil {
		t.Fatal(err)
	}
	if ok, reason := store.Trusted(file); !ok {
		t.Errorf("after trusting again: untrusted: %s", reason)
	}

	// Another file is not trusted by this one's record.
	other := writeProject(t, t.TempDir(), "servers:\n  db: {command: db-mcp}\n")
	if ok, _ := store.Trusted(other); ok {
		t.Error("a copy elsewhere is trusted without being trusted itself")
	}
}

// The command a reason names pastes into a shell as it is, whatever the repository is called.
func TestReasonQuotesTheDirectory(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "Shop Front's")
	file := writeProject(t, repo, "servers: {}\n")
	_, reason := (Store{Dir: filepath.Join(t.TempDir(), "trust")}).Trusted(file)
	if want := "mcpctl trust '" + root + "/Shop Front'\\''s'"; !strings.Contains(reason, want) {
		t.Errorf("reason %q does not name %s", reason, want)
	}
	for in, want := range map[string]string{"/src/shop-front_2.0": "/src/shop-front_2.0", "/a b": "'/a b'", "/$HOME": "'/$HOME'"} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestStoreRefusesUnsafeDir(t *testing.T) {
	repo := t.TempDir()
	file := writeProject(t, repo, "servers: {}\n")
	tests := []struct {
		name  string
		setup func(t *testing.T) string // returns the store dir
		want  string
	}{
		{"group-writable dir", func(t *testing.T) string {
			d := filepath.Join(t.TempDir(), "trust")
			if err := os.Mkdir(d, 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(d, 0o777)
			return d
		}, "chmod 700"},
		{"symlinked dir", func(t *testing.T) string {
			d := filepath.Join(t.TempDir(), "trust")
			real := t.TempDir()
			os.Chmod(real, 0o700)
			if err := os.Symlink(real, d); err != nil {
				t.Fatal(err)
			}
			return d
		}, "not a directory"},
		{"symlinked record", func(t *testing.T) string {
			good := Store{Dir: filepath.Join(t.TempDir(), "trust")}
			if _, err := good.Trust(file); err != nil {
				t.Fatal(err)
			}
			// Replace the record with a link to a record that looks valid.
			path := good.recordPath(file)
			copyPath := path + ".copy"
			data, _ := os.ReadFile(path)
			os.WriteFile(copyPath, data, 0o600)
			os.Remove(path)
			if err := os.Symlink(copyPath, path); err != nil {
				t.Fatal(err)
			}
			return good.Dir
		}, "symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := Store{Dir: tt.setup(t)}
			if ok, reason := store.Trusted(file); ok || !strings.Contains(reason, tt.want) {
				t.Errorf("got %v %q, want untrusted saying %q", ok, reason, tt.want)
			}
		})
	}
}

func TestLoadRepo(t *testing.T) {
	// Every repository's file is project.yaml: the project is named after the repository.
	repo := filepath.Join(t.TempDir(), "Shop Front")
	file := writeProject(t, repo, "gated: false\nservers:\n  db: {command: db-mcp}\n")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	store := Store{Dir: filepath.Join(t.TempDir(), "trust")}
	r, err := store.LoadRepo(sub)
	if err != nil {
		t.Fatal(err)
	}
	if r.File != file || r.Project.Name != "shop-front" || r.Trusted || r.Project.Gated || r.Project.Servers["db"].Command != "db-mcp" || !strings.Contains(r.Reason, "mcpctl trust '"+repo+"'") {
		t.Errorf("before trust: got %+v", r)
	}
	if _, err := store.Trust(file); err != nil {
		t.Fatal(err)
	}
	if r, err := store.LoadRepo(sub); err != nil || !r.Trusted {
		t.Errorf("after trust: got %+v, %v", r, err)
	}
	writeProject(t, repo, "servers: {db: {}}\n")
	if _, err := store.LoadRepo(sub); err == nil || !strings.Contains(err.Error(), "command") {
		t.Errorf("invalid file: got %v, want the schema's complaint", err)
	}
	if _, err := store.LoadRepo(t.TempDir()); !errors.Is(err, ErrNotFound) {
		t.Errorf("no repository project: got %v, want ErrNotFound", err)
	}
}

// Trusted reports whether file, as it is now, was trusted; reason says why or why not, and when
// not, which command trusts it. See TrustedData to check bytes already read.
func (s Store) Trusted(file string) (ok bool, reason string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return false, err.Error()
	}
	data, err := ReadFile(abs)
	if err != nil {
		return false, err.Error()
	}
	return s.TrustedData(abs, data)
}
