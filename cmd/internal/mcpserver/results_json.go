package mcpserver

import (
	"strconv"
	"unicode/utf8"
)

// A page of list_prompts or search_prompts is the largest result the server builds on every
// call, and encoding/json's reflection was a sixth of a 100-prompt page's server time (0.17 ms
// at 1k). The page is written by hand instead, byte for byte what encoding/json writes with
// SetEscapeHTML(false) (FuzzPromptsResultJSON holds it to that), so the schemas, snapshots and
// recorded conversations are unchanged.

// jsonAppender is a result that writes its own JSON, exactly as encoding/json would.
type jsonAppender interface{ appendJSON(b []byte) []byte }

// appendJSON appends r as encoding/json would.
func (r PromptsResult) appendJSON(b []byte) []byte {
	b = append(b, `{"prompts":`...)
	if r.Prompts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Prompts {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.Prompts[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"total":`...), int64(r.Total), 10)
	b = strconv.AppendInt(append(b, `,"offset":`...), int64(r.Offset), 10)
	b = strconv.AppendInt(append(b, `,"limit":`...), int64(r.Limit), 10)
	b = append(b, `,"nextOffset":`...)
	if r.NextOffset == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.NextOffset), 10)
	}
	return append(b, '}')
}

// appendJSON appends item as encoding/json would, in its fields' order and with their
// omitempty rules.
func (item *PromptItem) appendJSON(b []byte) []byte {
	b = appendTextString(append(b, `{"id":`...), item.ID)
	b = appendTextString(append(b, `,"title":`...), item.Title)
	if item.Content != nil {
		b = appendTextString(append(b, `,"content":`...), *item.Content)
	}
	if item.ContentOmitted {
		b = append(b, `,"contentOmitted":true`...)
	}
	b = appendTextString(append(b, `,"summary":`...), item.Summary)
	b = strconv.AppendInt(append(b, `,"contentBytes":`...), int64(item.ContentBytes), 10)
	b = append(b, `,"folderId":`...)
	if item.FolderID == nil {
		b = append(b, "null"...)
	} else {
		b = appendTextString(b, *item.FolderID)
	}
	if item.Emoji != nil {
		b = appendTextString(append(b, `,"emoji":`...), *item.Emoji)
	}
	if item.Color != nil {
		b = appendTextString(append(b, `,"color":`...), *item.Color)
	}
	if item.URL != nil {
		b = appendTextString(append(b, `,"url":`...), *item.URL)
	}
	b = item.CreatedAt.AppendJSON(append(b, `,"createdAt":`...))
	b = item.UpdatedAt.AppendJSON(append(b, `,"updatedAt":`...))
	return append(b, '}')
}

// appendTextString appends s as encoding/json writes a string without HTML escaping: UTF-8 as
// it is (the model reads the text; \u escapes would cost it tokens), control characters
// escaped, invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped. The wire's ASCII form
// (appendJSONString) is applied later, to the whole text.
func appendTextString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = appendByteEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
