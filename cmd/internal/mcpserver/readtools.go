package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// maxFolders caps list_folders, as MaxResultBytes does its text: beyond them the model should
// search, not scroll. 400 folders of the sample library were already 135 KB.
const maxFolders = 1000

// readTools are the library's read-only tools, answered straight from the database within the
// session's scope.
type readTools struct{ *core }

func newReadTools(c *core) readTools { return readTools{c} }

func (d readTools) tools() []server.ServerTool {
	return []server.ServerTool{
		d.serverTool(tool{
			name: "list_folders", title: "List folders", readOnly: true, idempotent: true, timeout: 2 * time.Second,
			description: "List the library's folders as a tree (parents first) with their ids, paths and how many prompts " +
				"and subfolders each holds; parentId lists one folder's subfolders (a tree too large for one answer lists its " +
				"top levels, truncated true). Folders holding nothing (one just made, " +
				"say) are listed only with includeEmpty. Use a folder's id as folderId in list_prompts or create_prompt.",
			handle: d.listFolders,
		}),
		d.serverTool(tool{
			name: "list_prompts", title: "List prompts", readOnly: true, idempotent: true, timeout: 3 * time.Second,
			description: "List prompts newest first, a page at a time, each with its summary and size (includeContent " +
				"for bodies; get_prompt reads one). Give folderId for one folder (null for the top level); page with " +
				"limit and offset, continuing at nextOffset; total says how many there are. Offsets count from the newest: " +
				"after moving or deleting a page's prompts, list again from offset 0.",
			handle: d.listPrompts,
		}),
		d.serverTool(tool{
			name: "get_prompt", title: "Get a prompt", readOnly: true, idempotent: true, timeout: time.Second,
			description: "Get one prompt in full by its id. Content over 40 KB comes in pages: page (from 1) picks one, pages says how many.",
			handle:      d.getPrompt,
		}),
		d.serverTool(tool{
			name: "search_prompts", title: "Search prompts", readOnly: true, idempotent: true, timeout: 5 * time.Second,
			description: "Find prompts by words in their title or content: every word must occur (singular or plural, " +
				"British or American spelling), in any order, and " +
				"results come most relevant first, each with its summary and size (includeContent for bodies). " +
				"Plain words only: punctuation, quotes and * are ignored, OR is a word, and -word still requires the word.",
			handle: d.searchPrompts,
		}),
		d.serverTool(tool{
			name: "health_check", title: "Check health", readOnly: true, idempotent: true, timeout: 2 * time.Second,
			description: "Report whether the library and its import queue are usable, which library is served and how " +
				"(prompteka: the app applies writes, on macOS; standalone: mcpctl does), and how many prompts and folders it holds.",
			handle: d.healthCheck,
		}),
	}
}

type FolderResult struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	ParentID    *string `json:"parentId"`
	Path        string  `json:"path"`
	ChildCount  int     `json:"childCount"`
	PromptCount int     `json:"promptCount"`
}

type FoldersResult struct {
	Folders      []FolderResult `json:"folders"`
	Total        int            `json:"total"`
	Truncated    bool           `json:"truncated"`
	EmptyOmitted int            `json:"emptyOmitted"`
}

// folderFixedTokens bounds the tokens of a listed folder's keys, ids, counts and times.
var folderFixedTokens = promptlib.Tokens(`{"id":"23A25293-78D2-4A98-9A86-D48BF33BC3A1","name":"","parentId":"2458D189-E8B0-40B6-94B6-FA41FB871E7B",` +
	`"path":"","childCount":1000000,"promptCount":1000000},`)

// listFolders lists the folders in tree order. Over the bound it keeps the shallowest: the top
// levels whole, with the child counts that say what is below, never the first subtrees whole and
// the later top-level folders not at all. parentId lists what is below one folder.
func (d readTools) listFolders(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		ParentID     *string `json:"parentId"`
		IncludeEmpty bool    `json:"includeEmpty"`
	}
	if err := decodeToolArgs(args, &in); err != nil {
		return nil, err
	}
	all, err := d.db.Folders(ctx)
	if err != nil {
		return nil, err
	}
	root := "" // the folder asked for, as the library spells its id
	if in.ParentID != nil {
		i := slices.IndexFunc(all, func(f dbread.FolderInfo) bool { return strings.EqualFold(f.ID, *in.ParentID) })
		if i < 0 || !d.inScope(&all[i].ID) {
			return nil, promptlib.Errorf(promptlib.CodeFolderNotFound, "no folder has id %s", *in.ParentID)
		}
		root = all[i].ID
	}
	// all is in tree order, parents first: a folder's depth is its parent's and one, and it is
	// below root when its parent is root or below it.
	depth := make(map[string]int, len(all))
	below := map[string]bool{root: true}
	var listed []dbread.FolderInfo
	emptyOmitted := 0
	for _, f := range all {
		depth[f.ID] = 1
		if f.ParentID != nil {
			depth[f.ID] = depth[*f.ParentID] + 1
		}
		if root != "" {
			if f.ParentID == nil || !below[*f.ParentID] {
				continue
			}
			below[f.ID] = true
		}
		if !d.inScope(&f.ID) {
			continue
		}
		if !in.IncludeEmpty && f.PromptCount == 0 && f.ChildCount == 0 {
			emptyOmitted++
			continue
		}
		listed = append(listed, f)
	}
	// Which fit: the shallowest first, in tree order within a depth.
	order := make([]int, len(listed))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return depth[listed[a].ID] - depth[listed[b].ID] })
	keep := make([]bool, len(listed))
	size, tokens, kept := 100, 40, 0 // the envelope: total, truncated, emptyOmitted
	for _, i := range order {
		// Bounds on the folder's JSON: ids, counts and keys take under 200 bytes, and under
		// folderFixedTokens with its id and its parent's.
		f := listed[i]
		n := 200 + jsonTextLen(f.Name) + jsonTextLen(f.Path)
		tk := folderFixedTokens + promptlib.Tokens(f.Name) + promptlib.Tokens(f.Path)
		if kept == maxFolders || size+n > MaxResultBytes || tokens+tk > MaxResultTokens {
			break
		}
		size, tokens = size+n, tokens+tk
		keep[i] = true
		kept++
	}
	out := FoldersResult{Folders: make([]FolderResult, 0, kept), Total: len(listed), Truncated: kept < len(listed), EmptyOmitted: emptyOmitted}
	for i, f := range listed {
		if keep[i] {
			out.Folders = append(out.Folders, FolderResult{ID: f.ID, Name: f.Name, ParentID: f.ParentID, Path: f.Path,
				ChildCount: f.ChildCount, PromptCount: f.PromptCount})
		}
	}
	return out, nil
}

// page is the paging part of list and search inputs, with the schema's defaults.
type page struct {
	Limit          *int `json:"limit"`
	Offset         int  `json:"offset"`
	IncludeContent bool `json:"includeContent"`
}

// limit is the page size asked for, or def.
func (p page) limit(def int) int {
	if p.Limit == nil {
		return def
	}
	return *p.Limit
}

func (d readTools) listPrompts(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		page
		FolderID json.RawMessage `json:"folderId"` // absent: all prompts; null: top level
	}
	if err := decodeToolArgs(args, &in); err != nil {
		return nil, err
	}
	opts := dbread.ListOptions{Limit: in.limit(listPageSize), Offset: in.Offset, InFolders: d.scope(), Brief: !in.IncludeContent}
	switch {
	case in.FolderID == nil:
	case string(in.FolderID) == "null":
		opts.Root = true
	default:
		if err := json.Unmarshal(in.FolderID, &opts.FolderID); err != nil {
			return nil, badArgs(err)
		}
		if f, err := d.db.Folder(ctx, opts.FolderID); errors.Is(err, dbread.ErrNotFound) || err == nil && !d.inScope(&f.ID) {
			return nil, promptlib.Errorf(promptlib.CodeFolderNotFound, "no folder has id %s", opts.FolderID)
		} else if err != nil {
			return nil, err
		}
	}
	prompts, total, err := d.db.ListPrompts(ctx, opts)
	if err != nil {
		return nil, err
	}
	return pageOf(prompts, total, opts.Offset, opts.Limit, in.IncludeContent), nil
}

func (d readTools) getPrompt(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		ID   string `json:"id"`
		Page *int   `json:"page"`
	}
	if err := decodeToolArgs(args, &in); err != nil {
		return nil, err
	}
	p, err := d.db.Prompt(ctx, in.ID)
	if errors.Is(err, dbread.ErrNotFound) || err == nil && !d.inScope(p.FolderID) {
		return nil, promptlib.Errorf(promptlib.CodePromptNotFound, "no prompt has id %s", in.ID)
	}
	if err != nil {
		return nil, err
	}
	var link, reason string
	p.Content, link, reason = d.up.delivered(ctx, d.log, p)
	pages := bodyPages(p.Content)
	page := 1
	if in.Page != nil {
		page = *in.Page
	}
	if page > len(pages) {
		if len(pages) == 1 {
			return nil, promptlib.Errorf(promptlib.CodeInvalidInput, "page %d of a prompt that is one page; omit page to read it whole", page)
		}
		return nil, promptlib.Errorf(promptlib.CodeInvalidInput, "page %d of a prompt that has %d pages; pages start at 1", page, len(pages))
	}
	res := PromptResult{Prompt: p, ContentBytes: len(p.Content), Page: page, Pages: len(pages), LinkStatus: link}
	if reason != "" {
		res.LinkError = &reason
	}
	res.Content = pages[page-1]
	return res, nil
}

func (d readTools) searchPrompts(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		page
		Query string `json:"query"`
	}
	if err := decodeToolArgs(args, &in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, promptlib.Errorf(promptlib.CodeSearchInvalid, "query is blank")
	}
	prompts, total, err := d.db.SearchIn(ctx, in.Query, dbread.SearchOptions{InFolders: d.scope(), Limit: in.limit(searchPageSize),
		Offset: in.Offset, Brief: !in.IncludeContent})
	if err != nil {
		return nil, err
	}
	return pageOf(prompts, total, in.Offset, in.limit(searchPageSize), in.IncludeContent), nil
}

type HealthResult struct {
	Status        string  `json:"status"`
	Version       string  `json:"version"`
	Mode          string  `json:"mode"`
	Library       string  `json:"library"`
	UptimeSeconds float64 `json:"uptimeSeconds"`
	Database      struct {
		Path             string  `json:"path"`
		Reachable        bool    `json:"reachable"`
		SchemaCompatible bool    `json:"schemaCompatible"`
		Error            *string `json:"error"`
	} `json:"database"`
	Queue struct {
		Path      string  `json:"path"`
		State     string  `json:"state"`
		Pending   int     `json:"pending"`
		Error     *string `json:"error"`
		Processor struct {
			State string  `json:"state"`
			Error *string `json:"error"`
		} `json:"processor"`
	} `json:"queue"`
	Search struct {
		Index string  `json:"index"`
		Error *string `json:"error,omitempty"`
	} `json:"search"`
	Counts struct {
		Prompts int `json:"prompts"`
		Folders int `json:"folders"`
	} `json:"counts"`
	Upstreams []upstream.Status `json:"upstreams,omitempty"`
	Untrusted string            `json:"untrusted,omitempty"`
	LLM       string            `json:"llm,omitempty"`
	Project   string            `json:"project,omitempty"`
}

// healthHeader is what every health_check answer starts with: the server, the library's paths
// and how long it has served.
func (c *core) healthHeader() HealthResult {
	var h HealthResult
	h.Version, h.Mode, h.Library = c.cfg.Version, c.mode(), c.lib.Dir
	h.UptimeSeconds = time.Since(c.started).Round(time.Second).Seconds() // whole seconds: nanoseconds are noise to a model
	h.Database.Path, h.Queue.Path = c.lib.DB, c.lib.Queue
	return h
}

// healthCheck never fails: what is wrong is the answer.
func (d readTools) healthCheck(ctx context.Context, _ json.RawMessage) (any, error) {
	if d.cfg.LibraryProblem != "" {
		return unservedLibrary(d.core, d.cfg.LibraryProblem).health(), nil
	}
	h := d.healthHeader()
	err := d.db.Check(ctx)
	var prompts, folders int
	if err == nil {
		prompts, folders, err = d.db.Counts(ctx)
	}
	switch {
	case err == nil:
		h.Database.Reachable, h.Database.SchemaCompatible = true, true
		h.Counts.Prompts, h.Counts.Folders = prompts, folders
	case errors.Is(err, dbread.ErrSchema):
		h.Database.Reachable = true
		h.Database.Error = promptlib.Ptr(err.Error())
	case errors.Is(err, dbread.ErrDamaged):
		h.Database.Reachable, h.Database.SchemaCompatible = true, true
		h.Database.Error = promptlib.Ptr(err.Error())
	default:
		h.Database.Error = promptlib.Ptr(err.Error())
	}
	var qerr error
	h.Queue.State, h.Queue.Pending, qerr = queue.CheckDir(d.lib.Queue)
	if qerr != nil {
		h.Queue.Error = promptlib.Ptr(classify(qerr).Message)
	} else if ferr := queue.FullError(h.Queue.Pending, queue.MaxPending); ferr != nil {
		// The directory is fine, but every write is refused with QUEUE_FULL.
		h.Queue.Error = promptlib.Ptr(ferr.Message)
	} else if serr := queue.SpaceProblem(d.lib.Queue); serr != nil {
		h.Queue.Error = promptlib.Ptr(serr.Error())
	}
	h.Queue.Processor.State, h.Queue.Processor.Error = appProcessor(runtime.GOOS, d.lib)
	if d.lib.Standalone {
		state, perr := d.proc.State()
		h.Queue.Processor.State = state
		if perr == nil {
			perr = d.proc.Alive() // waiting on another process that is stopped (Ctrl-Z)
		}
		if perr == nil {
			// Running, but its last write failed (a full disk, a read-only library file):
			// every write fails the same way until one gets through.
			perr = d.proc.WriteError()
		}
		if perr != nil {
			h.Queue.Processor.Error = promptlib.Ptr(perr.Error())
		}
	}
	state, serr := d.db.SearchIndex()
	h.Search.Index = state
	if serr != nil {
		h.Search.Error = promptlib.Ptr(serr.Error())
	}
	h.Upstreams, h.Untrusted, h.LLM, h.Project = d.up.states(), d.cfg.Untrusted, d.cfg.LLMProblem, d.cfg.ProjectProblem
	upstreamDown := false
	for _, u := range h.Upstreams {
		upstreamDown = upstreamDown || u.State == upstream.Failed
	}
	switch {
	case !h.Database.Reachable || !h.Database.SchemaCompatible || h.Database.Error != nil:
		h.Status = "unhealthy"
	case h.Queue.State != queue.DirWritable || h.Queue.Error != nil || h.Queue.Processor.State == queue.ProcFailed ||
		h.Queue.Processor.Error != nil || h.Search.Index == "unavailable" ||
		upstreamDown || h.Untrusted != "" || h.LLM != "" || h.Project != "":
		h.Status = "degraded"
	default:
		h.Status = "healthy"
	}
	return h, nil
}

// appProcessor is who applies the writes of a Prompteka library (one not standalone): the app,
// which runs only on macOS. Elsewhere only 'mcpctl queue process --force' does, and without it
// every write is refused (PROCESSOR_STOPPED, queue.Writer.WithForcedProcessor): health_check
// says so before a write does.
func appProcessor(goos string, lib Library) (state string, problem *string) {
	if lib.Standalone {
		return "app", nil // the caller asks its own processor
	}
	switch a := queue.WhoAnswers(false, queue.LibraryArgs(lib.DB, lib.Queue), lib.Queue, goos); {
	case a.App:
		return "app", nil
	case a.Err != nil:
		return "app", promptlib.Ptr("cannot tell whether a processor answers this library's queue: " + a.Err.Error())
	case a.Running:
		// Another process holds the processor lock: it applies the writes, unless it is stopped.
		if err := queue.HolderStopped(lib.Queue); err != nil {
			return queue.ProcWaiting, promptlib.Ptr("writes are refused until it runs again: " + err.Error())
		}
		return queue.ProcWaiting, nil
	}
	return "none", promptlib.Ptr(fmt.Sprintf("nothing applies this library's writes here: the Prompteka app runs only on macOS, "+
		"and no 'mcpctl queue process --force' runs for the library, so every write is refused (PROCESSOR_STOPPED) and nothing is saved. "+
		"Ask the user to run %s in a terminal, or to serve a standalone library", promptlib.Quoted("mcpctl queue process --force "+queue.LibraryArgs(lib.DB, lib.Queue))))
}

// scope lists the folders the session reads, nil for the whole library.
func (c *core) scope() []string { return c.view.current().scope.ids() }

// inScope reports whether a folder (nil: the top level) is readable by the session.
func (c *core) inScope(folderID *string) bool { return c.view.current().scope.reads(folderID) }
