package mcpserver

import (
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

// MaxResultTokens bounds the tokens of any result mcpctl makes or passes on, as promptlib.Tokens
// counts them: lists, pages, briefings, a briefing joined to an intercepted result, and a project
// server's result, paged past it. Claude Code refuses a tool result over 25,000 tokens
// (MAX_MCP_OUTPUT_TOKENS), counted apart from its 50,000-character limit; a byte bound alone does
// not keep under it, since ids, times and code take a token for every 1.5 to 2.5 bytes where prose
// takes one for 4 to 5. The margin is for tokenizers that split more finely than the one the
// estimate was checked with.
const MaxResultTokens = 20_000

// room is what a tool result may still carry: bytes of text, and tokens as promptlib.Tokens counts
// them. A client refuses a result over either of its limits.
type room struct{ bytes, tokens int }

// wholeResult is the room of a whole tool result.
var wholeResult = room{MaxResultBytes, MaxResultTokens}

// holds reports whether text fits r.
func (r room) holds(text string) bool {
	return len(text) <= r.bytes && promptlib.Tokens(text) <= r.tokens
}

// less is r once text takes its part of it.
func (r room) less(text string) room {
	return room{r.bytes - len(text), r.tokens - promptlib.Tokens(text)}
}

// tokenPrefix is the length of s's longest prefix that ends on a character boundary and takes
// at most limit tokens (promptlib.Tokens), found by bisection: a prefix's estimate never shrinks as
// it grows.
func tokenPrefix(s string, limit int) int {
	if promptlib.Tokens(s) <= limit {
		return len(s)
	}
	lo, hi := 0, len(s) // s[:lo] fits, s[:hi] does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		for mid > lo && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid == lo {
			break
		}
		if promptlib.Tokens(s[:mid]) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
