package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendASCII: any JSON encoding/json writes comes out ASCII and reads back the same, and
// isASCII agrees with a byte-by-byte look.
func FuzzAppendASCII(f *testing.F) {
	for _, seed := range []string{"", "plain", "é", "日本語", "😀 and 🚀", "bad\xff\xfe utf8 \xe2\x82", "\u2028", "12345678é"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := map[string]any{"k" + s: []any{s, 1.5, nil, true}}
		msg, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got := appendASCII([]byte("x"), msg)[1:]
		if !isASCII(got) || bytes.ContainsFunc(got, func(r rune) bool { return r >= 0x80 }) {
			t.Fatalf("appendASCII(%s) = %s: not ASCII", msg, got)
		}
		var back, orig any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendASCII(%s) = %s: %v", msg, got, err)
		}
		_ = json.Unmarshal(msg, &orig)
		if b1, b2 := mustJSON(t, back), mustJSON(t, orig); !bytes.Equal(b1, b2) {
			t.Fatalf("appendASCII(%s) reads back as %s, want %s", msg, b1, b2)
		}
		if isASCII([]byte(s)) != !bytes.ContainsFunc([]byte(s), func(r rune) bool { return r >= 0x80 }) {
			t.Fatalf("isASCII(%q) = %v", s, isASCII([]byte(s)))
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
