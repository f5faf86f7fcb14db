package dbread

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

const folderColumns = "id, name, parent_id, position, created_at, updated_at"

// FolderInfo is a folder with its place in the tree.
type FolderInfo struct {
	promptlib.Folder
	Path        string // names from the top, joined by " / "
	ChildCount  int
	PromptCount int // prompts directly in this folder
}

func scanFolder(rows *sql.Rows) (promptlib.Folder, error) {
	var (
		f                promptlib.Folder
		parent           sql.NullString
		position         sql.NullInt64
		created, updated unixTime
	)
	if err := rows.Scan(&f.ID, &f.Name, &parent, &position, &created, &updated); err != nil {
		return f, err
	}
	f.ParentID = nullable(parent)
	f.Position = int(position.Int64)
	f.CreatedAt, f.UpdatedAt = created.t, updated.t
	return f, nil
}

// Folder returns one folder by id (either case). ErrNotFound if absent.
func (db *DB) Folder(ctx context.Context, id string) (promptlib.Folder, error) {
	const op = "get folder"
	pool, release, err := db.acquire()
	if err != nil {
		return promptlib.Folder{}, db.wrap(op, err)
	}
	defer release()
	rows, err := pool.QueryContext(ctx, "SELECT "+folderColumns+" FROM folders WHERE id IN (?, ?, ?)", idSpellings(id)...)
	if err != nil {
		return promptlib.Folder{}, db.wrap(op, err)
	}
	defer rows.Close()
	var found []promptlib.Folder
	for rows.Next() {
		f, err := scanFolder(rows)
		if err != nil {
			return promptlib.Folder{}, db.wrap(op, err)
		}
		found = append(found, f)
	}
	if err := rows.Err(); err != nil {
		return promptlib.Folder{}, db.wrap(op, err)
	}
	if len(found) == 0 {
		return promptlib.Folder{}, db.wrap(op, because(ErrNotFound, "no folder "+id))
	}
	for _, f := range found {
		if f.ID == id {
			return f, nil
		}
	}
	return found[0], nil
}

// Folders returns every folder in tree order (parents before children, siblings by position,
// then name). Ids are matched across case (a parent_id may be spelled differently from the
// parent's id). A folder whose parent is missing, or that sits in a cycle, is listed at the top
// level rather than dropped.
func (db *DB) Folders(ctx context.Context) ([]FolderInfo, error) {
	const op = "list folders"
	folders, counts, err := db.readFolders(ctx)
	if err != nil {
		return nil, db.wrap(op, err)
	}
	byKey := make(map[string]int, len(folders))
	for i, f := range folders {
		byKey[strings.ToLower(f.ID)] = i
	}
	children := make(map[string][]int, len(folders)) // parent key ("" = top) -> indexes
	for i, f := range folders {
		parent := ""
		if f.ParentID != nil {
			if _, ok := byKey[strings.ToLower(*f.ParentID)]; ok {
				parent = strings.ToLower(*f.ParentID)
			}
		}
		children[parent] = append(children[parent], i)
	}
	for _, kids := range children {
		slices.SortFunc(kids, func(a, b int) int {
			fa, fb := folders[a], folders[b]
			if c := cmp.Compare(fa.Position, fb.Position); c != 0 {
				return c
			}
			if c := cmp.Compare(fa.Name, fb.Name); c != 0 {
				return c
			}
			return cmp.Compare(fa.ID, fb.ID)
		})
	}
	out := make([]FolderInfo, 0, len(folders))
	seen := make([]bool, len(folders))
	var walk func(i int, prefix string)
	walk = func(i int, prefix string) {
		seen[i] = true
		f := folders[i]
		key := strings.ToLower(f.ID)
		path := f.Name
		if prefix != "" {
			path = prefix + " / " + f.Name
		}
		out = append(out, FolderInfo{Folder: f, Path: path, ChildCount: len(children[key]), PromptCount: counts[key]})
		for _, c := range children[key] {
			if !seen[c] {
				walk(c, path)
			}
		}
	}
	for _, i := range children[""] {
		walk(i, "")
	}
	// Folders only reachable through a cycle: list each at the top so none is lost.
	for i := range folders {
		if !seen[i] {
			walk(i, "")
		}
	}
	return out, nil
}

// readFolders reads every folder and the number of prompts per folder (keyed by lower-cased
// id), the count through the folder_id index.
func (db *DB) readFolders(ctx context.Context) ([]promptlib.Folder, map[string]int, error) {
	pool, release, err := db.acquire()
	if err != nil {
		return nil, nil, err
	}
	defer release()
	rows, err := pool.QueryContext(ctx, "SELECT "+folderColumns+" FROM folders")
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var folders []promptlib.Folder
	for rows.Next() {
		f, err := scanFolder(rows)
		if err != nil {
			return nil, nil, err
		}
		folders = append(folders, f)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows.Close()
	crows, err := pool.QueryContext(ctx, "SELECT folder_id, count(*) FROM prompts WHERE folder_id IS NOT NULL GROUP BY folder_id")
	if err != nil {
		return nil, nil, err
	}
	defer crows.Close()
	counts := map[string]int{}
	for crows.Next() {
		var id string
		var n int
		if err := crows.Scan(&id, &n); err != nil {
			return nil, nil, err
		}
		counts[strings.ToLower(id)] += n
	}
	return folders, counts, crows.Err()
}
