package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// A project's session reads only its folder's subtree, so it writes only there too: what it
// could not read back must not be created, changed or deleted through it. A prompt created
// without a folder goes to the project's folder, where the session will find it.

// scopeWrite checks a write against the project's scope and returns the arguments to queue
// (create_prompt without a folder gets the project's folder). Without a project it changes
// nothing.
func (d *writeTools) scopeWrite(ctx context.Context, kind promptlib.OpKind, data promptlib.Validator, args json.RawMessage) (json.RawMessage, error) {
	sc := d.view.current().scope
	if sc.Folders() == nil {
		return args, nil
	}
	root := sc.Root()
	switch in := data.(type) {
	case *promptlib.CreatePromptData:
		if in.FolderID == nil {
			return withField(args, "folderId", root)
		}
		return args, d.folderInScope(ctx, "folderId", *in.FolderID)
	case *promptlib.UpdatePromptData:
		if err := d.promptInScope(ctx, in.ID); err != nil {
			return nil, err
		}
		if in.FolderID.Set {
			if in.FolderID.Null {
				return nil, outsideProject("folderId null would move the prompt to the top level")
			}
			return args, d.folderInScope(ctx, "folderId", in.FolderID.Value)
		}
	case *promptlib.DeletePromptData:
		return args, d.promptInScope(ctx, in.ID)
	case *promptlib.CreateFolderData:
		if in.ParentID == nil {
			return withField(args, "parentId", root)
		}
		return args, d.folderInScope(ctx, "parentId", *in.ParentID)
	case *promptlib.UpdateFolderData:
		if promptlib.Key(in.ID) == promptlib.Key(root) && (in.Name.Set || in.ParentID.Set) {
			return nil, promptlib.Errorf(promptlib.CodeInvalidInput, "the project's own folder cannot be renamed or moved from its session; "+
				"change it in the app and update the project file's folder")
		}
		if err := d.folderInScope(ctx, "id", in.ID); err != nil {
			return nil, err
		}
		if in.ParentID.Set {
			if in.ParentID.Null {
				return nil, outsideProject("parentId null would move the folder to the top level")
			}
			return args, d.folderInScope(ctx, "parentId", in.ParentID.Value)
		}
	case *promptlib.DeleteFolderData:
		if promptlib.Key(in.ID) == promptlib.Key(root) {
			return nil, outsideProject("the project's own folder cannot be deleted from its session")
		}
		return args, d.folderInScope(ctx, "id", in.ID)
	}
	return args, nil
}

func (d *writeTools) promptInScope(ctx context.Context, id string) error {
	p, err := d.db.Prompt(ctx, id)
	switch {
	case errors.Is(err, dbread.ErrNotFound):
		return nil // the write's own checks say what is missing
	case err != nil:
		return err
	case !d.inScope(p.FolderID):
		return promptlib.Errorf(promptlib.CodePromptNotFound, "no prompt has id %s in this project", id)
	}
	return nil
}

func (d *writeTools) folderInScope(ctx context.Context, field, id string) error {
	f, err := d.db.Folder(ctx, id)
	switch {
	case errors.Is(err, dbread.ErrNotFound):
		return nil
	case err != nil:
		return err
	case !d.inScope(&f.ID):
		return promptlib.Errorf(promptlib.CodeFolderNotFound, "%s %s is not a folder of this project", field, id)
	}
	return nil
}

func outsideProject(what string) error {
	return promptlib.Errorf(promptlib.CodeInvalidInput, "%s, outside this project's folder; give a folder of the project (list_folders)", what)
}

// withField sets one top-level field of a JSON object, leaving the rest exactly as given.
func withField(args json.RawMessage, field, value string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, badArgs(err)
	}
	v, _ := json.Marshal(value)
	m[field] = v
	return json.Marshal(m)
}
