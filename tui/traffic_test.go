package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

// The event detail shows a payload's strings as they read: serve writes JSON escaped for any
// transport (🚀 as \ud83d\ude80, < as \u003c), and the detail decodes it, keeping the members in
// their order and escaped what would act on the terminal or hide text: control characters, line
// separators and bidirectional overrides.
func TestEventDetailDecodesStrings(t *testing.T) {
	payload := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",` +
		`"text":"From client \ud83d\ude80 \u003cprompt name=\"code-review\"\u003e \u0026 caf\u00e9\n\u001b[2J\u0007 \u202eright-to-left\u2028 a\\b \u009b"}]}}`
	e := traffic.Event{TS: clock, Session: "s1", Kind: traffic.KindResponse, Method: "tools/call", ID: "7", Name: "get_prompt",
		Status: traffic.StatusOK, Payload: json.RawMessage(payload)}
	got := eventDetail(e, time.UTC, 400)
	want := `"text": "From client 🚀 <prompt name=\"code-review\"> & café\n\u001b[2J\u0007 \u202eright-to-left\u2028 a\\b \u009b"`
	if !strings.Contains(got, want) {
		t.Errorf("the detail does not show the text decoded, its controls escaped:\n%s\nwant it to hold:\n%s", got, want)
	}
	if i, j, k := strings.Index(got, `"jsonrpc"`), strings.Index(got, `"id": 7`), strings.Index(got, `"result"`); !(0 <= i && i < j && j < k) {
		t.Errorf("the members are not in the message's order:\n%s", got)
	}
	noControls(t, "traffic event", got)

	// A payload that is not JSON is shown as it is, made safe.
	e.Payload = json.RawMessage("not json \x1b[2J")
	if got := eventDetail(e, time.UTC, 400); !strings.Contains(got, "not json ^[[2J") {
		t.Errorf("a payload that is not JSON:\n%s", got)
	}
}
