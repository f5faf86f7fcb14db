package promptlib_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// tree is a small library: Work (A) holds Sub (B) which holds Deep (C); Home (D) is empty.
// Prompt P1 sits in Sub, P2 at the top level.
const (
	idA  = "AAAAAAAA-0000-4000-8000-000000000001"
	idB  = "BBBBBBBB-0000-4000-8000-000000000002"
	idC  = "CCCCCCCC-0000-4000-8000-000000000003"
	idD  = "DDDDDDDD-0000-4000-8000-000000000004"
	idP1 = "EEEEEEEE-0000-4000-8000-000000000005"
	idP2 = "FFFFFFFF-0000-4000-8000-000000000006"
)

func newTree(tb testing.TB) *librarytest.Library {
	tb.Helper()
	at := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	f := func(id, name string, parent *string, pos int) promptlib.Folder {
		return promptlib.Folder{ID: id, Name: name, ParentID: parent, Position: pos, CreatedAt: at, UpdatedAt: at}
	}
	return librarytest.FromLibrary(tb, promptlib.Library{
		Folders: []promptlib.Folder{
			f(idA, "Work", nil, 0), f(idB, "Sub", promptlib.Ptr(idA), 0), f(idC, "Deep", promptlib.Ptr(idB), 0), f(idD, "Home", nil, 1),
		},
		Prompts: []promptlib.Prompt{
			{ID: idP1, Title: "One", Content: "body one", FolderID: promptlib.Ptr(idB), Emoji: promptlib.Ptr("📝"),
				Color: promptlib.Ptr("red"), URL: promptlib.Ptr("https://example.com/1"), CreatedAt: at, UpdatedAt: at},
			{ID: idP2, Title: "Two", Content: "body two", CreatedAt: at, UpdatedAt: at},
		},
	})
}

func apply(tb testing.TB, db *sql.DB, kind promptlib.OpKind, data string) promptlib.Response {
	tb.Helper()
	op, err := promptlib.NewOperation(kind, json.RawMessage(data))
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	resp := promptlib.Apply(context.Background(), tx, op)
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return resp
}

func query(tb testing.TB, db *sql.DB, q string, args ...any) string {
	tb.Helper()
	var s sql.NullString
	if err := db.QueryRow(q, args...).Scan(&s); err != nil && err != sql.ErrNoRows {
		tb.Fatalf("%s: %v", q, err)
	}
	if !s.Valid {
		return "<null>"
	}
	return s.String
}

func TestApply(t *testing.T) {
	tests := []struct {
		name string
		kind promptlib.OpKind
		data string
		code string // "" for success
		msg  string // the answer's message, when set
		// checks run after the operation: query → want
		checks map[string]string
	}{
		{name: "create prompt in folder, lower-case folder id", kind: promptlib.OpCreatePrompt,
			data: `{"title":"New","content":"x","folderId":"` + strings.ToLower(idB) + `","emoji":"👨‍💻","color":"purple","url":"https://a.example/"}`,
			checks: map[string]string{
				`SELECT folder_id||' '||icon||' '||color||' '||url FROM prompts WHERE title='New'`: idB + " 👨‍💻 #A855F7 https://a.example/",
				`SELECT typeof(created_at) FROM prompts WHERE title='New'`:                         "integer",
			}},
		{name: "create prompt at top level", kind: promptlib.OpCreatePrompt, data: `{"title":"Top","content":"x"}`,
			checks: map[string]string{`SELECT folder_id FROM prompts WHERE title='Top'`: "<null>"}},
		{name: "create prompt in missing folder", kind: promptlib.OpCreatePrompt,
			data: `{"title":"New","content":"x","folderId":"11111111-1111-4111-8111-111111111111"}`, code: "FOLDER_NOT_FOUND",
			checks: map[string]string{`SELECT COUNT(*) FROM prompts`: "2"}},
		{name: "create prompt with bad emoji re-validated", kind: promptlib.OpCreatePrompt,
			data: `{"title":"New","content":"x","emoji":"ab"}`, code: "INVALID_EMOJI"},
		{name: "create prompt with blank title", kind: promptlib.OpCreatePrompt, data: `{"title":"  ","content":"x"}`, code: "INVALID_INPUT"},
		{name: "create prompt with a NUL in the title", kind: promptlib.OpCreatePrompt, data: `{"title":"a\u0000b","content":"x"}`, code: "INVALID_INPUT",
			checks: map[string]string{`SELECT COUNT(*) FROM prompts`: "2"}},
		{name: "update prompt with a NUL in the content", kind: promptlib.OpUpdatePrompt, data: `{"id":"` + idP1 + `","content":"x\u0000"}`, code: "INVALID_INPUT",
			checks: map[string]string{`SELECT body FROM prompts WHERE id=?`: "body one"}},
		{name: "create folder with a NUL in the name", kind: promptlib.OpCreateFolder, data: `{"name":"\u0000Work"}`, code: "INVALID_INPUT",
			checks: map[string]string{`SELECT COUNT(*) FROM folders`: "4"}},
		{name: "create prompt with a lone variation selector as emoji", kind: promptlib.OpCreatePrompt, data: `{"title":"a","content":"x","emoji":"\ufe0f"}`, code: "INVALID_EMOJI"},
		{name: "create prompt with unknown field", kind: promptlib.OpCreatePrompt, data: `{"title":"a","content":"x","tags":[]}`, code: "INVALID_INPUT"},
		{name: "update clears emoji keeps the rest", kind: promptlib.OpUpdatePrompt, data: `{"id":"` + idP1 + `","emoji":null}`, msg: "Prompt 'One' updated",
			checks: map[string]string{`SELECT coalesce(icon,'none')||' '||color||' '||title||' '||folder_id FROM prompts WHERE id=?`: "none #EF4444 One " + idB}},
		{name: "update moves to root and clears color", kind: promptlib.OpUpdatePrompt, data: `{"id":"` + strings.ToLower(idP1) + `","folderId":null,"color":null,"title":"Renamed"}`, msg: "Prompt 'Renamed' updated",
			checks: map[string]string{`SELECT coalesce(folder_id,'root')||' '||coalesce(color,'none')||' '||title FROM prompts WHERE id=?`: "root none Renamed"}},
		{name: "update with null title", kind: promptlib.OpUpdatePrompt, data: `{"id":"` + idP1 + `","title":null}`, code: "INVALID_INPUT"},
		{name: "update missing prompt", kind: promptlib.OpUpdatePrompt, data: `{"id":"11111111-1111-4111-8111-111111111111","title":"x"}`, code: "PROMPT_NOT_FOUND"},
		{name: "update into missing folder", kind: promptlib.OpUpdatePrompt, data: `{"id":"` + idP1 + `","folderId":"11111111-1111-4111-8111-111111111111"}`, code: "FOLDER_NOT_FOUND",
			checks: map[string]string{`SELECT folder_id FROM prompts WHERE id=?`: idB}},
		{name: "delete prompt", kind: promptlib.OpDeletePrompt, data: `{"id":"` + strings.ToLower(idP2) + `"}`, msg: "Prompt 'Two' deleted",
			checks: map[string]string{`SELECT COUNT(*) FROM prompts WHERE id=?`: "0"}},
		{name: "delete missing prompt succeeds", kind: promptlib.OpDeletePrompt, data: `{"id":"11111111-1111-4111-8111-111111111111"}`,
			checks: map[string]string{`SELECT COUNT(*) FROM prompts`: "2"}},
		{name: "create folder appends at the end", kind: promptlib.OpCreateFolder, data: `{"name":"Later"}`,
			checks: map[string]string{`SELECT position FROM folders WHERE name='Later'`: "2"}},
		{name: "create subfolder", kind: promptlib.OpCreateFolder, data: `{"name":"Kid","parentId":"` + idD + `"}`,
			checks: map[string]string{`SELECT parent_id||' '||position FROM folders WHERE name='Kid'`: idD + " 0"}},
		{name: "create folder with a taken name", kind: promptlib.OpCreateFolder, data: `{"name":"work"}`, code: "FOLDER_EXISTS"},
		{name: "same name under another parent is fine", kind: promptlib.OpCreateFolder, data: `{"name":"Work","parentId":"` + idD + `"}`},
		{name: "create folder in missing parent", kind: promptlib.OpCreateFolder, data: `{"name":"x","parentId":"11111111-1111-4111-8111-111111111111"}`, code: "PARENT_FOLDER_NOT_FOUND"},
		{name: "rename folder", kind: promptlib.OpUpdateFolder, data: `{"id":"` + idD + `","name":"House"}`, msg: "Folder 'House' updated",
			checks: map[string]string{`SELECT name FROM folders WHERE id=?`: "House"}},
		{name: "rename folder onto a sibling's name", kind: promptlib.OpUpdateFolder, data: `{"id":"` + idD + `","name":"WORK"}`, code: "FOLDER_EXISTS"},
		{name: "move folder under another, appended", kind: promptlib.OpUpdateFolder, data: `{"id":"` + idB + `","parentId":"` + idD + `"}`,
			checks: map[string]string{`SELECT parent_id||' '||position FROM folders WHERE id=?`: idD + " 0"}},
		{name: "move folder to root", kind: promptlib.OpUpdateFolder, data: `{"id":"` + idB + `","parentId":null}`,
			checks: map[string]string{`SELECT coalesce(parent_id,'root')||' '||position FROM folders WHERE id=?`: "root 2"}},
		{name: "move folder into itself", kind: promptlib.OpUpdateFolder, data: `{"id":"` + idA + `","parentId":"` + idA + `"}`, code: "FOLDER_CYCLE"},
		{name: "move folder under its grandchild", kind: promptlib.OpUpdateFolder, data: `{"id":"` + idA + `","parentId":"` + strings.ToLower(idC) + `"}`, code: "FOLDER_CYCLE",
			checks: map[string]string{`SELECT coalesce(parent_id,'root') FROM folders WHERE id=?`: "root"}},
		{name: "update missing folder", kind: promptlib.OpUpdateFolder, data: `{"id":"11111111-1111-4111-8111-111111111111","name":"x"}`, code: "FOLDER_NOT_FOUND"},
		{name: "delete empty folder", kind: promptlib.OpDeleteFolder, data: `{"id":"` + idD + `"}`,
			checks: map[string]string{`SELECT COUNT(*) FROM folders`: "3"}},
		{name: "delete non-empty folder refused", kind: promptlib.OpDeleteFolder, data: `{"id":"` + idA + `"}`, code: "FOLDER_NOT_EMPTY",
			checks: map[string]string{`SELECT COUNT(*) FROM folders`: "4", `SELECT COUNT(*) FROM prompts`: "2"}},
		{name: "delete non-empty folder recursively", kind: promptlib.OpDeleteFolder, data: `{"id":"` + idA + `","recursive":true}`,
			checks: map[string]string{`SELECT group_concat(name) FROM folders`: "Home", `SELECT group_concat(title) FROM prompts`: "Two"}},
		{name: "delete missing folder", kind: promptlib.OpDeleteFolder, data: `{"id":"11111111-1111-4111-8111-111111111111"}`, code: "FOLDER_NOT_FOUND"},
		{name: "unknown operation", kind: "rename_everything", data: `{}`, code: "INVALID_INPUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := newTree(t)
			resp := apply(t, lib.Writer, tt.kind, tt.data)
			if tt.code == "" {
				if !resp.OK() || resp.ID == nil || !promptlib.ValidID(*resp.ID) || resp.Error != nil {
					t.Fatalf("got %+v, want success with an id", resp)
				}
			} else if resp.OK() || resp.Error == nil || *resp.Error != tt.code || resp.Message == "" {
				t.Fatalf("got %+v (error %v), want error %s", resp, deref(resp.Error), tt.code)
			}
			if tt.msg != "" && resp.Message != tt.msg {
				t.Errorf("message %q, want %q", resp.Message, tt.msg)
			}
			for q, want := range tt.checks {
				var args []any
				if strings.Contains(q, "?") {
					var d struct{ ID string }
					json.Unmarshal([]byte(tt.data), &d)
					args = append(args, strings.ToUpper(d.ID))
				}
				if got := query(t, lib.Writer, q, args...); got != want {
					t.Errorf("%s: got %q, want %q", q, got, want)
				}
			}
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// TestApplyErrorLeavesTransactionClean checks the savepoint: after an error answer the caller
// can still commit other work in the same transaction.
func TestApplyErrorLeavesTransactionClean(t *testing.T) {
	lib := newTree(t)
	ctx := context.Background()
	tx, err := lib.Writer.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	op, _ := promptlib.NewOperation(promptlib.OpDeleteFolder, promptlib.DeleteFolderData{ID: idA})
	if resp := promptlib.Apply(ctx, tx, op); resp.OK() {
		t.Fatalf("got %+v, want FOLDER_NOT_EMPTY", resp)
	}
	if _, err := tx.Exec(`INSERT INTO applied_ops (op_id, applied_at, response) VALUES ('x', 1, '{}')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := query(t, lib.Writer, `SELECT COUNT(*) FROM applied_ops`); got != "1" {
		t.Errorf("applied_ops rows: got %s, want 1", got)
	}
}

func TestOptionalAbsentVsNull(t *testing.T) {
	tests := []struct {
		in        string
		set, null bool
		value     string
	}{
		{`{"id":"x"}`, false, false, ""},
		{`{"id":"x","emoji":null}`, true, true, ""},
		{`{"id":"x","emoji":"📝"}`, true, false, "📝"},
	}
	for _, tt := range tests {
		var d promptlib.UpdatePromptData
		if err := json.Unmarshal([]byte(tt.in), &d); err != nil {
			t.Fatal(err)
		}
		if d.Emoji.Set != tt.set || d.Emoji.Null != tt.null || d.Emoji.Value != tt.value {
			t.Errorf("%s: got %+v, want set=%v null=%v value=%q", tt.in, d.Emoji, tt.set, tt.null, tt.value)
		}
		out, _ := json.Marshal(d)
		if string(out) != tt.in {
			t.Errorf("round trip: got %s, want %s", out, tt.in)
		}
	}
}
