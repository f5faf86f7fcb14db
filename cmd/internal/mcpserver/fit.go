package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// A form is the ways a model may read a briefing in the result that carries it, each of which
// the result's bound holds for (room.fits). Claude Code hands the model
// JSON.stringify(structuredContent) alone when a result has one (claude-code #79944), so a
// briefing is read as a JSON string, its quotes and line ends escaped, beside the result's other
// fields: a briefing of 19,100 tokens as text (promptlib.Tokens) was 22,100 so. Other clients
// read the text as it is, which for prose of short lines counts more: a line end is a token
// there, while ".\n" is one with the end of the sentence.
type form func(b gate.Briefing, text string) []string

// asResult is begin_session's and read_prompts' form: their text, and their structured result,
// the text beside the lists of the prompts' names.
func asResult(b gate.Briefing, text string) []string {
	return []string{text, stringify(b.Result(text))}
}

// framed is an intercepted call's form: after the header of another server's error
// (errorWithBriefing) or before the result as it is, and as a JSON string (in mcpctl's error,
// or a result's "briefing" field).
func framed(_ gate.Briefing, text string) []string {
	return []string{errorBriefingHeader + text, errorBriefingHeader + stringify(text)}
}

// fits reports whether every reading of b's text in form f holds in r.
func (r room) fits(f form, b gate.Briefing, text string) bool {
	bytes, tokens := r.over(f, b, text)
	return bytes <= 0 && tokens <= 0
}

// over is how many bytes and tokens the largest reading of b's text in form f passes r by: zero
// or less where it holds.
func (r room) over(f form, b gate.Briefing, text string) (bytes, tokens int) {
	bytes, tokens = -r.bytes, -r.tokens
	for _, seen := range f(b, text) {
		bytes, tokens = max(bytes, len(seen)-r.bytes), max(tokens, promptlib.Tokens(seen)-r.tokens)
	}
	return bytes, tokens
}

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
		overBytes, overTokens := in.over(f, b, text)
		if overBytes <= 0 && overTokens <= 0 {
			break
		}
		// A line's "- name: summary\n", and room for the count line that grows or appears.
		// A line cut takes at least its bytes from each reading.
		overBytes, overTokens = overBytes+64, overTokens+16
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

// fitNaming is fitBriefing, and where the lines it cuts are not enough, b naming its last
// prompts instead of sending them: the fewest that make it hold (gate.Briefing.NameLast), as a
// briefing holds less the more it names. The caller records that those were not sent
// (gate.Session.Unsent). When even naming them all does not hold, it returns b so.
func fitNaming(ctx context.Context, r gate.Renderer, b gate.Briefing, load gate.Bodies, in room, f form) (gate.Briefing, string, []string, error) {
	load = memoBodies(load) // each try renders the briefing again, and a body is a query or an upstream's read
	fb, text, unknown, err := fitBriefing(ctx, r, b, load, in, f)
	if err != nil || in.fits(f, fb, text) {
		return fb, text, unknown, err
	}
	// fitBriefing holds for a naming when it does with every line cut, which it cuts before it
	// gives up: so the tries are of that, a render each, and only the answer is fitted.
	lo, hi := 0, len(b.Full)+len(b.TOC) // lo does not hold; hi does, or is the answer if none does
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		lean := bare(b.NameLast(mid))
		text, _, err := r.Briefing(ctx, lean, load)
		if err != nil {
			return lean, text, nil, err
		}
		if in.fits(f, lean, text) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return fitBriefing(ctx, r, b.NameLast(hi), load, in, f)
}

// memoBodies is load remembering what it read, and what it did not find, for one briefing's
// renders.
func memoBodies(load gate.Bodies) gate.Bodies {
	var mu sync.Mutex
	known := map[string]string{}
	missing := map[string]bool{}
	return func(ctx context.Context, ids []string) (map[string]string, error) {
		mu.Lock()
		defer mu.Unlock()
		var need []string
		for _, id := range ids {
			if _, ok := known[id]; !ok && !missing[id] {
				need = append(need, id)
			}
		}
		if len(need) > 0 {
			got, err := load(ctx, need)
			if err != nil {
				return nil, err
			}
			for _, id := range need {
				if body, ok := got[id]; ok {
					known[id] = body
				} else {
					missing[id] = true
				}
			}
		}
		out := make(map[string]string, len(ids))
		for _, id := range ids {
			if body, ok := known[id]; ok {
				out[id] = body
			}
		}
		return out, nil
	}
}

// bare is b with every line fitBriefing cuts cut, counted as it counts them.
func bare(b gate.Briefing) gate.Briefing {
	b.Omitted += len(b.Remaining) + len(b.Weak)
	b.MoreListed += len(b.Listed)
	b.Remaining, b.Weak, b.Listed, b.PromptIndex = nil, nil, nil, ""
	return b
}

// capNote ends a briefing that capText cut. Only a priority-10 prompt is cut short (fitNaming
// names the others first), and it counts as sent: get_prompt reads it whole.
const capNote = "\n\n[The briefing is cut here: with the project's texts it would pass what one tool result may carry. " +
	"read_prompts fetches the prompts it names; get_prompt reads whole a prompt cut short above (search_prompts with its title finds its id).]\n"

// capText is b's text cut at a line so that its form f holds in room, saying so: the last resort
// when the priority-10 prompts (at most 80 KB, 14,000 tokens) and the project's own gate texts
// leave a briefing over the bound whatever fitNaming leaves out. A client refuses a larger result
// whole.
func capText(b gate.Briefing, text string, in room, f form) string {
	if in.fits(f, b, text) {
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
		if in.fits(f, b, cut(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return cut(lo)
}
