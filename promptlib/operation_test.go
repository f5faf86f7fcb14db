package promptlib_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

func TestDecodeData(t *testing.T) {
	tests := []struct {
		kind promptlib.OpKind
		data string
		code promptlib.Code // "" when valid
	}{
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","emoji":"👍🏽","color":"red","url":"https://x.example"}`, ""},
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","folderId":null}`, ""},
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","folderId":"nope"}`, promptlib.CodeInvalidUUID},
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","color":"pink"}`, promptlib.CodeInvalidColor},
		{promptlib.OpCreatePrompt, `{"title":"t"}`, promptlib.CodeInvalidInput},
		{promptlib.OpCreatePrompt, `[]`, promptlib.CodeInvalidInput},
		{promptlib.OpUpdatePrompt, `{"id":"AAAAAAAA-0000-4000-8000-000000000001","content":null}`, promptlib.CodeInvalidInput},
		{promptlib.OpUpdatePrompt, `{"id":"AAAAAAAA-0000-4000-8000-000000000001","url":null,"emoji":null,"color":null,"folderId":null}`, ""},
		{promptlib.OpUpdateFolder, `{"id":"AAAAAAAA-0000-4000-8000-000000000001","name":null}`, promptlib.CodeInvalidInput},
		{promptlib.OpDeleteFolder, `{"id":"AAAAAAAA-0000-4000-8000-000000000001","recursive":"yes"}`, promptlib.CodeInvalidInput},
		{"drop_table", `{}`, promptlib.CodeInvalidInput},
	}
	for _, tt := range tests {
		_, err := promptlib.DecodeData(promptlib.Operation{Operation: tt.kind, Data: json.RawMessage(tt.data)})
		if got := codeOrEmpty(err); got != tt.code {
			t.Errorf("%s %s: got %q (%v), want %q", tt.kind, tt.data, got, err, tt.code)
		}
	}
}

func codeOrEmpty(err error) promptlib.Code {
	if err == nil {
		return ""
	}
	return promptlib.CodeOf(err)
}

// FuzzDecodeData: any data either decodes to something that validates and survives a round
// trip, or fails with a user-facing code; it never panics.
func FuzzDecodeData(f *testing.F) {
	f.Add("update_prompt", `{"id":"AAAAAAAA-0000-4000-8000-000000000001","emoji":null,"title":"x"}`)
	f.Add("create_prompt", `{"title":"t","content":"c","emoji":"👨‍💻"}`)
	f.Add("delete_folder", `{"id":"AAAAAAAA-0000-4000-8000-000000000001","recursive":true}`)
	f.Fuzz(func(t *testing.T, kind, data string) {
		op := promptlib.Operation{Operation: promptlib.OpKind(kind), Data: json.RawMessage(data)}
		v, err := promptlib.DecodeData(op)
		if err != nil {
			if promptlib.CodeOf(err) == promptlib.CodeInternal {
				t.Fatalf("internal error for %q %q: %v", kind, data, err)
			}
			return
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := promptlib.DecodeData(promptlib.Operation{Operation: op.Operation, Data: again}); err != nil {
			t.Fatalf("%s re-encoded as %s no longer decodes: %v", data, again, err)
		}
	})
}
