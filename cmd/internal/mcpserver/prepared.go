package mcpserver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// A prepared result is a tool result whose JSON the handler has already written, so that nothing
// encodes it again on the way out.
//
// Why: mcp-go writes a response with json.Marshal, and encoding/json re-validates and compacts the
// output of every json.Marshaler it meets. A tool result is one: its text is escaped, compacted
// inside CallToolResult.MarshalJSON, then compacted again as part of the response, and its
// structured content (a json.RawMessage) is compacted twice too. For a page of 100 prompts that
// was a third of the call's time and most of its garbage.
//
// How: the handler returns a result whose text content and structured content marshal to short
// marker strings, and hangs the real bytes on the call's record. When the response line reaches
// the wire, the markers are replaced by those bytes. Middleware still sees an ordinary result and
// may add content around ours (the gate prepends its briefing); content it drops simply leaves no
// marker to replace. The markers carry a nonce drawn at start, so no prompt text can imitate one.
type prepared struct {
	seq        int64  // the call's number, in its markers
	structured []byte // the structured content, JSON, in buf
	prose      string // the text content when it is not the structured content's JSON
	buf        *bytes.Buffer
}

var (
	preparedNonce = func() string {
		var b [12]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}()
	// markerPrefix starts every marker; the call's number and the part follow:
	// "\u0000mcpctl-NONCE-SEQ-text". The number lets the wire find the call from the marker
	// itself, whatever form the request's id comes back in.
	markerPrefix = []byte(`"\u0000mcpctl-` + preparedNonce + `-`)
)

func marker(seq int64, part string) []byte {
	return fmt.Appendf(slices.Clip(markerPrefix), `%d-%s"`, seq, part)
}

// markedSeq is the call number in the first marker of msg.
func markedSeq(msg []byte) (int64, bool) {
	i := bytes.Index(msg, markerPrefix)
	if i < 0 {
		return 0, false
	}
	rest := msg[i+len(markerPrefix):]
	j := bytes.IndexByte(rest, '-')
	if j < 0 {
		return 0, false
	}
	seq, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return seq, err == nil
}

// preparedText stands in for the text content; embedding mcp.TextContent makes it an mcp.Content.
type preparedText struct {
	mcp.TextContent
	seq int64
}

func (t preparedText) MarshalJSON() ([]byte, error) {
	return append(append([]byte(`{"type":"text","text":`), marker(t.seq, "text")...), '}'), nil
}

// preparedStructured stands in for the structured content.
type preparedStructured struct{ seq int64 }

func (s preparedStructured) MarshalJSON() ([]byte, error) { return marker(s.seq, "structured"), nil }

// prepareResult returns the result a tool handler hands to mcp-go for a result whose structured
// content is structured (held in buf, which the result now owns) and whose text is the same
// JSON, or prose when that is not empty (a briefing). Without a wire to splice the bytes in (a
// handler called directly), it is an ordinary result.
func prepareResult(c *call, buf *bytes.Buffer, structured []byte, prose string) *mcp.CallToolResult {
	if c.id == "" {
		structured = bytes.Clone(structured)
		release(buf)
		text := prose
		if text == "" {
			text = string(structured)
		}
		return mcp.NewToolResultStructured(json.RawMessage(structured), text)
	}
	c.mu.Lock()
	c.prepared = &prepared{seq: c.seq, structured: structured, prose: prose, buf: buf}
	c.mu.Unlock()
	return &mcp.CallToolResult{
		Content:           []mcp.Content{preparedText{mcp.TextContent{Type: mcp.ContentTypeText}, c.seq}},
		StructuredContent: preparedStructured{c.seq},
	}
}

// addBriefing gives a prepared result's structured content a "briefing" field holding text, and
// reports whether the call had a prepared result. Its text content stays the JSON it was: the
// briefing goes before it as a text block of its own.
func (c *call) addBriefing(text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	pr := c.prepared
	if pr == nil {
		return false
	}
	if pr.prose == "" {
		pr.prose = string(pr.structured)
	}
	pr.structured = withBriefingField(pr.structured, text, true)
	return true
}

// withBriefingField is the JSON object obj with a field "briefing" holding text, first or last:
// first where the briefing is to be read before the result, last where what comes before it
// must not be cut off behind it (an error). obj is an object, as every result of ours is.
func withBriefingField(obj []byte, text string, first bool) []byte {
	// Unescaped <, > and &: a briefing's <prompt> tags would cost 6 bytes a bracket of the
	// model's context as \u003c, in a text the model reads as it is.
	field := stringify(text)
	obj = bytes.TrimSpace(obj)
	inner := bytes.TrimSpace(obj[1 : len(obj)-1]) // between the braces
	out := make([]byte, 0, len(obj)+len(field)+len(`,"briefing":`))
	out = append(out, '{')
	if !first && len(inner) > 0 {
		out = append(append(out, inner...), ',')
	}
	out = append(append(out, `"briefing":`...), field...)
	if first && len(inner) > 0 {
		out = append(append(out, ','), inner...)
	}
	return append(out, '}')
}

// write puts the prepared bytes where mcp-go wrote the markers in msg and passes the message to
// write. The buffers are reused once write returns: pr is spent.
func (pr *prepared) write(msg []byte, write func([]byte) error) error {
	line := lineBuffers.get()
	out := pr.splice((*line)[:0], msg)
	err := write(out)
	if cap(out) <= maxPooled {
		*line = out
		lineBuffers.put(line)
	}
	release(pr.buf)
	pr.buf, pr.structured = nil, nil
	return err
}

// splice appends msg to out with the prepared values in place of the markers.
func (pr *prepared) splice(out, msg []byte) []byte {
	type part struct {
		at     int
		marker []byte
		text   bool
	}
	parts := make([]part, 0, 2)
	for _, p := range []part{{0, marker(pr.seq, "text"), true}, {0, marker(pr.seq, "structured"), false}} {
		if p.at = bytes.Index(msg, p.marker); p.at >= 0 {
			parts = append(parts, p)
		}
	}
	if len(parts) == 2 && parts[1].at < parts[0].at {
		parts[0], parts[1] = parts[1], parts[0]
	}
	out = slices.Grow(out, len(msg)+2*len(pr.structured)+len(pr.prose)+len(pr.structured)/8)
	from := 0
	for _, p := range parts {
		out = append(out, msg[from:p.at]...)
		switch {
		case p.text && pr.prose != "":
			out = appendJSONString(out, pr.prose)
		case p.text:
			out = appendJSONString(out, pr.structured)
		default:
			out = appendASCII(out, pr.structured)
		}
		from = p.at + len(p.marker)
	}
	return append(out, msg[from:]...)
}

// jsonSafe marks the bytes that stand for themselves inside a JSON string.
var jsonSafe = func() (t [256]bool) {
	for b := 0x20; b < 0x80; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// jsonUnsafeBytes sets the high bit of each byte of w that may not stand for itself in a JSON
// string: a control character, a quote, a backslash, or a byte beyond ASCII. Exact per byte, as
// no sum carries into the next byte: a byte's low seven bits plus 0x60 stay below 0x80 only
// below 0x20; XORed with the quote, a byte's low seven bits plus 0x7f, or the byte itself,
// reach 0x80 unless it was the quote (the same for the backslash).
func jsonUnsafeBytes(w uint64) uint64 {
	const low7 = 0x7f * lowBits
	control := ^((w & low7) + 0x60*lowBits)
	quote := w ^ '"'*lowBits
	quote = ^((quote & low7) + low7 | quote)
	backslash := w ^ '\\'*lowBits
	backslash = ^((backslash & low7) + low7 | backslash)
	return (w | control | quote | backslash) & highBits
}

// appendJSONString appends s as a JSON string in ASCII (see ascii.go). Unlike encoding/json it
// leaves <, > and & as they are (the result is not HTML); like it, invalid UTF-8 becomes U+FFFD.
func appendJSONString[T string | []byte](out []byte, s T) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := jsonUnsafeBytes(load8(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if jsonSafe[s[i]] {
			i++
			continue
		}
		b := s[i] // one to rewrite
		out = append(out, s[start:i]...)
		if b >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			out = appendRuneEscape(out, r)
			i += size
			start = i
			continue
		}
		out = appendByteEscape(out, b)
		i++
		start = i
	}
	return append(append(out, s[start:]...), '"')
}

// appendByteEscape appends an ASCII byte that may not stand for itself in a JSON string (a
// quote, a backslash or a control character) escaped as encoding/json escapes it.
func appendByteEscape(out []byte, b byte) []byte {
	const hexDigits = "0123456789abcdef"
	switch b {
	case '"', '\\':
		return append(out, '\\', b)
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	return append(out, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
}
