package gate

import "slices"

// Result is the structured content of a begin_session or read_prompts result, as
// schemas/begin_session.output.schema.json and read_prompts.output.schema.json describe it:
// prompt names by section, and the rendered text that carries the content.
type Result struct {
	Project         string   `json:"project"`
	Tags            []string `json:"tags"`
	Ungated         bool     `json:"ungated"`
	Critical        []string `json:"critical"`
	Matched         []string `json:"matched"`
	TableOfContents []string `json:"tableOfContents"`
	OverBudget      []string `json:"overBudget"`
	AlreadyProvided []string `json:"alreadyProvided"`
	WeakMatches     []string `json:"weakMatches"`
	Remaining       []string `json:"remaining"`
	Omitted         int      `json:"omitted"`
	Text            string   `json:"text"`
}

// Result pairs the briefing with its rendered text. Every list is non-nil, so it marshals as [].
func (b Briefing) Result(text string) Result {
	return Result{
		Project:         b.Project,
		Tags:            append([]string{}, b.Tags...),
		Ungated:         b.Ungated,
		Critical:        names(slices.Concat(b.Critical, b.CriticalTOC, b.CriticalNamed)),
		Matched:         names(b.Full),
		TableOfContents: names(b.TOC),
		OverBudget:      names(b.Listed),
		// The text says which the model has only as contents, and how to read the rest.
		AlreadyProvided: names(slices.Concat(b.AlreadySent, b.AlreadyTOC)),
		WeakMatches:     names(b.Weak),
		Remaining:       names(b.Remaining),
		Omitted:         b.Omitted,
		Text:            text,
	}
}

func names(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}
