package gate

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestLibraryIndex(t *testing.T) {
	f := newFixture(t)
	secBody := "Check every input at the boundary.\n\n## Secrets\n\nNever log them.\n\n## Logging\n"
	sec := f.prompt("Engineering / Backend", "Security Review", secBody)
	f.prompt("Engineering", "Deploys", "Ship on Tuesdays.\n")
	f.prompt("", "Top Level", "At the top.\n")
	f.prompt("Marketing", "Brand Voice", "Be warm.\n")
	f.prompt(SystemFolder, "Gate Encouragement", "Read more.\n")
	f.prompt(SystemFolder+" / drafts", "Draft", "Hidden too.\n")

	t.Run("whole library without the system folder", func(t *testing.T) {
		ix, scope, err := LibraryIndex(f.lib, NoProject())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names(ix.Entries()), []string{"brand-voice", "deploys", "security-review", "top-level"}; !reflect.DeepEqual(got, want) {
			t.Errorf("entries %q, want %q", got, want)
		}
		e, ok := ix.Entry(strings.ToLower(sec))
		if !ok {
			t.Fatal("Entry by lower-case id: not found")
		}
		if e.Name != "security-review" || e.Title != "Security Review" || e.Summary != "Check every input at the boundary." ||
			!reflect.DeepEqual(e.Chapters, []string{"Secrets", "Logging"}) || e.FolderPath != "Engineering / Backend" || e.Bytes != len(secBody) || e.Priority != 5 {
			t.Errorf("entry %+v", e)
		}
		if scope.Root() != "" || scope.Folders() != nil || !scope.Sees(nil) {
			t.Errorf("scope without a folder: root %q folders %q, sees top level %v", scope.Root(), scope.Folders(), scope.Sees(nil))
		}
	})
	t.Run("scoped to a folder subtree", func(t *testing.T) {
		p := NoProject()
		p.Folder = "Engineering"
		ix, scope, err := LibraryIndex(f.lib, p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names(ix.Entries()), []string{"deploys", "security-review"}; !reflect.DeepEqual(got, want) {
			t.Errorf("entries %q, want %q", got, want)
		}
		if scope.Root() != f.paths["Engineering"] || len(scope.Folders()) != 2 || scope.Sees(nil) {
			t.Errorf("scope: root %q folders %q sees top level %v", scope.Root(), scope.Folders(), scope.Sees(nil))
		}
	})
	t.Run("missing folder", func(t *testing.T) {
		p := NoProject()
		p.Folder = "Nowhere"
		if _, _, err := LibraryIndex(f.lib, p); !errors.Is(err, ErrNoFolder) {
			t.Errorf("err = %v, want ErrNoFolder", err)
		}
	})
}

func TestLibraryBodies(t *testing.T) {
	f := newFixture(t)
	id := f.prompt("Docs", "Rules", "Body of the rules.\n")
	load := LibraryBodies(f.lib)
	got, err := load(context.Background(), []string{strings.ToLower(id), "MISSING"})
	if err != nil || !reflect.DeepEqual(got, map[string]string{strings.ToLower(id): "Body of the rules.\n"}) {
		t.Errorf("bodies = %q, %v; want the one body under the id as asked", got, err)
	}
}
