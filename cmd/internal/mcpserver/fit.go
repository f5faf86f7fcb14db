package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// A form is a briefing as a model reads it in the result that carries it: what the result's
// bound is on. Claude Code hands the model JSON.stringify(structuredContent) alone when a result
// has one (claude-code #79944), so a briefing is read as a JSON string, its quotes and line ends
// escaped, beside the result's other fields: a briefing of 19,100 tokens as text (promptlib.Tokens)
// was 22,100 so.
type form func(b gate.Briefing, text string) string

// asResult is begin_session's and read_prompts' form: their structured result, the text beside
// the lists of the prompts' names.
func asResult(b gate.Briefing, text string) string { return stringify(b.Result(text)) }

// framed is an intercepted call's form, the longer of two: the briefing as a JSON string (in
// mcpctl's error, or a result's "briefing" field), and after the header of another server's
// error (errorWithBriefing).
func framed(_ gate.Briefing, text string) string { return errorBriefingHeader + stringify(text) }

// stringify is v as JSON.stringify writes it: <, > and & as they are.
func stringify(v any) string {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic("mcpserver: a briefing does not encode: " + err.Error()) // strings and string lists
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// fitBriefing renders b so that its form f holds in room where it can. The gate bounds the
// prompt content a briefing carries, but not its lines naming prompts, which grow with the
// project's indexCap and the matches past the budget: 1,000 index lines alone are about 100 KB.
// So lines are cut, the index's first, then the weak matches', then the over-budget matches',
// the last of each first; the briefing counts what it cut and says how many more there are, for
// read_prompts to fetch.
func fitBriefing(ctx context.Context, r gate.Renderer, b gate.Briefing, load gate.Bodies, in room, f form) (gate.Briefing, string, []string, error) {
	text, unknown, err := r.Briefing(ctx, b, load)
	for err == nil {
		seen := f(b, text)
		if in.holds(seen) {
			break
		}
		// A line's "- name: summary\n", and room for the count line that grows or appears.
		// A line cut takes at least its bytes from the form.
		overBytes, overTokens := len(seen)-in.bytes+64, promptlib.Tokens(seen)-in.tokens+16
		cut := func(es []gate.Entry) ([]gate.Entry, int) {
			k := len(es)
			for bytes, tokens := 0, 0; k > 0 && (bytes < overBytes || tokens < overTokens); k-- {
				line := es[k-1].Line()
				bytes, tokens = bytes+len(line)+1, tokens+promptlib.Tokens(line)+1
			}
			return es[:k], len(es) - k
		}
		var n int
		switch {
		case len(b.Remaining) > 0:
			b.Remaining, n = cut(b.Remaining)
			b.Omitted += n
		case len(b.Weak) > 0:
			b.Weak, n = cut(b.Weak)
			b.Omitted += n
		case len(b.Listed) > 0:
			b.Listed, n = cut(b.Listed)
			b.MoreListed += n
		case b.PromptIndex != "":
			// A gate text that shows the whole index ({{prompt_index}}) goes without it.
			b.PromptIndex = ""
		default:
			return b, text, unknown, nil // prompt content and the texts alone: the caller decides
		}
		text, unknown, err = r.Briefing(ctx, b, load)
	}
	return b, text, unknown, err
}

// capNote ends a briefing that capText cut. A prompt cut short counts as sent (read_prompts
// would not send it again): get_prompt reads it whole.
const capNote = "\n\n[The briefing is cut here: with the project's texts it would pass what one tool result may carry. " +
	"read_prompts fetches the prompts it names; get_prompt reads whole a prompt cut short above (search_prompts with its title finds its id).]\n"

// capText is b's text cut at a line so that its form f holds in room, saying so: the last resort
// when the prompt content (at most 80 KB, 14,000 tokens) and the project's own gate texts leave a
// briefing over the bound whatever fitBriefing cuts. A client refuses a larger result whole.
func capText(b gate.Briefing, text string, in room, f form) string {
	if in.holds(f(b, text)) {
		return text
	}
	// The longest cut whose form holds, by bisection: a form grows with its text.
	cut := func(n int) string {
		if i := strings.LastIndexByte(text[:n], '\n'); i >= 0 {
			return text[:i] + capNote
		}
		return capNote
	}
	lo, hi := 0, len(text) // cut(lo) holds, or nothing does; cut(hi) does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if in.holds(f(b, cut(mid))) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return cut(lo)
}
