package promptlib

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// tokenSamples are texts of the kinds results carry, the same bytes each run.
func tokenSamples() map[string]string {
	r := rand.New(rand.NewPCG(1, 2))
	var ids, times []string
	for i := range 500 {
		b := make([]byte, 16)
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		ids = append(ids, strings.ToUpper(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])))
		times = append(times, time.Unix(1_700_000_000+int64(i)*7777, 0).UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	var items strings.Builder
	items.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			items.WriteString(",")
		}
		fmt.Fprintf(&items, `{"id":%d,"name":"item-%d","ok":%v}`, i, i, i%2 == 0)
	}
	items.WriteString("]")
	return map[string]string{
		"json":    items.String(),
		"uuids":   `["` + strings.Join(ids, `","`) + `"]`,
		"times":   `["` + strings.Join(times, `","`) + `"]`,
		"prose":   strings.Repeat("The quick review of this code should check error handling, naming, and tests. ", 500),
		"gocode":  strings.Repeat("func (w *Writer) Write(e Event) error {\n\tline, err := json.Marshal(e)\n\tif err != nil {\n\t\treturn &Error{Op: \"encode\", Err: err}\n\t}\n}\n", 300),
		"cjk":     strings.Repeat("日本語のテキストを書きます。これはテストです。", 500),
		"emoji":   strings.Repeat("🚀👨‍💻✨", 500),
		"ctrl":    strings.Repeat(`\u0001`, 2000),
		"escaped": strings.Repeat(`line one\n\"quoted\"\ttab\n`, 500),
		"numbers": strings.Repeat(`"contentBytes":476,"position":1000123,`, 300),
	}
}

// The estimate is never under what Anthropic's tokenizer counts (the figures are its
// countTokens, npm @anthropic-ai/tokenizer 0.0.4, on tokenSamples), and not so far over that
// results of prose or ids would be cut to a fraction of what fits.
func TestTokensBoundTheTokenizer(t *testing.T) {
	counted := map[string]int{
		"cjk": 10500, "ctrl": 6000, "emoji": 5000, "escaped": 5500, "gocode": 16500, "json": 14024,
		"numbers": 3001, "prose": 8001, "times": 8001, "uuids": 12529,
	}
	for name, s := range tokenSamples() {
		got, want := Tokens(s), counted[name]
		if got < want || got > want*5/2 {
			t.Errorf("%s (%d bytes): estimate %d, tokenizer %d; want from 1 to 2.5 times it", name, len(s), got, want)
		}
	}
}

func BenchmarkTokens(b *testing.B) {
	s := tokenSamples()["gocode"]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Tokens(s)
	}
}
