package gate

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// SystemFolder is the top-level library folder that holds the gate texts. Its prompts configure
// the gate and are never part of a prompt index.
const SystemFolder = "mcpctl-system"

// PathSep joins folder names into a path, as the app shows them: "Engineering / Backend".
const PathSep = " / "

// FolderPaths gives every folder its path from the top level, "A / B", keyed by
// promptlib.Key(id). A folder whose parent is missing, or that sits in a parent cycle, is treated
// as top level rather than dropped.
func FolderPaths(folders []promptlib.Folder) map[string]string {
	byID := make(map[string]promptlib.Folder, len(folders))
	for _, f := range folders {
		byID[promptlib.Key(f.ID)] = f
	}
	paths := make(map[string]string, len(folders))
	var path func(id string, depth int) string
	path = func(id string, depth int) string {
		if p, ok := paths[id]; ok {
			return p
		}
		f := byID[id]
		p := f.Name
		if f.ParentID != nil && depth < len(folders) {
			if parent := promptlib.Key(*f.ParentID); parent != id {
				if _, ok := byID[parent]; ok {
					p = path(parent, depth+1) + PathSep + f.Name
				}
			}
		}
		paths[id] = p
		return p
	}
	for _, f := range folders {
		path(promptlib.Key(f.ID), 0)
	}
	return paths
}

// ResolveFolder finds the folder a project names: by id (either case), by path from the top
// level ("A / B", spaces around the slashes optional), or by a name found exactly once anywhere.
// A name found in several places is an error listing their paths, so the user can write one.
// A path that matches several folders (a folder named "Engineering/Web App" beside
// "Engineering" / "Web App", or siblings "A" and "A ") is an error naming every candidate with
// its id and path: it never silently picks one, since the folder decides what a session sees.
func ResolveFolder(folders []promptlib.Folder, spec string) (string, error) {
	paths := FolderPaths(folders)
	for _, f := range folders {
		if strings.EqualFold(f.ID, spec) {
			return f.ID, nil
		}
	}
	want := normPath(spec)
	var byPath []promptlib.Folder
	for _, f := range folders {
		if normPath(paths[promptlib.Key(f.ID)]) == want {
			byPath = append(byPath, f)
		}
	}
	switch {
	case len(byPath) == 1:
		return byPath[0].ID, nil
	case len(byPath) > 1:
		var cs []string
		for _, f := range byPath {
			cs = append(cs, fmt.Sprintf("%s (id %s)", quote(paths[promptlib.Key(f.ID)]), f.ID))
		}
		sort.Strings(cs)
		return "", &Error{Op: "resolve folder", Path: spec, Err: errors.Join(ErrNoFolder,
			fmt.Errorf("the path is ambiguous, %d folders match: %s; write the folder's id instead", len(cs), strings.Join(cs, ", ")))}
	}
	var hits []string
	for _, f := range folders {
		if normPath(f.Name) == want {
			hits = append(hits, f.ID)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", &Error{Op: "resolve folder", Path: spec, Err: ErrNoFolder}
	}
	var ps []string
	for _, id := range hits {
		ps = append(ps, quote(paths[promptlib.Key(id)]))
	}
	sort.Strings(ps)
	return "", &Error{Op: "resolve folder", Path: spec, Err: errors.Join(ErrNoFolder,
		fmt.Errorf("the name is ambiguous, write the path: %s", strings.Join(ps, ", ")))}
}

func quote(s string) string { return `"` + s + `"` }

// normPath is a folder path as compared: each part as promptlib.NameKey has it, in lower case,
// so that the folder a name finds is the one create_folder calls the same ("Café" typed in a
// project file and the app's decomposed e + U+0301; "Web  App" and "Web App"): a user told to
// create a folder they can see could not fix it, as create_folder would refuse it as existing.
func normPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = strings.ToLower(promptlib.NameKey(s))
	}
	return strings.Join(parts, "/")
}

// subtree is the set of folder ids (as promptlib.Key) at or below root.
func subtree(folders []promptlib.Folder, root string) map[string]bool {
	children := make(map[string][]string, len(folders))
	for _, f := range folders {
		if f.ParentID != nil {
			parent := promptlib.Key(*f.ParentID)
			children[parent] = append(children[parent], promptlib.Key(f.ID))
		}
	}
	root = promptlib.Key(root)
	in := map[string]bool{root: true}
	stack := []string{root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range children[id] {
			if !in[c] {
				in[c] = true
				stack = append(stack, c)
			}
		}
	}
	return in
}

// systemFolders is the set of folder ids (as promptlib.Key) in the SystemFolder subtree: every top-level folder of
// that name and what is below it.
func systemFolders(folders []promptlib.Folder) map[string]bool {
	in := map[string]bool{}
	for _, f := range folders {
		if f.ParentID == nil && f.Name == SystemFolder {
			for id := range subtree(folders, f.ID) {
				in[id] = true
			}
		}
	}
	return in
}
