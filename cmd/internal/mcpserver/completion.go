package mcpserver

import (
	"context"
	"sort"
	"strings"

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
		for i := range snap.prompts.len() {
			p := snap.prompts.at(i)
			add(p.id, i, rankMatch(typed, p.id, p.name, strings.ToLower(p.title)))
		}
	case folderURITemplate:
		for i, f := range snap.folders {
			add(f.info.ID, i, rankMatch(typed, f.info.ID, strings.ToLower(f.info.Name), f.lowerPath))
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
// case) without lowering a copy of it on every keystroke.
func rankMatch(typed, id, name, text string) int {
	switch {
	case typed == "":
		return 5
	case strings.EqualFold(typed, id) || typed == name:
		return 0
	case len(id) >= len(typed) && strings.EqualFold(id[:len(typed)], typed):
		return 1
	case strings.HasPrefix(name, typed) || strings.HasPrefix(text, typed):
		return 2
	case wordPrefix(text, typed):
		return 3
	case strings.Contains(text, typed) || strings.Contains(name, typed):
		return 4
	}
	return -1
}

// wordPrefix reports whether a word of text (after a space, '/', '-' or '_') starts with typed.
func wordPrefix(text, typed string) bool {
	for i := strings.Index(text, typed); i >= 0; {
		if i == 0 || strings.ContainsRune(" /-_", rune(text[i-1])) {
			return true
		}
		next := strings.Index(text[i+1:], typed)
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}
