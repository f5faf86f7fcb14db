package mcpserver

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// A cold start at 100k prompts reads every body before the first prompts/list could be whole
// (seconds). The view keeps what that list needs — names, titles, summaries, arguments — in a
// file beside the search index, so a restart serves the last known library at once; the first
// read of the library then replaces it, and list_changed tells the client if anything differed.

// persistVersion changes whenever persistedView does, so an old file is ignored, not misread.
const persistVersion = 1

type persistedView struct {
	Version int
	DB      string // the library it was made from
	Folders []dbread.FolderInfo
	Prompts []persistedPrompt
}

type persistedPrompt struct {
	ID, Name, Title, FolderID, Summary string
	Bytes                              int
	Args                               []promptlib.Placeholder // names, required flags, defaults
	ArgDescs                           []string                // as prompts/list describes them
}

// viewFile is where the view of the library at db is kept, under the cache directory.
func viewFile(cacheDir, db string) string {
	sum := sha256.Sum256([]byte(db))
	return filepath.Join(cacheDir, "view", hex.EncodeToString(sum[:12])+".gob")
}

// saveView writes the snapshot atomically (temp file, sync, rename) into a directory only this
// user may write, never through a link.
func saveView(path, db string, snap *snapshot) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("mcpserver: %s is not a private directory; the view is not kept", dir)
	}
	pv := persistedView{Version: persistVersion, DB: db, Folders: snap.all, Prompts: make([]persistedPrompt, len(snap.prompts))}
	for i, p := range snap.prompts {
		pp := persistedPrompt{ID: p.id, Name: p.name, Title: p.title, FolderID: p.folderID, Summary: p.summary, Bytes: p.bytes, Args: p.args}
		for _, a := range p.prompt.Arguments {
			pp.ArgDescs = append(pp.ArgDescs, a.Description)
		}
		pv.Prompts[i] = pp
	}
	tmp, err := os.CreateTemp(dir, ".view-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := gob.NewEncoder(w).Encode(pv); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// loadView reads a kept view of the library at db; a missing, foreign or outdated file is
// (nil, nil).
func loadView(path, db string) (*persistedView, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("mcpserver: %s is not a regular file", path)
	}
	var pv persistedView
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&pv); err != nil {
		return nil, nil // torn or from another version: the first read rebuilds it
	}
	if pv.Version != persistVersion || pv.DB != db {
		return nil, nil
	}
	return &pv, nil
}

// restore is the snapshot a kept view describes, without the gate's documents (a project's
// session reads the library before it serves).
func (pv *persistedView) restore() *snapshot {
	snap := &snapshot{
		prompts: make([]*servedPrompt, 0, len(pv.Prompts)),
		byName:  make(map[string]*servedPrompt, len(pv.Prompts)),
		byID:    make(map[string]*servedPrompt, len(pv.Prompts)),
		all:     pv.Folders,
		scope:   wholeLibrary(),
		loaded:  true,
	}
	for _, pp := range pv.Prompts {
		sp := &servedPrompt{id: pp.ID, name: pp.Name, title: pp.Title, lowerTitle: strings.ToLower(pp.Title), folderID: pp.FolderID,
			summary: pp.Summary, bytes: pp.Bytes, args: pp.Args,
			prompt: mcp.Prompt{Name: pp.Name, Title: pp.Title, Description: pp.Summary}}
		for i, a := range pp.Args {
			arg := mcp.PromptArgument{Name: a.Name, Required: a.Required}
			if i < len(pp.ArgDescs) {
				arg.Description = pp.ArgDescs[i]
			}
			sp.prompt.Arguments = append(sp.prompt.Arguments, arg)
		}
		snap.prompts = append(snap.prompts, sp)
		snap.byName[sp.name] = sp
		snap.byID[promptlib.Key(sp.id)] = sp
	}
	for _, f := range pv.Folders {
		if snap.scope.sees(&f.ID) {
			snap.folders = append(snap.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path)})
		}
	}
	return snap
}
