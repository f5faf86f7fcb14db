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
func (c idCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if uri != promptURITemplate && uri != folderURITemplate {
		// A project server's template: its server completes it.
		if srv, ok := c.s.up.templateServer(uri); ok {
			return c.s.up.complete(ctx, srv, mcp.ResourceReference{URI: uri}, arg, cc)
		}
		return &mcp.Completion{Values: []string{}}, nil
	}
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

// promptCompleter completes the arguments of a project server's prompt by asking the server.
// Library prompts' arguments are free text: they have no completion.
type promptCompleter struct{ s *promptSurface }

var _ server.PromptCompletionProvider = promptCompleter{}

func (c promptCompleter) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if !c.s.up.servesPrompt(name) {
		return &mcp.Completion{Values: []string{}}, nil
	}
	srv, _ := c.s.up.sup.Owner(name)
	return c.s.up.complete(ctx, srv.Name(), mcp.PromptReference{Name: name}, arg, cc)
}

// templateServer is the project server a resource template registered by sync is read from.
func (u *upstreams) templateServer(uri string) (string, bool) {
	if u == nil {
		return "", false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	srv, ok := u.templates[uri]
	return srv, ok
}

// complete forwards a completion to the project server that serves ref. It never fails: a
// client asks on every keystroke and shows an error as a broken input field, so a server that
// does not complete, is down, or answers with an error gives no values, and the reason goes to
// mcpctl's log at debug level (a server down is already logged, once per failure).
func (u *upstreams) complete(ctx context.Context, name string, ref any, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	res, err := u.sup.Server(name).Complete(ctx, ref, arg, cc.Arguments)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err() // cancelled: the wire sends no response
	case err != nil:
		u.log.Debug("upstream: completion answered with none", "server", name, "err", err)
		return &mcp.Completion{Values: []string{}}, nil
	}
	if len(res.Values) > maxServerCompletions {
		// The protocol's bound: a server that sends more breaks it for the client.
		res.Values, res.HasMore = res.Values[:maxServerCompletions], true
	}
	return res, nil
}

// maxServerCompletions is the protocol's bound on one completion answer's values.
const maxServerCompletions = 100

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
