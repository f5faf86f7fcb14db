package promptlib

import "strings"

// The folder write rules, as pure functions over the library's folders. The MCP side's
// pre-check and Apply both call them, so the two can never disagree.
//
// The sameness rule: sibling folder names are the same when they look the same in a list.
// They compare by NameKey (visible.go: Unicode NFC, so "Données" composed and decomposed are one
// name; without invisible characters; spaces collapsed and trimmed, so "A" and "A " are one)
// with Unicode simple case folding (strings.EqualFold), so "über" and "Über" are the same name,
// as are "Ärger" and "ärger". SQLite's NOCASE folds ASCII only, which is why Apply checks
// names here and not in SQL. Ids compare without case (the app writes upper-case ids).

// sameName reports whether two folder names count as the same under the write rules
// (siblingNamed compares so, its own name's key made once).
func sameName(a, b string) bool { return strings.EqualFold(NameKey(a), NameKey(b)) }

// folderIndex is folders by upper-cased id.
type folderIndex map[string]Folder

func indexFolders(folders []Folder) folderIndex {
	t := make(folderIndex, len(folders))
	for _, f := range folders {
		t[strings.ToUpper(f.ID)] = f
	}
	return t
}

func (t folderIndex) get(id string) (Folder, bool) {
	f, ok := t[strings.ToUpper(id)]
	return f, ok
}

// siblingNamed returns a folder in parent (nil: the top level) named name (sameName), other
// than except.
func (t folderIndex) siblingNamed(parent *string, name, except string) (Folder, bool) {
	key := NameKey(name)
	for _, f := range t {
		if sameParent(parent, f.ParentID) && !strings.EqualFold(f.ID, except) && strings.EqualFold(NameKey(f.Name), key) {
			return f, true
		}
	}
	return Folder{}, false
}

// under reports whether folder id is ancestor itself or lies below it. The walk is bounded, so
// a corrupt tree with a cycle cannot hang it.
func (t folderIndex) under(id, ancestor string) bool {
	for i := 0; i <= len(t) && id != ""; i++ {
		if strings.EqualFold(id, ancestor) {
			return true
		}
		f, ok := t.get(id)
		if !ok || f.ParentID == nil {
			return false
		}
		id = *f.ParentID
	}
	return false
}

// FolderSubtree returns the id of folder id (as stored) followed by every folder below it, as
// stored. It stops at cycles a corrupt library might hold; nil when id does not exist.
func FolderSubtree(folders []Folder, id string) []string {
	t := indexFolders(folders)
	root, ok := t.get(id)
	if !ok {
		return nil
	}
	children := map[string][]string{}
	for _, f := range folders {
		if f.ParentID != nil {
			p := strings.ToUpper(*f.ParentID)
			children[p] = append(children[p], f.ID)
		}
	}
	seen := map[string]bool{strings.ToUpper(root.ID): true}
	out := []string{root.ID}
	for i := 0; i < len(out); i++ {
		for _, c := range children[strings.ToUpper(out[i])] {
			if k := strings.ToUpper(c); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// CheckCreateFolder applies the rules of create_folder: the parent (nil: the top level) exists
// (PARENT_FOLDER_NOT_FOUND) and holds no folder of the same name (FOLDER_EXISTS).
func CheckCreateFolder(folders []Folder, parentID *string, name string) error {
	t := indexFolders(folders)
	if parentID != nil {
		if _, ok := t.get(*parentID); !ok {
			return Errorf(CodeParentFolderNotFound, "parent folder %s does not exist", *parentID)
		}
	}
	if f, taken := t.siblingNamed(parentID, name, ""); taken {
		return folderExists(name, f)
	}
	return nil
}

// folderExists is FOLDER_EXISTS naming the folder that holds the name, by id: list_folders
// hides empty folders unless asked, so a folder just made would not be found there.
// A name that clashes in another spelling names that spelling too, or the model would look for
// the name it asked for.
func folderExists(name string, existing Folder) error {
	if existing.Name == name {
		return Errorf(CodeFolderExists, "a folder named '%s' already exists there, with id %s", truncate(name, 80), existing.ID)
	}
	return Errorf(CodeFolderExists, "a folder named %q already exists there, with id %s, and %q counts as the same name "+
		"(sibling names are compared without regard to case, Unicode composition or spaces)", truncate(existing.Name, 80), existing.ID, truncate(name, 80))
}

// CheckUpdateFolder applies the rules of update_folder: the folder exists (FOLDER_NOT_FOUND),
// a new parent exists (PARENT_FOLDER_NOT_FOUND) and is neither the folder nor below it
// (FOLDER_CYCLE), and the folder's name is free in its parent after the change (FOLDER_EXISTS).
// Absent fields keep the stored value; a null parentId is the top level.
func CheckUpdateFolder(folders []Folder, id string, name, parentID Optional[string]) error {
	t := indexFolders(folders)
	cur, ok := t.get(id)
	if !ok {
		return Errorf(CodeFolderNotFound, "folder %s does not exist", id)
	}
	parent := cur.ParentID
	if parentID.Set {
		parent = nil
		if !parentID.Null {
			if _, ok := t.get(parentID.Value); !ok {
				return Errorf(CodeParentFolderNotFound, "parent folder %s does not exist", parentID.Value)
			}
			if t.under(parentID.Value, cur.ID) {
				return Errorf(CodeFolderCycle, "folder %s cannot move into %s, which is itself or one of its subfolders", cur.ID, parentID.Value)
			}
			parent = &parentID.Value
		}
	}
	newName := cur.Name
	if name.Set && !name.Null {
		newName = name.Value
	}
	if f, taken := t.siblingNamed(parent, newName, cur.ID); taken {
		return folderExists(newName, f)
	}
	return nil
}

// CheckDeleteFolder applies the rules of delete_folder: the folder exists (FOLDER_NOT_FOUND)
// and, unless recursive, holds no subfolder and no prompt (FOLDER_NOT_EMPTY). prompts counts
// the prompts directly in each folder, keyed by folder id in any case.
func CheckDeleteFolder(folders []Folder, prompts map[string]int, id string, recursive bool) error {
	t := indexFolders(folders)
	f, ok := t.get(id)
	if !ok {
		return Errorf(CodeFolderNotFound, "folder %s does not exist", id)
	}
	if recursive {
		return nil
	}
	sub := FolderSubtree(folders, f.ID)
	upper := make(map[string]int, len(prompts))
	for k, n := range prompts {
		upper[strings.ToUpper(k)] += n
	}
	n := 0
	for _, s := range sub {
		n += upper[strings.ToUpper(s)]
	}
	if n > 0 || len(sub) > 1 {
		return Errorf(CodeFolderNotEmpty, "folder '%s' holds %s and %s; use recursive=true to delete it with its contents",
			truncate(f.Name, 80), Count(n, "prompt", "prompts"), Count(len(sub)-1, "subfolder", "subfolders"))
	}
	return nil
}
