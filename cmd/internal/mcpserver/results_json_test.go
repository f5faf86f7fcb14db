package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// encodingJSON is what marshalText wrote before pages were written by hand.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// pageFrom builds a page whose every string is s, with each optional field set or not by the
// bits of shape, so one input covers the omitempty and null rules too.
func pageFrom(s string, shape uint8, n int64) PromptsResult {
	str := func(bit uint8) *string {
		if shape&bit == 0 {
			return nil
		}
		return &s
	}
	at := promptlib.Time{Time: time.Unix(n%4e9, (n%1000)*1e6).In(time.FixedZone("x", 3600))}
	item := PromptItem{ID: s, Title: s + "<&>", Content: str(1), ContentOmitted: shape&2 != 0, Summary: s,
		ContentBytes: int(n), FolderID: str(4), Emoji: str(8), Color: str(16), URL: str(32), CreatedAt: at, UpdatedAt: at}
	r := PromptsResult{Prompts: []PromptItem{item, {ID: "B", CreatedAt: at}}, Total: int(n), Offset: int(-n), Limit: 3}
	if shape&64 != 0 {
		next := int(n) + 1
		r.NextOffset = &next
	}
	if shape&128 != 0 {
		r.Prompts = nil
	}
	return r
}

func TestPromptsResultJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " backslash \ slash /`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"é ü 漢字 🙂", "\u2028\u2029", "bad \xff\xfe utf8 \xe2\x82", "<script>&amp;</script>", "{{var}}",
	} {
		for _, shape := range []uint8{0, 0x3f, 0x41, 0x80, 0xff} {
			r := pageFrom(s, shape, 1732364400123)
			if got, want := r.appendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
				t.Errorf("%q shape %#x:\n got %s\nwant %s", s, shape, got, want)
			}
		}
	}
}

// FuzzPromptsResultJSON holds the hand-written page to encoding/json's bytes for any text.
func FuzzPromptsResultJSON(f *testing.F) {
	f.Add("bad \xff utf8 \u2028 \x00 \"q\" <&>", uint8(0xff), int64(1732364400123))
	f.Add("", uint8(0), int64(0))
	f.Fuzz(func(t *testing.T, s string, shape uint8, n int64) {
		r := pageFrom(s, shape, n)
		if got, want := r.appendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkPromptsResultJSON is a 100-prompt page of the sample library written by hand and by
// encoding/json.
func BenchmarkPromptsResultJSON(b *testing.B) {
	lib := promptlib.Sample(100, 1)
	var listed []dbread.Listed
	for _, p := range lib.Prompts {
		listed = append(listed, dbread.Listed{Prompt: p, Summary: promptlib.Summary(p.Content), ContentBytes: len(p.Content)})
	}
	page := pageOf(listed, 1000, 0, 100, false)
	b.Run("by-hand", func(b *testing.B) {
		buf := make([]byte, 0, 64<<10)
		for b.Loop() {
			buf = page.appendJSON(buf[:0])
		}
		b.ReportMetric(float64(len(buf)), "bytes")
	})
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(page); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSplicePage is the prepared 100-prompt page put into its response line: the structured
// JSON once as it is and once as the text's JSON string, both in ASCII (one emoji on the page).
func BenchmarkSplicePage(b *testing.B) {
	lib := promptlib.Sample(100, 1)
	lib.Prompts[3].Title += " 🦀"
	var listed []dbread.Listed
	for _, p := range lib.Prompts {
		listed = append(listed, dbread.Listed{Prompt: p, Summary: promptlib.Summary(p.Content), ContentBytes: len(p.Content)})
	}
	structured := pageOf(listed, 1000, 0, 100, false).appendJSON(nil)
	pr := &prepared{seq: 7, structured: structured}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":%s}],"structuredContent":%s}}`,
		marker(7, "text"), marker(7, "structured"))
	var out []byte
	for b.Loop() {
		out = pr.splice(out[:0], msg)
	}
	b.SetBytes(int64(len(out)))
}
