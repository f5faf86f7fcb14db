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
	// bodyPageBytes is how much of a long prompt body one get_prompt page carries: with JSON
	// escaping and the other fields, a page stays under MaxResultBytes.
	bodyPageBytes = 40_000
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

// pageOf builds a page from prompts read at offset: each with its summary, and its content
// when asked for, as long as the page's text stays within MaxResultBytes. A page that would
// pass it ends early; nextOffset says where to go on.
func pageOf(prompts []dbread.Listed, total, offset, limit int, withContent bool) PromptsResult {
	res := PromptsResult{Prompts: make([]PromptItem, 0, len(prompts)), Total: total, Offset: offset, Limit: limit}
	size := 200 // the envelope: total, offset, limit, nextOffset
	for _, p := range prompts {
		item := PromptItem{ID: p.ID, Title: p.Title, Summary: p.Summary, ContentBytes: p.ContentBytes, FolderID: p.FolderID,
			Emoji: p.Emoji, Color: p.Color, URL: p.URL, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		if withContent {
			item.Content = &p.Content
		}
		n := itemSize(item)
		if withContent && n > MaxResultBytes-size && len(res.Prompts) == 0 {
			// One body alone passes the limit: list the prompt, and say where its content is.
			item.Content, item.ContentOmitted = nil, true
			n = itemSize(item)
		}
		if size+n > MaxResultBytes {
			break
		}
		size += n + 1
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

// itemSize is an item's JSON size: measured when it carries a body, else a safe bound (every
// character of its strings escaped to two bytes, plus the keys and fixed fields), which saves a
// second encoding of every item of every page.
func itemSize(item PromptItem) int {
	if item.Content != nil {
		return len(item.appendJSON(nil))
	}
	n := 320 + 2*(len(item.ID)+len(item.Title)+len(item.Summary))
	for _, s := range []*string{item.FolderID, item.Emoji, item.Color, item.URL} {
		if s != nil {
			n += 2 * len(*s)
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

// bodyPages cuts a body into pages of at most bodyPageBytes, each ending at a line break where
// one is near, and never inside a UTF-8 sequence. Joined, the pages are the body.
func bodyPages(body string) []string {
	if len(body) <= bodyPageBytes {
		return []string{body}
	}
	var pages []string
	for len(body) > bodyPageBytes {
		cut := bodyPageBytes
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		// Prefer the last line break in the page's final eighth.
		for i := cut - 1; i > cut-bodyPageBytes/8 && i > 0; i-- {
			if body[i] == '\n' {
				cut = i + 1
				break
			}
		}
		pages = append(pages, body[:cut])
		body = body[cut:]
	}
	return append(pages, body)
}
