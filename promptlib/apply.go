package promptlib

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Apply runs op against the library inside the caller's transaction and returns the response
// the app would write. It validates the data again (the queue is a boundary: a file may come
// from anywhere) and enforces the write rules: folder names unique per parent (compared without
// case), no folder moved into itself or below itself, delete_folder refuses a non-empty folder
// unless recursive, deleting a missing prompt succeeds, new and moved folders go to the end of
// their parent, timestamps are Unix seconds, colors hex, the emoji lives in icon.
//
// Apply works inside a savepoint: when it answers an error, the transaction holds none of its
// writes and can be committed (to record the answer) or rolled back. Ids of new prompts and
// folders are upper-case UUIDv4, the spelling the app writes; existing ids are matched in
// either case and stored as they are spelt.
func Apply(ctx context.Context, tx *sql.Tx, op Operation) Response {
	resp, err := ApplyCause(ctx, tx, op)
	if err != nil {
		return Failure(err)
	}
	return resp
}

// ApplyCause is Apply for a caller that must tell the two kinds of failure apart. A failure of
// the operation (invalid data, a missing folder, a name taken) is the response, as from Apply. A
// failure of the database itself (the disk is full, the file is read-only, an I/O error) is err,
// the driver's error wrapped, which Apply would answer only as "the library could not be
// written": the caller can then name the cause, and should roll the transaction back rather than
// record an answer that says nothing of it.
func ApplyCause(ctx context.Context, tx *sql.Tx, op Operation) (Response, error) {
	v, err := DecodeData(op)
	if err != nil {
		return Failure(err), nil
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT apply"); err != nil {
		return Response{}, fmt.Errorf("promptlib: apply: %w", err)
	}
	a := applier{ctx: ctx, tx: tx, now: time.Now().Unix()}
	resp, err := a.apply(v)
	// Failure's own test: an *Error is the operation's fault and answers it; anything else
	// came from the database.
	_, domain := err.(*Error)
	if err != nil {
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO apply"); rerr != nil {
			if !domain {
				// SQLite rolls the whole transaction back itself after some failures (a full
				// disk, an I/O error), savepoint and all: the cause is the first error.
				return Response{}, fmt.Errorf("promptlib: apply: %w (the rollback failed too: %v)", err, rerr)
			}
			return Response{}, fmt.Errorf("promptlib: apply: %w", rerr)
		}
	}
	if _, rerr := tx.ExecContext(ctx, "RELEASE apply"); rerr != nil {
		return Response{}, fmt.Errorf("promptlib: apply: %w", rerr)
	}
	switch {
	case err == nil:
		return resp, nil
	case domain:
		return Failure(err), nil
	}
	return Response{}, err
}

type applier struct {
	ctx context.Context
	tx  *sql.Tx
	now int64
}

func (a applier) apply(v Validator) (Response, error) {
	switch d := v.(type) {
	case *CreatePromptData:
		return a.createPrompt(d)
	case *UpdatePromptData:
		return a.updatePrompt(d)
	case *DeletePromptData:
		return a.deletePrompt(d)
	case *CreateFolderData:
		return a.createFolder(d)
	case *UpdateFolderData:
		return a.updateFolder(d)
	case *DeleteFolderData:
		return a.deleteFolder(d)
	}
	return Response{}, Errorf(CodeInternal, "no rule for %T", v)
}

func newEntityID() string { return strings.ToUpper(uuid.NewString()) }

// lookup returns the stored spelling of an id in table, or "" when there is none.
func (a applier) lookup(table, id string) (string, error) {
	var stored string
	err := a.tx.QueryRowContext(a.ctx, "SELECT id FROM "+table+" WHERE id = ? COLLATE NOCASE LIMIT 1", id).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("promptlib: look up %s %s: %w", table, id, err)
	}
	return stored, nil
}

// folderRef resolves a folder id the data refers to; code is the error when it is missing.
func (a applier) folderRef(field, id string, code Code) (string, error) {
	stored, err := a.lookup("folders", id)
	if err != nil {
		return "", err
	}
	if stored == "" {
		return "", Errorf(code, "%s %s does not exist", field, id)
	}
	return stored, nil
}

func (a applier) createPrompt(d *CreatePromptData) (Response, error) {
	var folder *string
	if d.FolderID != nil {
		f, err := a.folderRef("folder", *d.FolderID, CodeFolderNotFound)
		if err != nil {
			return Response{}, err
		}
		folder = &f
	}
	id := newEntityID()
	_, err := a.tx.ExecContext(a.ctx,
		`INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, d.Title, d.Content, folder, d.Emoji, StoredColor(d.Color), d.URL, a.now, a.now)
	if err != nil {
		return Response{}, fmt.Errorf("promptlib: create prompt: %w", err)
	}
	return Success(id, "Prompt '%s' created", truncate(d.Title, 80)), nil
}

func (a applier) updatePrompt(d *UpdatePromptData) (Response, error) {
	id, err := a.lookup("prompts", d.ID)
	if err != nil {
		return Response{}, err
	}
	if id == "" {
		return Response{}, Errorf(CodePromptNotFound, "prompt %s does not exist", d.ID)
	}
	var sets []string
	var args []any
	set := func(col string, v any) { sets = append(sets, col+" = ?"); args = append(args, v) }
	if d.Title.Set {
		set("title", d.Title.Value)
	}
	if d.Content.Set {
		set("body", d.Content.Value)
	}
	if d.FolderID.Set {
		if d.FolderID.Null {
			set("folder_id", nil)
		} else {
			f, err := a.folderRef("folder", d.FolderID.Value, CodeFolderNotFound)
			if err != nil {
				return Response{}, err
			}
			set("folder_id", f)
		}
	}
	if d.Emoji.Set {
		set("icon", nullable(d.Emoji))
	}
	if d.Color.Set {
		var hex *string
		if !d.Color.Null {
			hex = StoredColor(&d.Color.Value)
		}
		set("color", hex)
	}
	if d.URL.Set {
		set("url", nullable(d.URL))
	}
	set("updated_at", a.now)
	args = append(args, id)
	// The answer names the prompt by its title, as a create's does: an id says nothing to the
	// user the model tells.
	var title string
	if err := a.tx.QueryRowContext(a.ctx, "UPDATE prompts SET "+strings.Join(sets, ", ")+" WHERE id = ? RETURNING title", args...).Scan(&title); err != nil {
		return Response{}, fmt.Errorf("promptlib: update prompt: %w", err)
	}
	return Success(id, "Prompt '%s' updated", truncate(title, 80)), nil
}

func nullable(o Optional[string]) *string {
	if o.Null {
		return nil
	}
	return &o.Value
}

func (a applier) deletePrompt(d *DeletePromptData) (Response, error) {
	var title string
	err := a.tx.QueryRowContext(a.ctx, "DELETE FROM prompts WHERE id = ? COLLATE NOCASE RETURNING title", d.ID).Scan(&title)
	if errors.Is(err, sql.ErrNoRows) {
		// Deleting is idempotent: a retried or duplicate delete must not fail.
		return Success(d.ID, "No prompt %s to delete: it was deleted already, or never existed", d.ID), nil
	}
	if err != nil {
		return Response{}, fmt.Errorf("promptlib: delete prompt: %w", err)
	}
	return Success(d.ID, "Prompt '%s' deleted", truncate(title, 80)), nil
}

// sameParentSQL matches folders whose parent_id is the bound parent (twice), NULL for the top
// level, in either case: children may spell their parent's id differently from the parent.
const sameParentSQL = `(parent_id IS ? OR parent_id = ? COLLATE NOCASE)`

// folders reads every folder's id, name and parent: the input of the folder write rules
// (folder_rules.go), which Apply checks in Go so that it agrees with the MCP side's pre-check.
func (a applier) folders() ([]Folder, error) {
	return a.queryFolders(`SELECT id, name, parent_id FROM folders`)
}

// foldersNear reads the folders the rules of a create or a rename look at: parent (nil: the
// top level) itself, its children, and folder id. The rules give the same answer on this part
// as on the whole tree, and reading 10,000 folders for every new one cost 25 ms.
func (a applier) foldersNear(parent *string, id string) ([]Folder, error) {
	p := ""
	if parent != nil {
		p = *parent
	}
	return a.queryFolders(`SELECT id, name, parent_id FROM folders WHERE `+sameParentSQL+
		` OR id = ? COLLATE NOCASE OR id = ? COLLATE NOCASE`, parent, parent, p, id)
}

func (a applier) queryFolders(q string, args ...any) ([]Folder, error) {
	rows, err := a.tx.QueryContext(a.ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("promptlib: read folders: %w", err)
	}
	defer rows.Close()
	var out []Folder
	for rows.Next() {
		var f Folder
		var p sql.NullString
		if err := rows.Scan(&f.ID, &f.Name, &p); err != nil {
			return nil, fmt.Errorf("promptlib: read folders: %w", err)
		}
		if p.Valid {
			f.ParentID = &p.String
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("promptlib: read folders: %w", err)
	}
	return out, nil
}

// promptCounts counts the prompts directly in each folder.
func (a applier) promptCounts() (map[string]int, error) {
	rows, err := a.tx.QueryContext(a.ctx, `SELECT folder_id, COUNT(*) FROM prompts WHERE folder_id IS NOT NULL GROUP BY folder_id`)
	if err != nil {
		return nil, fmt.Errorf("promptlib: count prompts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("promptlib: count prompts: %w", err)
		}
		out[id] += n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("promptlib: count prompts: %w", err)
	}
	return out, nil
}

// nextPosition is one past the last position among parent's children.
func (a applier) nextPosition(parent *string) (int64, error) {
	var pos sql.NullInt64
	if err := a.tx.QueryRowContext(a.ctx, `SELECT MAX(position) FROM folders WHERE `+sameParentSQL, parent, parent).Scan(&pos); err != nil {
		return 0, fmt.Errorf("promptlib: folder position: %w", err)
	}
	if !pos.Valid {
		return 0, nil
	}
	return pos.Int64 + 1, nil
}

func (a applier) createFolder(d *CreateFolderData) (Response, error) {
	all, err := a.foldersNear(d.ParentID, "")
	if err != nil {
		return Response{}, err
	}
	if err := CheckCreateFolder(all, d.ParentID, d.Name); err != nil {
		return Response{}, err
	}
	var parent *string
	if d.ParentID != nil {
		p, err := a.folderRef("parent folder", *d.ParentID, CodeParentFolderNotFound)
		if err != nil {
			return Response{}, err
		}
		parent = &p
	}
	pos, err := a.nextPosition(parent)
	if err != nil {
		return Response{}, err
	}
	id := newEntityID()
	if _, err := a.tx.ExecContext(a.ctx,
		`INSERT INTO folders (id, name, parent_id, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, d.Name, parent, pos, a.now, a.now); err != nil {
		return Response{}, fmt.Errorf("promptlib: create folder: %w", err)
	}
	return Success(id, "Folder '%s' created", truncate(d.Name, 80)), nil
}

// folder reads one folder's stored id, name and parent.
func (a applier) folder(id string) (stored, name string, parent *string, err error) {
	var p sql.NullString
	err = a.tx.QueryRowContext(a.ctx, `SELECT id, name, parent_id FROM folders WHERE id = ? COLLATE NOCASE LIMIT 1`, id).
		Scan(&stored, &name, &p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil, Errorf(CodeFolderNotFound, "folder %s does not exist", id)
	}
	if err != nil {
		return "", "", nil, fmt.Errorf("promptlib: read folder %s: %w", id, err)
	}
	if p.Valid {
		parent = &p.String
	}
	return stored, name, parent, nil
}

func (a applier) updateFolder(d *UpdateFolderData) (Response, error) {
	var all []Folder
	var err error
	if d.ParentID.Set {
		all, err = a.folders() // a move: the cycle check walks up from the new parent
	} else {
		var parent *string
		if _, _, parent, err = a.folder(d.ID); err == nil {
			all, err = a.foldersNear(parent, d.ID)
		} else if CodeOf(err) == CodeFolderNotFound {
			all, err = nil, nil // the rules answer FOLDER_NOT_FOUND
		}
	}
	if err != nil {
		return Response{}, err
	}
	if err := CheckUpdateFolder(all, d.ID, d.Name, d.ParentID); err != nil {
		return Response{}, err
	}
	id, name, parent, err := a.folder(d.ID)
	if err != nil {
		return Response{}, err
	}
	newParent, moved := parent, false
	if d.ParentID.Set {
		if d.ParentID.Null {
			newParent = nil
		} else {
			p, err := a.folderRef("parent folder", d.ParentID.Value, CodeParentFolderNotFound)
			if err != nil {
				return Response{}, err
			}
			newParent = &p
		}
		moved = !sameParent(parent, newParent)
	}
	newName := name
	if d.Name.Set {
		newName = d.Name.Value
	}
	sets, args := []string{"name = ?", "updated_at = ?"}, []any{newName, a.now}
	if moved {
		pos, err := a.nextPosition(newParent)
		if err != nil {
			return Response{}, err
		}
		sets = append(sets, "parent_id = ?", "position = ?")
		args = append(args, newParent, pos)
	}
	args = append(args, id)
	if _, err := a.tx.ExecContext(a.ctx, "UPDATE folders SET "+strings.Join(sets, ", ")+" WHERE id = ?", args...); err != nil {
		return Response{}, fmt.Errorf("promptlib: update folder: %w", err)
	}
	return Success(id, "Folder '%s' updated", truncate(newName, 80)), nil
}

func sameParent(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return strings.EqualFold(*a, *b)
}

func (a applier) deleteFolder(d *DeleteFolderData) (Response, error) {
	all, err := a.folders()
	if err != nil {
		return Response{}, err
	}
	counts, err := a.promptCounts()
	if err != nil {
		return Response{}, err
	}
	if err := CheckDeleteFolder(all, counts, d.ID, d.Recursive); err != nil {
		return Response{}, err
	}
	id, name, _, err := a.folder(d.ID)
	if err != nil {
		return Response{}, err
	}
	sub := FolderSubtree(all, id)
	in := "(" + strings.TrimSuffix(strings.Repeat("?,", len(sub)), ",") + ")"
	args := make([]any, len(sub))
	for i, s := range sub {
		args[i] = s
	}
	res, err := a.tx.ExecContext(a.ctx, "DELETE FROM prompts WHERE folder_id COLLATE NOCASE IN "+in, args...)
	if err != nil {
		return Response{}, fmt.Errorf("promptlib: delete folder: %w", err)
	}
	prompts, _ := res.RowsAffected()
	if _, err := a.tx.ExecContext(a.ctx, "DELETE FROM folders WHERE id IN "+in, args...); err != nil {
		return Response{}, fmt.Errorf("promptlib: delete folder: %w", err)
	}
	if len(sub) == 1 && prompts == 0 {
		return Success(id, "Folder '%s' deleted", truncate(name, 80)), nil
	}
	return Success(id, "Folder '%s' deleted with %s and %s", truncate(name, 80), Count(len(sub)-1, "subfolder", "subfolders"), Count(int(prompts), "prompt", "prompts")), nil
}
