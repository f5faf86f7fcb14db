package mcpserver

import (
	"encoding/binary"
	"unicode/utf8"
)

// Every line the server writes is ASCII: a character outside it travels as a \u escape, as
// Python's json.dumps writes by default.
//
// Why: a Node client (the TypeScript SDK, so Claude Code, Cursor and the Inspector) turns each
// line into one V8 string before parsing it. A line with a single character beyond Latin-1 (an
// emoji, a curly quote) becomes a two-byte string, and a string over 128 KiB of memory goes to
// V8's large-object space, which costs the client about 1.5 ms per message. Measured with the
// SDK's client on a page of 100 prompts (79 KB, one emoji in it): 2.6 ms per call as UTF-8,
// 0.9 ms as ASCII. An ASCII line stays a one-byte string: twice as long before that cost.
//
// The model reads the same text either way (escapes are decoded with the JSON); only the line
// grows, by 4 bytes for a two- or three-byte character and 8 for an emoji.

// isASCII reports whether b holds only ASCII bytes, eight at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendASCII appends msg, a JSON message, with each non-ASCII character replaced by its \u
// escape. Outside strings JSON is ASCII, so every such character is inside a string, where an
// escape means the same. Invalid UTF-8 becomes U+FFFD, as encoding/json writes it.
func appendASCII(out, msg []byte) []byte {
	start := 0
	for i := 0; i < len(msg); {
		if msg[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(msg[i:])
		out = appendRuneEscape(append(out, msg[start:i]...), r)
		i += size
		start = i
	}
	return append(out, msg[start:]...)
}

// appendRuneEscape appends r as a JSON \u escape, as a surrogate pair beyond the BMP.
func appendRuneEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		r -= 0x10000
		out = appendU16(out, 0xd800+(r>>10))
		return appendU16(out, 0xdc00+(r&0x3ff))
	}
	return appendU16(out, r)
}

func appendU16(out []byte, r rune) []byte {
	const hexDigits = "0123456789abcdef"
	return append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
