package mcpserver

import (
	"encoding/binary"
	"math/bits"
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

// Eight bytes at a time: the loops below skip the plain runs of a message a word at a time (a
// 100-prompt page is ~75 KB of them), and look at bytes one by one only in a word that holds one
// to rewrite.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// load8 reads the eight bytes of s at i as one little-endian word.
func load8[T string | []byte](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// isASCII reports whether b holds only ASCII bytes, eight at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&highBits != 0 {
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
		if i+8 <= len(msg) {
			m := load8(msg, i) & highBits
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if msg[i] < utf8.RuneSelf {
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
