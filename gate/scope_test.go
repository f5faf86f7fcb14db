package gate

import (
	"strings"
	"testing"
)

func TestScope(t *testing.T) {
	f := newFixture(t)
	eng := f.folder("Engineering")
	be := f.folder("Engineering / Backend")
	mk := f.folder("Marketing")
	sys := f.folder(SystemFolder)
	nested := f.folder("Engineering / " + SystemFolder) // not top level: an ordinary folder
	tests := []struct {
		folder                          string
		sees, hidden, system, notSystem []string
		top                             bool
	}{
		{"", []string{eng, be, mk, nested}, []string{sys}, []string{sys}, []string{eng, nested}, true},
		{"Engineering", []string{eng, be, nested, strings.ToLower(be)}, []string{mk, sys}, []string{sys}, []string{be}, false},
	}
	for _, tt := range tests {
		t.Run("folder="+tt.folder, func(t *testing.T) {
			p := NoProject()
			p.Folder = tt.folder
			s, err := NewScope(f.lib.Folders, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range tt.sees {
				if !s.Sees(&id) {
					t.Errorf("Sees(%s) = false, want true", id)
				}
			}
			for _, id := range tt.hidden {
				if s.Sees(&id) {
					t.Errorf("Sees(%s) = true, want false", id)
				}
			}
			for _, id := range tt.system {
				if !s.System(&id) {
					t.Errorf("System(%s) = false", id)
				}
			}
			for _, id := range tt.notSystem {
				if s.System(&id) {
					t.Errorf("System(%s) = true", id)
				}
			}
			if s.Sees(nil) != tt.top || s.System(nil) {
				t.Errorf("top level: Sees %v System %v, want %v false", s.Sees(nil), s.System(nil), tt.top)
			}
		})
	}
}
