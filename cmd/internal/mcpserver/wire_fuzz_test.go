package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// FuzzWire feeds arbitrary client input through the wire, as a client's stdin would: it never
// panics, and whatever it answers itself is one JSON-RPC error per line.
func FuzzWire(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_prompts","arguments":{"query":"x"},"_meta":{"progressToken":1}}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":5}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":null}`,
		"{\"id\":", "\x00\xff", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		obs := &observer{log: slog.New(slog.DiscardHandler)}
		w := obs.wire(bytes.NewReader(append(line, '\n')), &out)
		forwarded := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(w.pr)
			forwarded <- b
		}()
		if err := w.read(); err != nil {
			t.Fatalf("read: %v", err)
		}
		w.pw.Close()
		<-forwarded
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil {
				t.Fatalf("answer to %q is not a JSON-RPC error: %s", line, sc.Bytes())
			}
			if id := string(resp.ID); id != "null" && !validID(resp.ID) {
				t.Fatalf("answer to %q echoes an id that is not a string or number: %s", line, id)
			}
		}
		if strings.Count(out.String(), "\n") > 1 {
			t.Fatalf("one line in, %d answers out", strings.Count(out.String(), "\n"))
		}
	})
}
