package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib"
)

// oversizedKeep is how much of the start and of the end of a refused message is kept, to find
// its id in.
const oversizedKeep = 4096

// readLine reads one line into buf, at most limit bytes of it. A longer line is read to its end
// and dropped, never held whole: its length is returned as over, buf keeps its first
// oversizedKeep bytes and tail its last ones.
func readLine(r *bufio.Reader, buf *bytes.Buffer, limit int) (over int, tail []byte, err error) {
	total := 0
	for {
		chunk, err := r.ReadSlice('\n')
		total += len(chunk)
		switch {
		case total <= limit:
			buf.Write(chunk)
		case total-len(chunk) <= limit:
			// The line passes the limit with this chunk: what it read so far ends the tail.
			tail = append(tail, buf.Bytes()[max(0, buf.Len()-oversizedKeep):]...)
			buf.Truncate(min(buf.Len(), oversizedKeep))
			fallthrough
		default:
			if buf.Len() < oversizedKeep {
				buf.Write(chunk[:min(len(chunk), oversizedKeep-buf.Len())])
			}
			tail = append(tail, chunk[max(0, len(chunk)-oversizedKeep):]...)
			tail = tail[max(0, len(tail)-oversizedKeep):]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if total > limit {
			return total, tail, err
		}
		return 0, nil, err
	}
}

// refuseOversized answers a message over MaxMessageBytes with its id, where its start or its end
// shows it, so the client's call ends with a reason instead of waiting out its timeout.
func (w *wire) refuseOversized(head, tail []byte, size int) {
	id := topLevelID(head, tail)
	w.obs.log.Warn("refused an oversized message", "bytes", size, "limit", MaxMessageBytes, "id", string(id))
	// No tool takes content in pieces: say what the limits are, so the model cuts what it sends.
	w.reply(id, mcp.INVALID_REQUEST, fmt.Sprintf("Invalid Request: the message is %d bytes and mcpctl reads at most %d bytes per message, "+
		"so the call was not made. A prompt's content holds at most %d characters: shorten it, or split it across several prompts. "+
		"Another tool's arguments must go in several smaller calls", size, MaxMessageBytes, promptlib.MaxContent))
}

// topLevelID finds the id of a message of which only the start (head) and the end (tail) are
// known: the id member of the outermost object, never an "id" inside params (update_prompt's
// arguments have one). Clients put it first or last: the TypeScript SDK writes
// {"method":…,"params":…,"jsonrpc":"2.0","id":5}. It is null where neither end shows it.
func topLevelID(head, tail []byte) json.RawMessage {
	if id := headID(head); id != nil {
		return id
	}
	if id := tailID(tail); id != nil {
		return id
	}
	return json.RawMessage("null")
}

// headID scans the start of a JSON object for the id member at its top level.
func headID(b []byte) json.RawMessage {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return nil // the head ends inside a string
			}
			key := b[i : end+1]
			i = end
			if depth != 1 || string(key) != `"id"` {
				continue
			}
			j := skipSpace(b, end+1)
			if j >= len(b) || b[j] != ':' {
				continue // a string value, not a key
			}
			j = skipSpace(b, j+1)
			if v := scalarAt(b, j); validID(v) {
				return v
			}
			return nil
		}
	}
	return nil
}

// stringEnd is the index of the quote that ends the string whose opening quote is at b[i], or
// -1 when b ends first.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scalarAt is the number or string that starts at b[i] and is followed by a delimiter within
// b, or nil.
func scalarAt(b []byte, i int) json.RawMessage {
	if i >= len(b) {
		return nil
	}
	end := i
	if b[i] == '"' {
		if end = stringEnd(b, i); end < 0 {
			return nil
		}
		end++
	} else {
		for end < len(b) && bytes.IndexByte([]byte("-+.0123456789eE"), b[end]) >= 0 {
			end++
		}
		if end == i || end == len(b) {
			return nil // no number, or one the head may have cut
		}
	}
	v := json.RawMessage(b[i:end])
	if !json.Valid(v) {
		return nil
	}
	return v
}

// tailID reads the end of a JSON object backwards: the members between its last scalar-valued
// ones and its closing brace are at its top level, whatever came before.
func tailID(b []byte) json.RawMessage {
	i := len(bytes.TrimRight(b, " \t\r\n")) - 1
	if i < 0 || b[i] != '}' {
		return nil
	}
	for {
		// A member "key": value, read from its end; only scalar values are read.
		vEnd := lastNonSpace(b, i-1)
		vStart := scalarStart(b, vEnd)
		if vStart < 0 {
			return nil
		}
		colon := lastNonSpace(b, vStart-1)
		if colon < 0 || b[colon] != ':' {
			return nil
		}
		kEnd := lastNonSpace(b, colon-1)
		kStart := scalarStart(b, kEnd)
		if kStart < 0 || b[kStart] != '"' {
			return nil
		}
		if string(b[kStart:kEnd+1]) == `"id"` {
			if v := json.RawMessage(b[vStart : vEnd+1]); validID(v) && json.Valid(v) {
				return v
			}
			return nil
		}
		i = lastNonSpace(b, kStart-1)
		if i < 0 || b[i] != ',' {
			return nil
		}
	}
}

func lastNonSpace(b []byte, i int) int {
	for i >= 0 && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i--
	}
	return i
}

// scalarStart is where the string, number or literal that ends at b[end] starts, or -1.
func scalarStart(b []byte, end int) int {
	if end < 0 {
		return -1
	}
	if b[end] == '"' {
		for j := end - 1; j >= 0; j-- {
			if b[j] != '"' {
				continue
			}
			slashes := 0
			for k := j - 1; k >= 0 && b[k] == '\\'; k-- {
				slashes++
			}
			if slashes%2 == 0 {
				return j
			}
		}
		return -1
	}
	j := end
	for j >= 0 && bytes.IndexByte([]byte("-+.0123456789eEtruefalsn"), b[j]) >= 0 {
		j--
	}
	if j == end {
		return -1 // an object or array value: the scan stops
	}
	return j + 1
}
