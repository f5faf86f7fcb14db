package gate

import (
	"github.com/mcpctl/mcpctl/promptlib"
)

// Scope is the part of the library a project's sessions see: the project's folder subtree (the
// whole library without a folder), minus the mcpctl-system folder's subtree. It is the one home
// of that rule: the index, the prompt surface and the tools all ask it. A Scope is immutable and
// safe for concurrent use.
type Scope struct {
	root    string          // the project's folder id as stored; "" without a folder
	folders map[string]bool // promptlib.Key ids at or below root, system ones removed; nil: all
	system  map[string]bool // promptlib.Key ids in the SystemFolder subtree
	ids     []string        // the ids of folders, as stored
}

// NewScope resolves a project's folder against the library's folders. A project folder that is
// not in the library gives an error matching ErrNoFolder.
func NewScope(folders []promptlib.Folder, p Project) (*Scope, error) {
	s := &Scope{system: systemFolders(folders)}
	if p.Folder == "" {
		return s, nil
	}
	root, err := ResolveFolder(folders, p.Folder)
	if err != nil {
		return nil, inFile(err, p.File)
	}
	s.root = root
	s.folders = subtree(folders, root)
	for k := range s.system {
		delete(s.folders, k)
	}
	for _, f := range folders {
		if s.folders[promptlib.Key(f.ID)] {
			s.ids = append(s.ids, f.ID)
		}
	}
	if s.ids == nil {
		s.ids = []string{} // the project's folder is the system folder: it sees nothing
	}
	return s, nil
}

// Sees reports whether prompts in this folder (nil: the top level) are visible to the project.
// Ids compare case-insensitively (promptlib.Key). Top-level prompts are visible only without a
// project folder.
func (s *Scope) Sees(folderID *string) bool {
	if folderID == nil {
		return s.folders == nil && s.ids == nil
	}
	k := promptlib.Key(*folderID)
	if s.system[k] {
		return false
	}
	return s.ids == nil || s.folders[k]
}

// Root is the project's folder id as stored; "" without a folder.
func (s *Scope) Root() string { return s.root }

// Folders lists the ids (as stored) of the folders the project sees; nil means the whole
// library (then the system folders are still hidden: ask Sees or System).
func (s *Scope) Folders() []string { return s.ids }

// System reports whether a folder (nil: the top level) is in the mcpctl-system subtree, whose
// prompts are the gate texts.
func (s *Scope) System(folderID *string) bool {
	return folderID != nil && s.system[promptlib.Key(*folderID)]
}

// SystemPrompts picks the prompts in the mcpctl-system subtree, for SystemTexts.
func (s *Scope) SystemPrompts(prompts []promptlib.Prompt) []promptlib.Prompt {
	var out []promptlib.Prompt
	for _, p := range prompts {
		if s.System(p.FolderID) {
			out = append(out, p)
		}
	}
	return out
}
