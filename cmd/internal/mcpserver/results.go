package mcpserver

import (
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// Results are sized for a model's context (DESIGN §5): every byte a result carries lands in it,
// and Claude Code rejects a tool result over 25,000 tokens.
const (
	// MaxResultBytes bounds the text of any tool result.
	MaxResultBytes = 100_000
	// bodyPageBytes is how much of a long prompt body one get_prompt page carries, and
	// bodyPageText how much text it may take once escaped in the result's JSON (jsonTextLen):
	// a page of ordinary text ends at the first, one of control characters (six bytes each as
	// \u0001) at the second, and either way a page stays under MaxResultBytes.
	bodyPageBytes = 40_000
	bodyPageText  = 90_000
	// bodyPageTokens bounds a page's tokens (promptlib.Tokens): 40 KB of ids or emoji take more
	// than a result may.
	bodyPageTokens = MaxResultTokens - 3_000
	// listPageSize is list_prompts' default limit: without bodies, a default page is about 20 KB
	// of text.
	listPageSize = 50
	// searchPageSize is search_prompts' default limit. A search is ranked, so its first results
	// are the ones a model reads: 20 summaries are about 7 KB of text (1,800 tokens) where 50
	// were 18 KB, and nextOffset goes on.
	searchPageSize = 20
)

// PromptItem is a prompt as list_prompts and search_prompts show it: its summary and size, and
// its content only when asked for.
type PromptItem struct {
	ID             string  `json:"id"`
	Title          string  `json:"title"`
	Content        *string `json:"content,omitempty"`
	ContentOmitted bool    `json:"contentOmitted,omitempty"`
	Summary        string  `json:"summary"`
	ContentBytes   int     `json:"contentBytes"`
	FolderID       *string `json:"folderId"`
	// Absent when the prompt has none: on the sample library the nulls were 7% of a page's text,
	// and of the tokens it costs a model, for nothing a model can use.
	Emoji     *string        `json:"emoji,omitempty"`
	Color     *string        `json:"color,omitempty"`
	URL       *string        `json:"url,omitempty"`
	CreatedAt promptlib.Time `json:"createdAt"`
	UpdatedAt promptlib.Time `json:"updatedAt"`
}

// PromptsResult is a page of list_prompts or search_prompts.
type PromptsResult struct {
	Prompts    []PromptItem `json:"prompts"`
	Total      int          `json:"total"`
	Offset     int          `json:"offset"`
	Limit      int          `json:"limit"`
	NextOffset *int         `json:"nextOffset"`
}

// pageEnvelope and pageEnvelopeTokens bound a page's JSON outside its items: total, offset,
// limit, nextOffset.
const (
	pageEnvelope       = 200
	pageEnvelopeTokens = 60
)

// pageOf builds a page from prompts read at offset: each with its summary, and its content
// when asked for, as long as the page's text stays within MaxResultBytes and MaxResultTokens. A
// page that would pass ends early; nextOffset says where to go on.
func pageOf(prompts []dbread.Listed, total, offset, limit int, withContent bool) PromptsResult {
	res := PromptsResult{Prompts: make([]PromptItem, 0, len(prompts)), Total: total, Offset: offset, Limit: limit}
	size, tokens := pageEnvelope, pageEnvelopeTokens
	for _, p := range prompts {
		item := PromptItem{ID: p.ID, Title: p.Title, Summary: p.Summary, ContentBytes: p.ContentBytes, FolderID: p.FolderID,
			Emoji: p.Emoji, Color: p.Color, URL: p.URL, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		if withContent {
			item.Content = &p.Content
		}
		n, tk := itemSize(item)
		if withContent && (n > MaxResultBytes-pageEnvelope || tk > MaxResultTokens-pageEnvelopeTokens) {
			// A body that passes the limit even alone: list the prompt where it stands, say
			// where its content is, and go on (ending the page here would only put it first on
			// the next, omitted there all the same).
			item.Content, item.ContentOmitted = nil, true
			n, tk = itemSize(item)
		}
		if size+n > MaxResultBytes || tokens+tk > MaxResultTokens {
			break
		}
		size, tokens = size+n+1, tokens+tk+1
		res.Prompts = append(res.Prompts, item)
	}
	if next := offset + len(res.Prompts); next < total {
		res.NextOffset = &next
	}
	return res
}

// carried lists the prompts whose content the page carries as the gate would send it: a linked
// prompt's stored content is not its upstream resource's.
func (r PromptsResult) carried() []string {
	var ids []string
	for _, it := range r.Prompts {
		if it.Content != nil && !linked(it.URL) {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

// itemSize is an item's JSON size and tokens (promptlib.Tokens): measured when it carries a
// body, else safe bounds (its strings as escaped, plus the keys and fixed fields), which saves
// a second encoding of every item of every page.
func itemSize(item PromptItem) (bytes, tokens int) {
	if item.Content != nil {
		raw := item.appendJSON(nil)
		return len(raw), promptlib.Tokens(string(raw))
	}
	n := 320 + jsonTextLen(item.ID) + jsonTextLen(item.Title) + jsonTextLen(item.Summary)
	tk := itemFixedTokens + promptlib.Tokens(item.ID) + promptlib.Tokens(item.Title) + promptlib.Tokens(item.Summary)
	for _, s := range []*string{item.FolderID, item.Emoji, item.Color, item.URL} {
		if s != nil {
			n += jsonTextLen(*s)
			tk += promptlib.Tokens(*s) + 4 // and its key
		}
	}
	return n, tk
}

// itemFixedTokens bounds the tokens of an item's keys, times and numbers.
var itemFixedTokens = promptlib.Tokens(`{"id":"","title":"","summary":"","contentBytes":1000000,"folderId":null,` +
	`"createdAt":"2024-03-14T07:08:59.000Z","updatedAt":"2024-03-14T07:49:50.000Z","contentOmitted":true}`)

// jsonTextLen is the length of s inside a JSON string of a result's text, as encoding/json
// writes it (UTF-8 kept, <, > and & kept): a quote, a backslash or \n, \r, \t, \b, \f take two
// bytes, another control character, U+2028, U+2029 or an invalid byte six (\u0001, \ufffd).
// Counting bytes alone underestimates a title of control characters sixfold.
func jsonTextLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		if i+8 <= len(s) && jsonUnsafeBytes(load8(s, i)) == 0 {
			i += 8
			continue
		}
		c := s[i]
		switch {
		case jsonSafe[c]:
			i++
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n++
			i++
		case c < utf8.RuneSelf:
			n += 5
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				n += 5 // one byte becomes \ufffd
			case r == '\u2028' || r == '\u2029':
				n += 3 // three bytes become \u2028
			}
			i += size
		}
	}
	return n
}

// PromptResult is get_prompt's answer: the prompt, with its content whole or, over the limit,
// one page of it.
type PromptResult struct {
	promptlib.Prompt
	ContentBytes int `json:"contentBytes"`
	Page         int `json:"page"`
	Pages        int `json:"pages"`
	// LinkStatus is "ok" or "dead" for a linked prompt (url mcp+{server}:{uri}), whose content is
	// the upstream resource's; LinkError says why a dead one could not be read.
	LinkStatus string  `json:"linkStatus,omitempty"`
	LinkError  *string `json:"linkError,omitempty"`
}

// carried is the prompt when the result holds all of its content as the gate would send it:
// one page, and for a linked prompt the upstream resource, not the stored body of a dead link.
func (r PromptResult) carried() []string {
	if r.Pages != 1 || r.LinkStatus == linkDead {
		return nil
	}
	return []string{r.ID}
}

// bodyPages cuts a body into pages of at most bodyPageBytes bytes and bodyPageText of escaped
// text, each ending at a line break where one is near, and never inside a UTF-8 sequence.
// Joined, the pages are the body.
func bodyPages(body string) []string {
	var pages []string
	for {
		cut := pageCut(body)
		if cut == len(body) {
			return append(pages, body)
		}
		// Prefer the last line break in the page's final eighth.
		for i := cut - 1; i > cut-cut/8 && i > 0; i-- {
			if body[i] == '\n' {
				cut = i + 1
				break
			}
		}
		pages = append(pages, body[:cut])
		body = body[cut:]
	}
}

// pageCut is the length of body's longest prefix that ends on a character boundary and fits a
// page: at most bodyPageBytes, at most bodyPageText once escaped, and at most bodyPageTokens.
func pageCut(body string) int {
	cut := byteCut(body)
	return tokenPrefix(body[:cut], bodyPageTokens)
}

// byteCut is pageCut without the token bound.
func byteCut(body string) int {
	if len(body) <= bodyPageBytes && jsonTextLen(body) <= bodyPageText {
		return len(body)
	}
	text := 0
	for i := 0; i < len(body); {
		size := 1
		if body[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(body[i:])
		}
		text += jsonTextLen(body[i : i+size])
		if i+size > bodyPageBytes || text > bodyPageText {
			return i
		}
		i += size
	}
	return len(body)
}
