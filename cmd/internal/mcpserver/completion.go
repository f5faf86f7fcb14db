package mcpserver

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxCompletions is how many values one completion answer holds: enough to pick from, few
// enough to read.
const maxCompletions = 20

// idCompleter completes the {id} of the prompt and folder resource templates. What the user
// types is matched against ids and against what people remember — a prompt's title and MCP
// name, a folder's path — and the answer is the matching ids, best first.
type idCompleter struct{ s *promptSurface }

var _ server.ResourceCompletionProvider = idCompleter{}

// CompleteResourceArgument ranks matches: an exact id or name, then an id prefix, then a name,
// title or path prefix, then a word of the title or path starting with the value, then the
// value anywhere in them. Ties keep the listing order (prompts by name, folders in tree order).
func (c idCompleter) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if arg.Name != "id" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	typed := strings.ToLower(strings.TrimSpace(arg.Value))
	snap := c.s.snap()
	type match struct {
		id   string
		rank int
		pos  int
	}
	var matches []match
	add := func(id string, pos int, rank int) {
		if rank >= 0 {
			matches = append(matches, match{id, rank, pos})
		}
	}
	switch uri {
	case promptURITemplate:
		var lower []byte
		for i := range snap.prompts.len() {
			p := snap.prompts.at(i)
			lower = appendLower(lower[:0], p.title)
			add(p.id, i, rankMatch(typed, p.id, p.name, lower))
		}
	case folderURITemplate:
		for i, f := range snap.folders {
			add(f.info.ID, i, rankMatch(typed, f.info.ID, strings.ToLower(f.info.Name), []byte(f.lowerPath)))
		}
	default:
		return &mcp.Completion{Values: []string{}}, nil
	}
	sort.SliceStable(matches, func(i, j int) bool {
		if matches[i].rank != matches[j].rank {
			return matches[i].rank < matches[j].rank
		}
		return matches[i].pos < matches[j].pos
	})
	values := make([]string, 0, min(len(matches), maxCompletions))
	for _, m := range matches[:min(len(matches), maxCompletions)] {
		values = append(values, m.id)
	}
	return &mcp.Completion{Values: values, Total: len(matches), HasMore: len(matches) > maxCompletions}, nil
}

// rankMatch scores how well typed (lower case) matches an item, lower is better, -1 for no
// match. Everything matches an empty value. id is compared ignoring case (the app writes upper
// case); text (a title or path) comes lowered into a buffer the caller reuses: lowering a copy
// of every title on every keystroke was most of a completion at 10k prompts.
func rankMatch(typed, id, name string, text []byte) int {
	t := []byte(typed) // typed is short: one small copy a call
	switch {
	case typed == "":
		return 5
	case strings.EqualFold(typed, id) || typed == name:
		return 0
	case len(id) >= len(typed) && strings.EqualFold(id[:len(typed)], typed):
		return 1
	case strings.HasPrefix(name, typed) || bytes.HasPrefix(text, t):
		return 2
	case wordPrefix(text, t):
		return 3
	case bytes.Contains(text, t) || strings.Contains(name, typed):
		return 4
	}
	return -1
}

// wordPrefix reports whether a word of text (after a space, '/', '-' or '_') starts with typed.
func wordPrefix(text, typed []byte) bool {
	for i := bytes.Index(text, typed); i >= 0; {
		if i == 0 || bytes.IndexByte([]byte(" /-_"), text[i-1]) >= 0 {
			return true
		}
		next := bytes.Index(text[i+1:], typed)
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// appendLower appends s in lower case to b, without a copy of s for ASCII text.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return append(b[:len(b)-i], strings.ToLower(s)...)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}
