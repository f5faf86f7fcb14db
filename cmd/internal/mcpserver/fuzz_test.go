package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// FuzzJSONRPC feeds arbitrary messages to the assembled server, as a client's stdin would: it
// must never panic, and whatever it answers must be one JSON value (the stdio channel carries
// nothing else).
func FuzzJSONRPC(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_prompts","arguments":{"query":"review \"go"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_prompts","arguments":{"limit":-1,"folderId":7}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"review-go","arguments":{"x":"{{y}}"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"prompteka://prompt/../../etc"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_prompt","arguments":null}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[]`, `{`, `null`,
	} {
		f.Add([]byte(seed))
	}
	lib := librarytest.New(f, 20)
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	d, err := New(ctx, Config{Library: Library{Dir: lib.Dir, DB: lib.DB, Queue: lib.Queue}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(d.Close)
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !json.Valid(msg) {
			return // the stdio reader answers parse errors itself
		}
		res := d.srv.HandleMessage(ctx, msg)
		if res == nil {
			return // a notification
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("answer to %s does not marshal: %v", msg, err)
		}
	})
}
