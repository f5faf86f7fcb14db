package promptlib_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

const (
	idU = "0000000C-0000-4000-8000-000000000007"
	idS = "0000000A-0000-4000-8000-000000000008"
)

// ruleLibrary is newTree's library plus top-level folders "Über" and "A".
func ruleLibrary() promptlib.Library {
	at := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	f := func(id, name string, parent *string, pos int) promptlib.Folder {
		return promptlib.Folder{ID: id, Name: name, ParentID: parent, Position: pos, CreatedAt: at, UpdatedAt: at}
	}
	return promptlib.Library{
		Folders: []promptlib.Folder{
			f(idA, "Work", nil, 0), f(idB, "Sub", promptlib.Ptr(idA), 0), f(idC, "Deep", promptlib.Ptr(idB), 0), f(idD, "Home", nil, 1),
			f(idU, "Über", nil, 2), f(idS, "A", nil, 3),
		},
		Prompts: []promptlib.Prompt{
			{ID: idP1, Title: "One", Content: "body one", FolderID: promptlib.Ptr(strings.ToLower(idB)), CreatedAt: at, UpdatedAt: at},
			{ID: idP2, Title: "Two", Content: "body two", CreatedAt: at, UpdatedAt: at},
		},
	}
}

const missing = "11111111-1111-4111-8111-111111111111"

// folderRuleCases is run both through the pure rules (what the MCP pre-check calls) and through
// Apply on a real library: the two paths must give the same answer on the same input.
var folderRuleCases = []struct {
	name string
	kind promptlib.OpKind
	data string
	code string // "" for success
}{
	{"create: a Unicode name differing only in case is taken", promptlib.OpCreateFolder, `{"name":"über"}`, "FOLDER_EXISTS"},
	{"create: upper case Unicode name is taken", promptlib.OpCreateFolder, `{"name":"ÜBER"}`, "FOLDER_EXISTS"},
	{"create: ASCII name differing only in case is taken", promptlib.OpCreateFolder, `{"name":"work"}`, "FOLDER_EXISTS"},
	{"create: a trailing space is refused", promptlib.OpCreateFolder, `{"name":"A "}`, "INVALID_INPUT"},
	{"create: a leading space is refused", promptlib.OpCreateFolder, `{"name":"  Home"}`, "INVALID_INPUT"},
	{"create: a name with a slash is refused", promptlib.OpCreateFolder, `{"name":"Work / Sub"}`, "INVALID_INPUT"},
	{"create: a zero width space is refused", promptlib.OpCreateFolder, `{"name":"Home\u200B"}`, "INVALID_INPUT"},
	{"create: a bidi override is refused", promptlib.OpCreateFolder, `{"name":"\u202EemoH"}`, "INVALID_INPUT"},
	{"create: the decomposed spelling of a sibling is taken", promptlib.OpCreateFolder, `{"name":"U\u0308ber"}`, "FOLDER_EXISTS"},
	{"create: the decomposed spelling in other case is taken", promptlib.OpCreateFolder, `{"name":"u\u0308BER"}`, "FOLDER_EXISTS"},
	{"create: a joiner inside a Latin word is refused", promptlib.OpCreateFolder, `{"name":"Wo\u200Drk"}`, "INVALID_INPUT"},
	{"create: an emoji with joiners", promptlib.OpCreateFolder, `{"name":"👨‍💻 Dev"}`, ""},
	{"create: a name differing in case from A", promptlib.OpCreateFolder, `{"name":"a"}`, "FOLDER_EXISTS"},
	{"create: same name under another parent", promptlib.OpCreateFolder, `{"name":"Work","parentId":"` + idD + `"}`, ""},
	{"create: parent id in lower case", promptlib.OpCreateFolder, `{"name":"Deep","parentId":"` + strings.ToLower(idB) + `"}`, "FOLDER_EXISTS"},
	{"create: missing parent", promptlib.OpCreateFolder, `{"name":"x","parentId":"` + missing + `"}`, "PARENT_FOLDER_NOT_FOUND"},
	{"update: rename onto a Unicode sibling in other case", promptlib.OpUpdateFolder, `{"id":"` + idD + `","name":"über"}`, "FOLDER_EXISTS"},
	{"update: rename to a name with a trailing space", promptlib.OpUpdateFolder, `{"id":"` + idD + `","name":"Über "}`, "INVALID_INPUT"},
	{"update: rename to a name with a slash", promptlib.OpUpdateFolder, `{"id":"` + idD + `","name":"Home/Away"}`, "INVALID_INPUT"},
	{"update: rename onto the decomposed spelling of a sibling", promptlib.OpUpdateFolder, `{"id":"` + idD + `","name":"U\u0308ber"}`, "FOLDER_EXISTS"},
	{"update: rename a folder to its own name decomposed", promptlib.OpUpdateFolder, `{"id":"` + idU + `","name":"U\u0308ber"}`, ""},
	{"update: rename a folder to its own name in other case", promptlib.OpUpdateFolder, `{"id":"` + idD + `","name":"HOME"}`, ""},
	{"update: move into itself", promptlib.OpUpdateFolder, `{"id":"` + idA + `","parentId":"` + idA + `"}`, "FOLDER_CYCLE"},
	{"update: move under its grandchild", promptlib.OpUpdateFolder, `{"id":"` + idA + `","parentId":"` + strings.ToLower(idC) + `"}`, "FOLDER_CYCLE"},
	{"update: move to the top level", promptlib.OpUpdateFolder, `{"id":"` + idB + `","parentId":null}`, ""},
	{"update: move next to a folder of the same name", promptlib.OpUpdateFolder, `{"id":"` + idC + `","parentId":"` + idA + `","name":"sub"}`, "FOLDER_EXISTS"},
	{"update: missing folder", promptlib.OpUpdateFolder, `{"id":"` + missing + `","name":"x"}`, "FOLDER_NOT_FOUND"},
	{"update: missing parent", promptlib.OpUpdateFolder, `{"id":"` + idB + `","parentId":"` + missing + `"}`, "PARENT_FOLDER_NOT_FOUND"},
	{"delete: folder with a subfolder", promptlib.OpDeleteFolder, `{"id":"` + idA + `"}`, "FOLDER_NOT_EMPTY"},
	{"delete: folder with a prompt (its id spelt in lower case)", promptlib.OpDeleteFolder, `{"id":"` + idB + `"}`, "FOLDER_NOT_EMPTY"},
	{"delete: non-empty, recursive", promptlib.OpDeleteFolder, `{"id":"` + idA + `","recursive":true}`, ""},
	{"delete: empty leaf", promptlib.OpDeleteFolder, `{"id":"` + idC + `"}`, ""},
	{"delete: missing folder", promptlib.OpDeleteFolder, `{"id":"` + missing + `"}`, "FOLDER_NOT_FOUND"},
}

// checkRules runs one operation's data through the pure rules, as the MCP pre-check does.
func checkRules(tb testing.TB, lib promptlib.Library, kind promptlib.OpKind, data string) error {
	tb.Helper()
	v, err := promptlib.DecodeData(promptlib.Operation{ID: missing, Operation: kind, Data: json.RawMessage(data)})
	if err != nil {
		return err // the field rules, which the pre-check and Apply both run first
	}
	switch d := v.(type) {
	case *promptlib.CreateFolderData:
		return promptlib.CheckCreateFolder(lib.Folders, d.ParentID, d.Name)
	case *promptlib.UpdateFolderData:
		return promptlib.CheckUpdateFolder(lib.Folders, d.ID, d.Name, d.ParentID)
	case *promptlib.DeleteFolderData:
		counts := map[string]int{}
		for _, p := range lib.Prompts {
			if p.FolderID != nil {
				counts[*p.FolderID]++
			}
		}
		return promptlib.CheckDeleteFolder(lib.Folders, counts, d.ID, d.Recursive)
	}
	tb.Fatalf("no folder rule for %s", kind)
	return nil
}

func TestFolderRules(t *testing.T) {
	lib := ruleLibrary()
	for _, tt := range folderRuleCases {
		t.Run(tt.name, func(t *testing.T) {
			err := checkRules(t, lib, tt.kind, tt.data)
			if got := string(codeOrEmpty(err)); got != tt.code {
				t.Errorf("pure rule: got %q (%v), want %q", got, err, tt.code)
			}
		})
	}
}

func TestFolderRulesThroughApply(t *testing.T) {
	for _, tt := range folderRuleCases {
		t.Run(tt.name, func(t *testing.T) {
			lib := librarytest.FromLibrary(t, ruleLibrary())
			resp := apply(t, lib.Writer, tt.kind, tt.data)
			got := ""
			if !resp.OK() {
				got = deref(resp.Error)
			}
			if got != tt.code {
				t.Errorf("Apply: got %q (%s), want %q", got, resp.Message, tt.code)
			}
		})
	}
}

// TestFolderSubtreeStopsAtCycles: a corrupt library whose folders form a cycle cannot hang the
// rules.
func TestFolderSubtreeStopsAtCycles(t *testing.T) {
	folders := []promptlib.Folder{
		{ID: idA, Name: "a", ParentID: promptlib.Ptr(idB)},
		{ID: idB, Name: "b", ParentID: promptlib.Ptr(strings.ToLower(idA))},
	}
	if got := promptlib.FolderSubtree(folders, idA); len(got) != 2 {
		t.Errorf("FolderSubtree on a cycle = %v, want both folders once", got)
	}
	if err := promptlib.CheckUpdateFolder(folders, idA, promptlib.Optional[string]{}, promptlib.Some(idD)); promptlib.CodeOf(err) != promptlib.CodeParentFolderNotFound {
		t.Errorf("CheckUpdateFolder on a cycle = %v, want PARENT_FOLDER_NOT_FOUND", err)
	}
}
