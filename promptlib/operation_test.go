package promptlib_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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

// TestCanonicalJSON: the operation file holds the client's input re-encoded, so its size is the
// content's and not the client's escaping ("\ud83d\ude00" is 12 bytes of JSON for one emoji),
// while it still means what the client sent.
func TestCanonicalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"content":"\ud83d\ude00"}`, `{"content":"😀"}`},
		{`{ "b" : 1.50, "a" : [ true , false , null , -0 , 1e3 ] }`, `{"b":1.50,"a":[true,false,null,-0,1e3]}`},
		{`{"x":"\u00e9\/<>&"}`, `{"x":"é/<>&"}`},
		{`{"x":"a\"b\\c\n\u0001\u2028"}`, `{"x":"a\"b\\c\n\u0001\u2028"}`},
		{`{"emoji":null,"k":{},"l":[],"k":2}`, `{"emoji":null,"k":{},"l":[],"k":2}`}, // null and duplicates kept
		{`[[{"a":[{}]}],"s"]`, `[[{"a":[{}]}],"s"]`},
		{`"\ud83d"`, `"` + "\uFFFD" + `"`}, // a lone surrogate, as the decoder reads it
		{"  7 \n", `7`},
	}
	for _, tt := range tests {
		got, err := promptlib.CanonicalJSON([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("CanonicalJSON(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `{} {}`, `[1,]`, `nul`} {
		if got, err := promptlib.CanonicalJSON([]byte(bad)); err == nil {
			t.Errorf("CanonicalJSON(%q) = %s, want an error", bad, got)
		}
	}
}

// TestNewOperationCanonical: the data of a new operation is re-encoded, so 100,000 emoji sent
// escaped take 4 bytes each, not 12.
func TestNewOperationCanonical(t *testing.T) {
	raw := json.RawMessage(`{"title":"Big emoji","content":"` + strings.Repeat(`\ud83d\ude00`, 100_000) + `"}`)
	op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, raw)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"title":"Big emoji","content":"` + strings.Repeat("😀", 100_000) + `"}`
	if string(op.Data) != want {
		t.Errorf("NewOperation's data is %d bytes (%.40s…), want %d bytes of UTF-8", len(op.Data), op.Data, len(want))
	}
}

// FuzzCanonicalJSON: whatever valid JSON comes in, what goes out decodes to the same value, and
// re-encoding it again changes nothing.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\ud83d\ude00","b":[1,2.5e-3,null]}`, `"<&>"`, `{"emoji":null}`, `[]`, `"\u2028\u0000"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out, err := promptlib.CanonicalJSON([]byte(in))
		if err != nil {
			t.Fatalf("CanonicalJSON(%q): %v", in, err)
		}
		var a, b any
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("CanonicalJSON(%q) = %q, not JSON: %v", in, out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("CanonicalJSON(%q) = %q, another value", in, out)
		}
		again, err := promptlib.CanonicalJSON(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("CanonicalJSON(%q) = %q, then %q, %v", in, out, again, err)
		}
	})
}
