package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// The library's resources. Prompts and folders are read by id; the listing names them by their
// MCP prompt name or folder path so a person can pick one.
const (
	ownScheme         = "prompteka:" // every URI in it is mcpctl's; no project server's is served
	libraryURI        = "prompteka://library"
	promptURIPrefix   = "prompteka://prompt/"
	folderURIPrefix   = "prompteka://folder/"
	promptURITemplate = promptURIPrefix + "{id}"
	folderURITemplate = folderURIPrefix + "{id}"

	markdownMIME = "text/markdown"
	jsonMIME     = "application/json"
)

// Resource names must be unique: mcp-go pages resources/list by name (the cursor is the last
// name sent), so two resources with one name would make a page skip one. Prompt names are
// unique slugs ([a-z0-9-]); folder and library names hold a ':' no slug has.
// It is built when listing rather than kept, as above maxListedPrompts it is not needed.
func (p servedPrompt) resource() mcp.Resource {
	return mcp.Resource{URI: promptURIPrefix + p.id, Name: p.name, Title: p.title, Description: p.summary, MIMEType: markdownMIME}
}

func folderResourceName(f dbread.FolderInfo) string { return "folder:" + f.Path + " #" + f.ID }

func folderResource(f dbread.FolderInfo) mcp.Resource {
	return mcp.Resource{
		URI: folderURIPrefix + f.ID, Name: folderResourceName(f), Title: f.Path,
		Description: fmt.Sprintf("Folder %q: %s, %s.", f.Path, promptlib.Count(f.PromptCount, "prompt", "prompts"), promptlib.Count(f.ChildCount, "subfolder", "subfolders")),
		MIMEType:    jsonMIME,
	}
}

var libraryResource = mcp.Resource{
	URI: libraryURI, Name: "library:prompteka", Title: "Prompt library",
	Description: "The folder tree with how many prompts and subfolders each folder holds.",
	MIMEType:    jsonMIME,
}

func (s *promptSurface) resourceTemplates() []server.ServerResourceTemplate {
	prompt := mcp.NewResourceTemplate(promptURITemplate, "prompt",
		mcp.WithTemplateDescription("A library prompt as markdown: its title as a heading, then its body. The id is a "+
			"prompt id from search_prompts, list_prompts or resources/list; completion suggests ids by title."),
		mcp.WithTemplateMIMEType(markdownMIME))
	prompt.Title = "Prompt by id"
	folder := mcp.NewResourceTemplate(folderURITemplate, "folder",
		mcp.WithTemplateDescription("A library folder as JSON: its subfolders and its prompts' titles and ids. The id is "+
			"a folder id from list_folders or resources/list; completion suggests ids by path."),
		mcp.WithTemplateMIMEType(jsonMIME))
	folder.Title = "Folder by id"
	return []server.ServerResourceTemplate{
		{Template: prompt, Handler: s.readPrompt},
		{Template: folder, Handler: s.readFolder},
	}
}

// maxListedPrompts caps how many prompts resources/list names. Above it, resources/list holds
// the library and its folders, and prompts are read through the prompteka://prompt/{id}
// template, found by completion, search_prompts or the folder resources: a list of 100k
// resources helps no person.
const maxListedPrompts = 10_000

// resourceList is what resources/list shows of a snapshot, in name order (the order pages are
// cut in): the library, every served folder and, up to maxListedPrompts, every served prompt.
// Names are unique: prompt names are slugs ([a-z0-9-]); folder and library names hold a ':' no
// slug has. An entry's resource is made when a page shows it: made ahead, the 4000 folders of a
// big library held 3 MB.
type resourceList struct {
	snap    *snapshot
	entries []resourceEntry
}

type resourceEntry struct {
	name string
	kind byte  // 'l' the library, 'f' a folder, 'p' a prompt
	i    int32 // the folder's index in snap.folders, the prompt's in snap.prompts
}

func newResourceList(snap *snapshot) *resourceList {
	listed := snap.prompts.len()
	if listed > maxListedPrompts {
		listed = 0
	}
	l := &resourceList{snap: snap, entries: make([]resourceEntry, 0, 1+len(snap.folders)+listed)}
	l.entries = append(l.entries, resourceEntry{name: libraryResource.Name, kind: 'l'})
	for i, f := range snap.folders {
		l.entries = append(l.entries, resourceEntry{name: folderResourceName(f.info), kind: 'f', i: int32(i)})
	}
	for i := range listed {
		l.entries = append(l.entries, resourceEntry{name: snap.prompts.nameAt(i), kind: 'p', i: int32(i)})
	}
	slices.SortFunc(l.entries, func(a, b resourceEntry) int { return strings.Compare(a.name, b.name) })
	return l
}

func (l *resourceList) len() int { return len(l.entries) }

// at is the k-th resource in name order.
func (l *resourceList) at(k int) mcp.Resource {
	switch e := l.entries[k]; e.kind {
	case 'f':
		return folderResource(l.snap.folders[e.i].info)
	case 'p':
		return l.snap.prompts.listed(int(e.i)).resource()
	default:
		return libraryResource
	}
}

// after is the index of the first resource that sorts after the one named name at uri.
func (l *resourceList) after(name, uri string) int {
	return sort.Search(len(l.entries), func(k int) bool { return l.compare(k, name, uri) > 0 })
}

// compare orders the k-th resource against the one named name at uri, as compareResource does.
// The library's names are unique, so its URI is looked up only for a name that ties.
func (l *resourceList) compare(k int, name, uri string) int {
	if c := strings.Compare(l.entries[k].name, name); c != 0 {
		return c
	}
	return strings.Compare(l.at(k).URI, uri)
}

// compareResource is the order of resources/list: by name, then by URI.
func compareResource(name1, uri1, name2, uri2 string) int {
	if c := strings.Compare(name1, name2); c != 0 {
		return c
	}
	return strings.Compare(uri1, uri2)
}

// resourceCursorOf is the cursor of a resources/list page that ends with the resource named
// name at uri; resourceCursorAfter reads it back ("" for the first page or a cursor it did
// not make). A URI holds no NUL, so the last one separates the two.
func resourceCursorOf(name, uri string) mcp.Cursor { return cursorOf(name + "\x00" + uri) }

func resourceCursorAfter(c mcp.Cursor) (name, uri string) {
	s := cursorAfter(c)
	if i := strings.LastIndexByte(s, 0); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func sameResources(a, b *resourceList) bool {
	if a.len() != b.len() {
		return false
	}
	for k := range a.entries {
		if a.entries[k].name != b.entries[k].name || !sameResource(a.at(k), b.at(k)) {
			return false
		}
	}
	return true
}

func sameResource(a, b mcp.Resource) bool {
	return a.URI == b.URI && a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && a.MIMEType == b.MIMEType
}

func (s *promptSurface) readPrompt(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	p, err := s.db.Prompt(ctx, strings.TrimPrefix(uri, promptURIPrefix))
	if err != nil {
		return nil, readError(uri, err)
	}
	body, _, _ := s.up.delivered(ctx, s.log, p)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: markdownMIME, Text: "# " + p.Title + "\n\n" + body}}, nil
}

// folderDoc is the JSON of prompteka://folder/{id}.
type folderDoc struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Path        string       `json:"path"`
	ParentID    *string      `json:"parentId"`
	PromptCount int          `json:"promptCount"`
	Subfolders  []folderNode `json:"subfolders"`
	Prompts     []promptRef  `json:"prompts"`
}

type promptRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Name  string `json:"name,omitempty"` // the MCP prompt name, when the prompt is served as one
	URI   string `json:"uri"`
}

// folderNode is a folder in the library tree: prompteka://library nests them.
type folderNode struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Path        string       `json:"path"`
	URI         string       `json:"uri"`
	PromptCount int          `json:"promptCount"`
	ChildCount  int          `json:"childCount"`
	Subfolders  []folderNode `json:"subfolders,omitempty"`
}

func (s *promptSurface) readFolder(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	f, err := s.db.Folder(ctx, strings.TrimPrefix(uri, folderURIPrefix))
	if err != nil {
		return nil, readError(uri, err)
	}
	folders, err := s.db.Folders(ctx)
	if err != nil {
		return nil, readError(uri, err)
	}
	doc := folderDoc{ID: f.ID, Name: f.Name, ParentID: f.ParentID, Subfolders: []folderNode{}, Prompts: []promptRef{}}
	for _, fi := range folders {
		switch {
		case strings.EqualFold(fi.ID, f.ID):
			doc.Path, doc.PromptCount = fi.Path, fi.PromptCount
		case fi.ParentID != nil && strings.EqualFold(*fi.ParentID, f.ID):
			doc.Subfolders = append(doc.Subfolders, nodeOf(fi))
		}
	}
	// The snapshot has every served prompt's folder; a prompt added a moment ago appears
	// with the next snapshot, as it does in prompts/list.
	snap := s.snap()
	for i := range snap.prompts.len() {
		if p := snap.prompts.at(i); strings.EqualFold(p.folderID, f.ID) {
			doc.Prompts = append(doc.Prompts, promptRef{ID: p.id, Title: p.title, Name: p.name, URI: promptURIPrefix + p.id})
		}
	}
	return jsonContents(uri, doc)
}

// libraryDoc is the JSON of prompteka://library.
type libraryDoc struct {
	Prompts         int          `json:"prompts"`
	Folders         int          `json:"folders"`
	TopLevelPrompts int          `json:"topLevelPrompts"`
	Tree            []folderNode `json:"tree"`
}

func (s *promptSurface) readLibrary(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	all, err := s.db.Folders(ctx)
	if err != nil {
		return nil, readError(libraryURI, err)
	}
	snap := s.snap()
	var folders []dbread.FolderInfo
	for _, f := range all {
		if snap.scope.sees(&f.ID) {
			folders = append(folders, f)
		}
	}
	doc := libraryDoc{Prompts: snap.prompts.len(), Folders: len(folders), Tree: []folderNode{}}
	for i := range snap.prompts.len() {
		if snap.prompts.recs[i].folder == 0 {
			doc.TopLevelPrompts++
		}
	}
	// Folders come parents first, so each child is attached under an already placed parent.
	children := make(map[string][]dbread.FolderInfo)
	var roots []dbread.FolderInfo
	known := make(map[string]bool, len(folders))
	for _, f := range folders {
		known[promptlib.Key(f.ID)] = true
	}
	for _, f := range folders {
		if f.ParentID != nil && known[promptlib.Key(*f.ParentID)] {
			children[promptlib.Key(*f.ParentID)] = append(children[promptlib.Key(*f.ParentID)], f)
		} else {
			roots = append(roots, f)
		}
	}
	var grow func(f dbread.FolderInfo, depth int) folderNode
	grow = func(f dbread.FolderInfo, depth int) folderNode {
		n := nodeOf(f)
		if depth < len(folders) { // a parent cycle in a damaged library must not recurse forever
			for _, c := range children[promptlib.Key(f.ID)] {
				n.Subfolders = append(n.Subfolders, grow(c, depth+1))
			}
		}
		return n
	}
	for _, r := range roots {
		doc.Tree = append(doc.Tree, grow(r, 0))
	}
	return jsonContents(libraryURI, doc)
}

// inProject reports whether a folder (nil: the top level) belongs to the served project; every
// folder does when no project is served. The mcpctl-system folder is not listed, but reading it
// by id stays possible: it is the user's library.
func (s *promptSurface) inProject(folderID *string) bool {
	return s.snap().scope.reads(folderID)
}

func nodeOf(f dbread.FolderInfo) folderNode {
	return folderNode{ID: f.ID, Name: f.Name, Path: f.Path, URI: folderURIPrefix + f.ID, PromptCount: f.PromptCount, ChildCount: f.ChildCount}
}

// jsonContents is doc as a JSON resource, written as tool results are (marshalText): a folder
// named "R&D <team>" read "R\u0026D \u003cteam\u003e", which the model takes literally.
func jsonContents(uri string, doc any) ([]mcp.ResourceContents, error) {
	text, err := marshalText(&bytes.Buffer{}, doc)
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: jsonMIME, Text: string(text)}}, nil
}

func readError(uri string, err error) error {
	if errors.Is(err, dbread.ErrNotFound) {
		return fmt.Errorf("%s: %w; it was deleted a moment ago, call resources/list again", uri, errNotServed)
	}
	if errors.Is(err, dbread.ErrDamaged) {
		return fmt.Errorf("read %s: the library file is damaged: %w. %s", uri, err, damagedAdvice)
	}
	return fmt.Errorf("read %s: %w; try again in a moment", uri, err)
}

// checkReadResource runs before mcp-go routes a resources/read: a prompteka URI whose prompt or
// folder does not exist, or lies outside the project, gets resource-not-found with what to do
// instead (quirks.go, 1).
func (s *promptSurface) checkReadResource(ctx context.Context, _ any, req *mcp.ReadResourceRequest) {
	if req == nil {
		return
	}
	uri := req.Params.URI
	var hint string
	switch {
	case uri == libraryURI:
		return
	case strings.HasPrefix(uri, promptURIPrefix):
		p, err := s.db.Prompt(ctx, strings.TrimPrefix(uri, promptURIPrefix))
		switch {
		case errors.Is(err, dbread.ErrNotFound):
			hint = "no prompt has this id. Call search_prompts or resources/list for current prompt ids"
		case err == nil && !s.inProject(p.FolderID):
			hint = "this prompt is outside the project mcpctl serves. Call search_prompts for the project's prompts"
		default:
			return // found, or an error the handler reports
		}
	case strings.HasPrefix(uri, folderURIPrefix):
		f, err := s.db.Folder(ctx, strings.TrimPrefix(uri, folderURIPrefix))
		switch {
		case errors.Is(err, dbread.ErrNotFound):
			hint = "no folder has this id. Call list_folders or read " + libraryURI + " for current folder ids"
		case err == nil && !s.inProject(&f.ID):
			hint = "this folder is outside the project mcpctl serves. Read " + libraryURI + " for the project's folders"
		default:
			return
		}
	case strings.HasPrefix(uri, ownScheme):
		hint = "mcpctl serves " + libraryURI + ", " + promptURITemplate + " and " + folderURITemplate
	default:
		return
	}
	req.Params.URI = carry("unknown resource '" + uri + "': " + hint + ".")
}
