package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// writeTools are the tools that change the library through the import queue, and the
// in-process processor of a standalone library.
type writeTools struct {
	*core
	w     *queue.Writer
	close func() // stops the processor and waits for it
}

// electionRetry is how often a server whose processor failed (the library unreadable for now)
// tries again. A server that lost the election takes over the moment the elected one exits.
const electionRetry = 5 * time.Second

// newWriteTools prepares the queue writer (orphan cleanup) and starts the in-process processor
// when the library is standalone (one per library, elected by flock).
func newWriteTools(ctx context.Context, c *core) (*writeTools, error) {
	d := &writeTools{core: c, close: func() {}}
	// What mcpctl's processor recorded of a write answers get_operation_status when the queue's
	// files cannot: a standalone library's, or a Prompteka library's that 'queue process --force'
	// applied (the app keeps no such record, and then there is none to read).
	w := queue.NewWriter(d.lib.Queue, d.log).WithRecord(d.db.AppliedResponse)
	d.w = w
	// A queue that cannot be cleaned (missing, unreadable) still lets the read tools work; each
	// write then says what is wrong with it.
	if _, err := w.Cleanup(); err != nil {
		d.log.Warn("queue: unusable; writes will fail until it is fixed", "queue", d.lib.Queue, "err", err)
	}
	if !d.lib.Standalone && runtime.GOOS != "darwin" {
		// Only a forced processor answers a Prompteka library away from macOS: a write says
		// so at once while none runs.
		w.WithForcedProcessor(d.lib.DB)
	}
	if d.lib.Standalone {
		// A write to a library whose own processor cannot run fails at once with the reason,
		// instead of waiting for an answer that cannot come.
		w.WithProcessor(d.proc.Alive)
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			queue.RunElected(ctx, queue.ElectConfig{Dir: d.lib.Queue, DB: d.lib.DB, Log: d.log, Retry: electionRetry, Status: &d.proc})
		}()
		d.close = func() { cancel(); wg.Wait() }
	}
	return d, nil
}

func (d *writeTools) tools() []server.ServerTool {
	w := d.w
	write := func(kind promptlib.OpKind, check func(context.Context, promptlib.Validator) error) func(context.Context, json.RawMessage) (any, error) {
		return func(ctx context.Context, args json.RawMessage) (any, error) {
			return d.submit(ctx, w, kind, args, check)
		}
	}
	const queued = " The change goes through the app's import queue; the answer carries an operationId that " +
		"get_operation_status can be asked about if the outcome is pending."
	return []server.ServerTool{
		d.serverTool(tool{
			name: "create_prompt", title: "Create a prompt",
			description: "Save a new prompt in the library, optionally in a folder (folderId from list_folders) with an " +
				"emoji, a color and a reference url. Returns the new prompt's id." + queued,
			handle: write(promptlib.OpCreatePrompt, d.checkCreatePrompt),
		}),
		d.serverTool(tool{
			name: "update_prompt", title: "Update a prompt", idempotent: true,
			description: "Change a prompt. Only the fields given change; null clears emoji, color or url, and null " +
				"folderId moves the prompt to the top level." + queued,
			handle: write(promptlib.OpUpdatePrompt, d.checkUpdatePrompt),
		}),
		d.serverTool(tool{
			name: "delete_prompt", title: "Delete a prompt", destructive: true, idempotent: true,
			description: "Delete a prompt by id. Deleting a prompt that is already gone succeeds." + queued,
			handle:      write(promptlib.OpDeletePrompt, d.checkDeletePrompt),
		}),
		d.serverTool(tool{
			name: "create_folder", title: "Create a folder",
			description: "Create a folder, at the top level or inside parentId. Names are unique among siblings. " +
				"Returns the new folder's id." + queued,
			handle: write(promptlib.OpCreateFolder, d.checkCreateFolder),
		}),
		d.serverTool(tool{
			name: "update_folder", title: "Update a folder", idempotent: true,
			description: "Rename a folder or move it under another (null parentId moves it to the top level). A folder " +
				"cannot move into itself or its subfolders." + queued,
			handle: write(promptlib.OpUpdateFolder, d.checkUpdateFolder),
		}),
		d.serverTool(tool{
			name: "delete_folder", title: "Delete a folder", destructive: true,
			description: "Delete a folder. A folder holding prompts or subfolders is refused unless recursive is true, " +
				"which deletes everything inside it too; ask the user before passing recursive." + queued,
			handle: write(promptlib.OpDeleteFolder, d.checkDeleteFolder),
		}),
		d.serverTool(tool{
			name: "get_operation_status", title: "Get a write's status", readOnly: true, idempotent: true, timeout: 2 * time.Second,
			description: "Say what became of a write by its operationId: pending (waiting for the app), processing, " +
				"applied (with the app's answer), failed (with the reason) or unknown.",
			handle: func(ctx context.Context, args json.RawMessage) (any, error) {
				var in struct {
					OperationID string `json:"operationId"`
				}
				if err := decodeToolArgs(args, &in); err != nil {
					return nil, err
				}
				st, err := w.Status(ctx, in.OperationID)
				if err != nil {
					return nil, err
				}
				if st.Status == queue.StateUnknown {
					st.Reason = promptlib.Ptr("no trace of this operation in the queue: it was never queued, was withdrawn, " +
						"or its record has been cleaned up")
				}
				return st, nil
			},
		}),
	}
}

// WriteResult is a write tool's structured result.
type WriteResult struct {
	Status      string  `json:"status"`
	ID          *string `json:"id"`
	Message     string  `json:"message"`
	Error       *string `json:"error"`
	OperationID string  `json:"operationId"`
}

// OpID is the operation id, for the call's log line.
func (o WriteResult) OpID() string { return o.OperationID }

// submit validates the input (field rules, then the domain rules against the library) before
// anything touches the disk, then queues it and waits for the answer.
func (d *writeTools) submit(ctx context.Context, w *queue.Writer, kind promptlib.OpKind, args json.RawMessage,
	check func(context.Context, promptlib.Validator) error) (any, error) {
	data, err := promptlib.DecodeData(promptlib.Operation{Operation: kind, Data: args})
	if err != nil {
		return nil, err
	}
	if args, err = d.scopeWrite(ctx, kind, data, args); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(ctx, data); err != nil {
			return nil, err
		}
	}
	// The input itself, not the decoded data: absent and null must reach the app as they came
	// (NewOperation re-encodes it, keeping both).
	res, err := w.Submit(ctx, kind, args)
	if err != nil {
		return nil, err
	}
	return WriteResult{Status: res.Response.Status, ID: res.Response.ID, Message: res.Response.Message, OperationID: res.OperationID}, nil
}

// folderMustExist maps a missing folder to code.
func (d *writeTools) folderMustExist(ctx context.Context, field, id string, code promptlib.Code) error {
	_, err := d.db.Folder(ctx, id)
	if errors.Is(err, dbread.ErrNotFound) {
		return promptlib.Errorf(code, "%s %s does not exist", field, id)
	}
	return err
}

func (d *writeTools) checkCreatePrompt(ctx context.Context, v promptlib.Validator) error {
	in := v.(*promptlib.CreatePromptData)
	if in.FolderID == nil {
		return nil
	}
	return d.folderMustExist(ctx, "folder", *in.FolderID, promptlib.CodeFolderNotFound)
}

func (d *writeTools) checkUpdatePrompt(ctx context.Context, v promptlib.Validator) error {
	in := v.(*promptlib.UpdatePromptData)
	if _, err := d.db.Prompt(ctx, in.ID); errors.Is(err, dbread.ErrNotFound) {
		return promptlib.Errorf(promptlib.CodePromptNotFound, "prompt %s does not exist%s", in.ID, d.folderNotPrompt(ctx, in.ID, "update_folder changes"))
	} else if err != nil {
		return err
	}
	if in.FolderID.Set && !in.FolderID.Null {
		return d.folderMustExist(ctx, "folder", in.FolderID.Value, promptlib.CodeFolderNotFound)
	}
	return nil
}

// checkDeletePrompt refuses a folder's id. A prompt that is not there is deleted already (a
// retried delete must succeed), but a folder's id means the model took one tool for the other,
// and "No prompt to delete" with status success had it tell the user the folder was gone.
func (d *writeTools) checkDeletePrompt(ctx context.Context, v promptlib.Validator) error {
	in := v.(*promptlib.DeletePromptData)
	if _, err := d.db.Prompt(ctx, in.ID); !errors.Is(err, dbread.ErrNotFound) {
		return nil // there is such a prompt, or the processor will find out
	}
	if hint := d.folderNotPrompt(ctx, in.ID, "delete_folder deletes"); hint != "" {
		return promptlib.Errorf(promptlib.CodeInvalidInput, "no prompt has the id %s%s", in.ID, hint)
	}
	return nil
}

// folderNotPrompt is what to add to "no prompt has id" when id is a folder's: which folder, and
// the tool that does to folders what the model meant (use: "delete_folder deletes").
func (d *writeTools) folderNotPrompt(ctx context.Context, id, use string) string {
	f, err := d.db.Folder(ctx, id)
	if err != nil || !d.inScope(&f.ID) { // a project's session learns nothing of other folders
		return ""
	}
	return fmt.Sprintf(": it is the id of the folder '%s'; %s a folder", f.Name, use)
}

// promptNotFolder is folderNotPrompt the other way round.
func (d *writeTools) promptNotFolder(ctx context.Context, id, use string) string {
	p, err := d.db.Prompt(ctx, id)
	if err != nil || !d.inScope(p.FolderID) {
		return ""
	}
	return fmt.Sprintf(": it is the id of the prompt '%s'; %s a prompt", p.Title, use)
}

// folders reads the library's folders, and the number of prompts directly in each (by id), for
// the folder write rules (promptlib.CheckCreateFolder and friends, which Apply runs too).
func (d *writeTools) folders(ctx context.Context) ([]promptlib.Folder, map[string]int, error) {
	all, err := d.db.Folders(ctx)
	if err != nil {
		return nil, nil, err
	}
	folders := make([]promptlib.Folder, len(all))
	counts := make(map[string]int, len(all))
	for i, f := range all {
		folders[i] = f.Folder
		counts[f.ID] = f.PromptCount
	}
	return folders, counts, nil
}

func (d *writeTools) checkCreateFolder(ctx context.Context, v promptlib.Validator) error {
	in := v.(*promptlib.CreateFolderData)
	folders, _, err := d.folders(ctx)
	if err != nil {
		return err
	}
	return promptlib.CheckCreateFolder(folders, in.ParentID, in.Name)
}

func (d *writeTools) checkUpdateFolder(ctx context.Context, v promptlib.Validator) error {
	in := v.(*promptlib.UpdateFolderData)
	folders, _, err := d.folders(ctx)
	if err != nil {
		return err
	}
	return d.promptsID(ctx, promptlib.CheckUpdateFolder(folders, in.ID, in.Name, in.ParentID), in.ID, "update_prompt changes")
}

func (d *writeTools) checkDeleteFolder(ctx context.Context, v promptlib.Validator) error {
	in := v.(*promptlib.DeleteFolderData)
	folders, counts, err := d.folders(ctx)
	if err != nil {
		return err
	}
	return d.promptsID(ctx, promptlib.CheckDeleteFolder(folders, counts, in.ID, in.Recursive), in.ID, "delete_prompt deletes")
}

// promptsID adds to a FOLDER_NOT_FOUND for id, when id is a prompt's, which prompt and the tool
// meant (promptNotFolder).
func (d *writeTools) promptsID(ctx context.Context, err error, id, use string) error {
	var pe *promptlib.Error
	if !errors.As(err, &pe) || pe.Code != promptlib.CodeFolderNotFound {
		return err
	}
	if hint := d.promptNotFolder(ctx, id, use); hint != "" {
		return promptlib.Errorf(pe.Code, "%s%s", pe.Message, hint)
	}
	return err
}
