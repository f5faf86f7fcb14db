package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// argumentDescription says whether an argument is required, its default, and where the body
// uses it (promptlib.Placeholder.Where), so a client can ask the user for a value with some
// context.
func argumentDescription(a promptArg) string {
	kind := "Required"
	if !a.Required {
		kind = "Optional, default " + strconv.Quote(a.Default)
	}
	return kind + "; used in " + a.where + "."
}

// signature lists a prompt's arguments for error messages: `language (required), tone
// (optional, default "friendly")`.
func signature(args []promptlib.Placeholder) string {
	if len(args) == 0 {
		return "no arguments"
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if a.Required {
			parts[i] = a.Name + " (required)"
		} else {
			parts[i] = fmt.Sprintf("%s (optional, default %q)", a.Name, a.Default)
		}
	}
	return strings.Join(parts, ", ")
}

// getPrompt renders a library prompt as one user message. It reads the prompt afresh, so the
// text is what the library holds now even if the listing lags a change by a moment.
func (s *promptSurface) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Name
	sp, ok := s.snap().prompt(name)
	if !ok {
		return nil, fmt.Errorf("prompt %q is no longer in the library: %w; call prompts/list for the current names", name, errNotServed)
	}
	p, err := s.db.Prompt(ctx, sp.id)
	if errors.Is(err, dbread.ErrNotFound) {
		return nil, fmt.Errorf("prompt %q was just deleted from the library: %w; call prompts/list for the current names", name, errNotServed)
	}
	if errors.Is(err, dbread.ErrDamaged) {
		return nil, fmt.Errorf("read prompt %q: the library file is damaged: %w. %s", name, err, damagedAdvice)
	}
	if err != nil {
		return nil, fmt.Errorf("read prompt %q: %w; try again in a moment", name, err)
	}
	body, link, reason := s.up.delivered(ctx, s.log, p)
	text, err := promptlib.Render(body, req.Params.Arguments)
	if err != nil {
		return nil, argumentsProblem(name, promptlib.Placeholders(p.Content), err)
	}
	switch {
	case link == linkDead:
		text += "\n\n(The linked content at " + *p.URL + " could not be read: " + reason + ". This is the prompt's stored text.)"
	case link == "" && p.URL != nil && *p.URL != "":
		text += "\n\nReference: " + *p.URL
	}
	return mcp.NewGetPromptResult(promptlib.Summary(p.Content), []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
	}), nil
}

// argumentsProblem says what is wrong with a prompts/get call's arguments and what to send.
func argumentsProblem(name string, args []promptlib.Placeholder, err error) error {
	var ae *promptlib.ArgumentError
	if !errors.As(err, &ae) {
		return err
	}
	var parts []string
	if len(ae.Missing) > 0 {
		parts = append(parts, "missing required "+plural("argument", len(ae.Missing))+" "+quoted(ae.Missing))
	}
	if len(ae.Unknown) > 0 {
		parts = append(parts, "unknown "+plural("argument", len(ae.Unknown))+" "+quoted(ae.Unknown))
	}
	return fmt.Errorf("prompt %q: %s. It takes %s; call prompts/get again with those arguments",
		name, strings.Join(parts, "; "), signature(args))
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// checkGetPrompt runs before mcp-go looks the prompt up: a known prompt with good arguments is
// routed to the library (quirks.go, 2); a request the handler would refuse gets -32602 with a
// message that names the problem and says what to send (quirks.go, 1). The handler checks again
// with the prompt as stored, for the moment between the two.
func (s *promptSurface) checkGetPrompt(_ context.Context, _ any, req *mcp.GetPromptRequest) {
	if req == nil {
		return
	}
	name := req.Params.Name
	if name == "" {
		req.Params.Name = carryInvalid("params.name is required: a prompt's name from prompts/list")
		return
	}
	if s.up.servesPrompt(name) {
		route(req)
		return
	}
	if msg, ok := s.up.notServed("prompt", name); ok {
		// A project server's prompt, of a server not ready yet or that offers no such prompt:
		// library prompt names never hold its "__".
		req.Params.Name = carry(msg)
		return
	}
	if s.untrusted != nil {
		if msg, ok := s.untrusted("prompt", name); ok {
			// A prompt of a server that is not started until the user trusts the project file:
			// "unknown prompt" would have the assistant conclude it does not exist.
			req.Params.Name = carry(msg + ". " + untrustedAdvice)
			return
		}
	}
	snap := s.snap()
	sp, ok := snap.prompt(name)
	if !ok {
		hint := "Call prompts/list for every name"
		if titled := snap.titledNames(name, 3); len(titled) > 0 {
			// Asked by title: names are the title's ASCII slug, and a title in another
			// script has none ("コードレビュー" is prompt-3580).
			req.Params.Name = carry("unknown prompt '" + name + "': prompts are named by their title's slug, and the prompt of that title is named " + orList(titled) + ".")
			return
		}
		if near := snap.closestNames(name, 3); len(near) > 0 {
			hint = "Did you mean " + orList(near) + "? " + hint
		}
		req.Params.Name = carry("unknown prompt '" + name + "': it is not a prompt of this library. " + hint + ".")
		return
	}
	args := sp.placeholders()
	if err := promptlib.CheckArguments(args, req.Params.Arguments); err != nil {
		req.Params.Name = carry(argumentsProblem(name, args, err).Error())
		return
	}
	route(req)
}

func orList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// titledNames are the names of up to n prompts whose title is title, letter case aside.
func (s *snapshot) titledNames(title string, n int) []string {
	title = strings.TrimSpace(title)
	var out []string
	for i := 0; i < s.prompts.len() && len(out) < n; i++ {
		if strings.EqualFold(s.prompts.titleAt(i), title) {
			out = append(out, s.prompts.nameAt(i))
		}
	}
	return out
}

// closestNames suggests up to n served names for a mistyped one: names that start with it
// (or it with them) first, then names that contain it, then those within a small edit
// distance, nearest first.
func (s *snapshot) closestNames(typed string, n int) []string {
	typed = strings.ToLower(strings.TrimSpace(typed))
	if typed == "" {
		return nil
	}
	slug := promptlib.Slug(typed)
	if slug == "prompt" && !strings.Contains(typed, "prompt") {
		return nil // a name with no ASCII letter or digit: Slug's stand-in is like nothing typed
	}
	limit := max(2, len(slug)/3)
	type cand struct {
		name string
		rank int
		dist int
	}
	var cands []cand
	for i := range s.prompts.len() {
		name := s.prompts.nameAt(i)
		switch {
		case strings.HasPrefix(name, slug) || strings.HasPrefix(slug, name):
			cands = append(cands, cand{name, 0, abs(len(name) - len(slug))})
		case strings.Contains(name, slug):
			cands = append(cands, cand{name, 1, len(name) - len(slug)})
		case abs(len(name)-len(slug)) <= limit:
			if d := editDistance(slug, name, limit); d <= limit {
				cands = append(cands, cand{name, 2, d})
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.name < b.name
	})
	var out []string
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance of a and b (bytes; names are ASCII), or limit+1
// as soon as it is sure to exceed limit.
func editDistance(a, b string, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
