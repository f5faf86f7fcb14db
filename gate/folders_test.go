package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestFolderPaths(t *testing.T) {
	f := newFixture(t)
	b := f.folder("Engineering / Backend / Go")
	w := f.folder("Writing")
	got := FolderPaths(f.lib.Folders)
	for id, want := range map[string]string{b: "Engineering / Backend / Go", w: "Writing", f.paths["Engineering"]: "Engineering"} {
		if got[id] != want {
			t.Errorf("path of %s = %q, want %q", id, got[id], want)
		}
	}

	// A cycle (which the app never writes) still gives every folder a path.
	cyc := []promptlib.Folder{{ID: "a", Name: "A", ParentID: promptlib.Ptr("b")}, {ID: "b", Name: "B", ParentID: promptlib.Ptr("a")}}
	if p := FolderPaths(cyc); p["a"] == "" || p["b"] == "" {
		t.Errorf("cycle: got %q, want a path for each folder", p)
	}
}

func TestResolveFolder(t *testing.T) {
	f := newFixture(t)
	goID := f.folder("Engineering / Backend / Go")
	backend := f.paths["Engineering / Backend"]
	f.folder("Writing / Go")
	cafe := f.folder("Engineering / Cafe\u0301")
	// Names create_folder calls the same as what a project file says: two spaces, a zero-width
	// space, another case. Told "not found", the user could not create them.
	webApp := f.folder("Web  App")
	personal := f.folder("Personal\u200b")
	tests := []struct {
		spec    string
		want    string
		wantErr string
	}{
		{"Engineering / Backend", backend, ""},
		{"Engineering/Backend", backend, ""},
		{"  Engineering /Backend / Go ", goID, ""},
		{"Backend", backend, ""},
		{strings.ToLower(backend), backend, ""},
		{"Go", "", `ambiguous, write the path: "Engineering / Backend / Go", "Writing / Go"`},
		{"Frontend", "", "project folder not found"},
		// Composed in the project file, decomposed in the library (or the other way): the same.
		{"Café", cafe, ""},
		{"Engineering / Cafe\u0301", cafe, ""},
		{"Web App", webApp, ""},
		{"personal", personal, ""},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ResolveFolder(f.lib.Folders, tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrNoFolder) {
					t.Fatalf("got %q, %v; want an ErrNoFolder error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// Two folders whose paths read the same once spaces around slashes are ignored (a folder named
// "Engineering/Web App" beside "Engineering" / "Web App"), or siblings "A" and "A ", are
// ambiguous: ResolveFolder refuses and names both, with ids and paths (issue 14 item 6).
func TestResolveFolderAmbiguousPath(t *testing.T) {
	const (
		eng    = "E0000000-0000-4000-8000-000000000001"
		web    = "E0000000-0000-4000-8000-000000000002"
		slash  = "E0000000-0000-4000-8000-000000000003"
		a      = "E0000000-0000-4000-8000-000000000004"
		aSpace = "E0000000-0000-4000-8000-000000000005"
	)
	folders := []promptlib.Folder{
		{ID: slash, Name: "Engineering/Web App"}, // listed first: first match must not win
		{ID: eng, Name: "Engineering"},
		{ID: web, Name: "Web App", ParentID: promptlib.Ptr(eng)},
		{ID: a, Name: "A"},
		{ID: aSpace, Name: "A "},
	}
	tests := []struct {
		spec string
		want []string // each must appear in the error
	}{
		{"Engineering / Web App", []string{`"Engineering / Web App" (id ` + web + `)`, `"Engineering/Web App" (id ` + slash + `)`}},
		{"Engineering/Web App", []string{web, slash}},
		{"A", []string{`(id ` + a + `)`, `(id ` + aSpace + `)`}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ResolveFolder(folders, tt.spec)
			if err == nil || !errors.Is(err, ErrNoFolder) || !strings.Contains(err.Error(), "ambiguous") {
				t.Fatalf("got %q, %v; want an ambiguity error", got, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	// Ids still pick exactly one.
	for _, id := range []string{web, slash, strings.ToLower(aSpace)} {
		if got, err := ResolveFolder(folders, id); err != nil || !strings.EqualFold(got, id) {
			t.Errorf("ResolveFolder(%s) = %q, %v; want that folder", id, got, err)
		}
	}
}

func TestNewScopeFolders(t *testing.T) {
	f := newFixture(t)
	goID := f.folder("Engineering / Backend / Go")
	writing := f.folder("Writing")
	p := NoProject()
	if s, err := NewScope(f.lib.Folders, p); err != nil || !s.Sees(nil) || !s.Sees(&writing) {
		t.Errorf("no folder: got %v; want every prompt seen", err)
	}
	p.Folder = "Engineering / Backend"
	s, err := NewScope(f.lib.Folders, p)
	if err != nil {
		t.Fatal(err)
	}
	backend := f.paths["Engineering / Backend"]
	for id, want := range map[string]bool{backend: true, goID: true, writing: false, f.paths["Engineering"]: false} {
		if s.Sees(&id) != want {
			t.Errorf("Sees(%s) = %v, want %v", id, !want, want)
		}
	}
	if s.Sees(nil) {
		t.Error("a project with a folder sees the top level")
	}
	p.Folder, p.File = "Nope", "/repo/.mcpctl/project.yaml"
	_, err = NewScope(f.lib.Folders, p)
	var ge *Error
	if !errors.Is(err, ErrNoFolder) || !errors.As(err, &ge) {
		t.Fatalf("got %v, want a *Error matching ErrNoFolder", err)
	}
	if h := ge.UserHint(); !strings.Contains(h, `create the folder "Nope"`) || !strings.Contains(h, p.File) {
		t.Errorf("hint %q: want the folder to create and the file to change", h)
	}
	// An ambiguous name says what to write in its message; the hint to create it would be wrong.
	f.folder("Writing / Go")
	p.Folder = "Go"
	if _, err := NewScope(f.lib.Folders, p); !errors.As(err, &ge) || ge.UserHint() != "" || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous: got %v (hint %q), want an ambiguity error without a hint", err, ge.UserHint())
	}
}

// The app may spell a parent's id in another case in a child's parent_id: the child is still in
// the project's scope, and its path still runs through the parent.
func TestNewScopeIgnoresIDCase(t *testing.T) {
	parent := promptlib.Folder{ID: "AAAA0000-0000-4000-8000-000000000001", Name: "Web"}
	child := promptlib.Folder{ID: "BBBB0000-0000-4000-8000-000000000002", Name: "API", ParentID: promptlib.Ptr("aaaa0000-0000-4000-8000-000000000001")}
	folders := []promptlib.Folder{parent, child}
	scope, err := NewScope(folders, Project{Folder: "Web"})
	if err != nil {
		t.Fatal(err)
	}
	if !scope.Sees(&child.ID) {
		t.Error("the scope lacks the child whose parent_id is lower case")
	}
	if got := FolderPaths(folders)[promptlib.Key(child.ID)]; got != "Web / API" {
		t.Errorf("child path %q, want Web / API", got)
	}
}
