package mcpserver

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestTopLevelID(t *testing.T) {
	big := strings.Repeat("x", 10_000)
	tests := []struct {
		name, line, want string
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"q":"` + big + `"}}}`, "7"},
		{"id last, as the TypeScript SDK writes it", `{"method":"tools/call","params":{"arguments":{"q":"` + big + `"}},"jsonrpc":"2.0","id":9}`, "9"},
		{"a string id last", `{"method":"tools/call","params":{"q":"` + big + `"},"id":"a\"b"}`, `"a\"b"`},
		{"an id inside params is not the message's", `{"method":"tools/call","params":{"arguments":{"id":"FC7AA93D","content":"` + big + `"}},"jsonrpc":"2.0","id":12}`, "12"},
		{"an id inside params, none at the top", `{"method":"tools/call","params":{"arguments":{"id":"FC7AA93D","content":"` + big + `"}}}`, "null"},
		{"an \"id\" in a string value", `{"method":"x","params":{"text":"\"id\":5 ` + big + `"}}`, "null"},
		{"id last, spaced", `{"params":{"q":"` + big + `"} , "id" : -3 }` + "\n", "-3"},
		{"id before a trailing object member", `{"id":4,"params":{"q":"` + big + `"}}`, "4"},
		{"an object id", `{"params":{"q":"` + big + `"},"id":{"a":1}}`, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, tail := []byte(tt.line[:oversizedKeep]), []byte(tt.line[len(tt.line)-oversizedKeep:])
			if got := string(topLevelID(head, tail)); got != tt.want {
				t.Errorf("topLevelID = %s, want %s", got, tt.want)
			}
		})
	}
}

// readLine keeps the start and the end of a line over its limit, however the reads fall.
func TestReadLineKeepsBothEnds(t *testing.T) {
	for _, n := range []int{10, 5000, 70_000} { // the end of the line in the chunk that passes the limit, and after
		line := `{"params":"` + strings.Repeat("y", 100_000) + strings.Repeat("z", n) + `","id":42}`
		r := bufio.NewReaderSize(strings.NewReader(line+"\n"+`{"id":1}`+"\n"), 16<<10)
		var buf bytes.Buffer
		over, tail, err := readLine(r, &buf, 100_005)
		if err != nil || over != len(line)+1 {
			t.Fatalf("n=%d: over %d, err %v; want %d", n, over, err, len(line)+1)
		}
		if !bytes.HasPrefix([]byte(line), buf.Bytes()) || buf.Len() != oversizedKeep {
			t.Errorf("n=%d: kept %d bytes of the start, want the first %d", n, buf.Len(), oversizedKeep)
		}
		if want := line[len(line)-oversizedKeep+1:] + "\n"; string(tail) != want {
			t.Errorf("n=%d: the tail is %d bytes ending %q, want the line's last %d", n, len(tail), tail[max(0, len(tail)-20):], oversizedKeep)
		}
		if got := string(topLevelID(buf.Bytes(), tail)); got != "42" {
			t.Errorf("n=%d: id %s, want 42", n, got)
		}
		buf.Reset()
		if over, _, err := readLine(r, &buf, 100_005); over != 0 || err != nil || buf.String() != `{"id":1}`+"\n" {
			t.Errorf("n=%d: the next line: %q, over %d, err %v", n, buf.String(), over, err)
		}
	}
}
