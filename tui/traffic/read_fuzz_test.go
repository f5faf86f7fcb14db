package traffic

import (
	"bytes"
	"testing"
)

// A traffic file is written by other processes and may be torn or corrupt: reading it never
// panics, never consumes past the last newline while following, and finds every whole event.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte(`{"ts":"2026-11-23T06:30:00Z","session":"s","kind":"request","method":"ping","bytesIn":1,"bytesOut":0}` + "\n"))
	f.Add([]byte("{\"ts\":\"2026-11-23T06:30:00Z\"\n{bad\n\n"))
	f.Add([]byte(`{"ts":"2026-11-23T06:30:00Z","payload":{"a":[1,2,{"b":null}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n int
		consumed, err := readLines(bytes.NewReader(data), false, func(Event) { n++ })
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); consumed != want {
			t.Fatalf("consumed %d bytes, want %d (through the last newline)", consumed, want)
		}
		var m int
		if _, err := readLines(bytes.NewReader(data), true, func(Event) { m++ }); err != nil {
			t.Fatal(err)
		}
		if m < n {
			t.Fatalf("reading to the end found %d events, fewer than the %d of whole lines", m, n)
		}
	})
}
