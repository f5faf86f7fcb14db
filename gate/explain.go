package gate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The outcomes of Explain.
const (
	OutcomeCritical = "critical"         // priority 10: sent in full whatever the tags
	OutcomeSent     = "sent"             // relevant and within the budget: sent in full
	OutcomeTOC      = "sent as contents" // relevant, too big for what is left: its table of contents sent
	OutcomeNamed    = "named"            // relevant but over the budget: named with its summary
	OutcomeCounted  = "counted"          // relevant, over the budget and beyond the index cap
	OutcomeAlready  = "already sent"     // relevant, sent earlier in the session (by a briefing or a tool result)
	OutcomeWeak     = "weak match"       // below the floor, among the best of those: named with its summary
	OutcomeBelow    = "below floor"      // matched, but below the relevance floor: left out
)

// Explanation says why one prompt was sent, named or left out, with the parts of its score.
type Explanation struct {
	Name      string
	Outcome   string
	Priority  int
	Bytes     int
	Tokens    int        // Doc.Tokens: a prompt over what one briefing carries is only named
	Relevance float64    // the sum of Tags and Feedback
	Tags      []TagScore // each tag's part (the best of the tag and its synonyms)
	Feedback  float64    // the part from the words of the best matches' titles and headings
	Boost     float64    // the priority's bounded boost (candidates only)
	Area      bool       // filed beside the best matches: a lower floor, ordered first (area.go)
	Lead      bool       // the best match of a tag (outside the area: one the area does not cover): a lower floor
	ByName    bool       // a tag was its name: a candidate first, whatever its relevance
	Floor     float64    // the relevance floor this prompt had to reach
}

// TagScore is one tag's part of a relevance.
type TagScore struct {
	Tag   string
	Score float64
	// Via is the synonym or implied topic (Implied set) the part came from, when it was not the
	// tag itself: "deploy 1.20 (implies health checks)" says why a prompt that never says
	// "deploy" was sent.
	Via     string
	Implied bool
	// Folder says the tag names one of the project's folders and weighs folderTagWeight
	// (rank.go): where the task is, beside the tags that say what it is about.
	Folder bool
}

// Explain ranks tags as Select does and explains every prompt that is critical or matched at
// all, in the order the briefing considers them: critical, sent, named, counted, already sent,
// then below the floor by relevance (the weak matches named first).
func Explain(ix *Index, tags []string, budget, limit int, sent map[string]bool) []Explanation {
	r := ix.rankTags(tags, sent, nil, true)
	sel := ix.pack(r, budget, limit)
	outcome := map[string]string{}
	for _, e := range slices.Concat(sel.Critical, sel.CriticalTOC, sel.CriticalNamed) {
		outcome[e.ID] = OutcomeCritical
	}
	for _, e := range sel.Full {
		outcome[e.ID] = OutcomeSent
	}
	for _, e := range sel.TOC {
		outcome[e.ID] = OutcomeTOC
	}
	for _, e := range sel.Listed {
		outcome[e.ID] = OutcomeNamed
	}
	for _, i := range r.already {
		outcome[ix.entries[i].ID] = OutcomeAlready
	}
	for _, e := range sel.Weak {
		outcome[e.ID] = OutcomeWeak
	}
	boost := map[int]float64{}
	order := append([]int(nil), r.critical...)
	for _, c := range r.cands {
		boost[c.i] = c.boost
		order = append(order, c.i)
		if outcome[ix.entries[c.i].ID] == "" {
			outcome[ix.entries[c.i].ID] = OutcomeCounted
		}
	}
	order = append(order, r.already...)
	listed := map[int]bool{}
	for _, i := range order {
		listed[i] = true
	}
	// The weak matches, as the briefing names them; then the rest below the floor (with any
	// prompt sent earlier that is no longer relevant enough to be reported so).
	for _, e := range sel.Weak {
		i := ix.byID[strings.ToLower(e.ID)]
		listed[i] = true
		order = append(order, i)
	}
	var below []int
	for i := range ix.entries {
		if !listed[i] && r.scores.total[i] > 0 {
			below = append(below, i)
		}
	}
	sortByScore(below, r.scores.total)
	order = append(order, below...)

	out := make([]Explanation, 0, len(order))
	for _, i := range order {
		e := &ix.entries[i]
		x := Explanation{Name: e.Name, Outcome: outcome[e.ID], Priority: e.Priority, Bytes: e.Bytes, Tokens: e.Tokens,
			Relevance: r.scores.total[i], Boost: boost[i]}
		if x.Outcome == "" {
			x.Outcome = OutcomeBelow
		}
		x.Area, x.Lead, x.ByName = r.scores.inArea[i], r.scores.lead[i], r.named[i]
		x.Floor = max(floorOf(e.Priority, x.Lead, x.Area)*r.top, minRelevance)
		x.Feedback = x.Relevance
		for ci, c := range r.concepts {
			if parts := r.scores.parts[int32(i)]; parts != nil && parts[ci] > 0 {
				ts := TagScore{Tag: c.tag, Score: parts[ci], Folder: c.weight != 1}
				if best := r.scores.best[int32(i)]; best != nil && best[ci] > 0 {
					a := c.alts[best[ci]]
					ts.Via, ts.Implied = a.text, a.implied
				}
				x.Tags = append(x.Tags, ts)
				x.Feedback -= parts[ci]
			}
		}
		if x.Feedback < 1e-9 {
			x.Feedback = 0
		}
		out = append(out, x)
	}
	return out
}

func sortByScore(idx []int, score []float64) {
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
}

// String is the explanation on one line: outcome, name, score parts.
func (x Explanation) String() string {
	var parts []string
	for _, t := range x.Tags {
		p := fmt.Sprintf("%s %.2f", t.Tag, t.Score)
		switch {
		case t.Implied:
			p += fmt.Sprintf(" (implies %s)", t.Via)
		case t.Via != "":
			p += fmt.Sprintf(" (as %s)", t.Via)
		}
		if t.Folder {
			p += fmt.Sprintf(" (names a folder: ×%g)", folderTagWeight)
		}
		parts = append(parts, p)
	}
	if x.Feedback > 0 {
		parts = append(parts, fmt.Sprintf("feedback %.2f", x.Feedback))
	}
	s := fmt.Sprintf("%-12s %s (priority %d, %d bytes, %d tokens): relevance %.2f", x.Outcome, x.Name, x.Priority, x.Bytes, x.Tokens, x.Relevance)
	if len(parts) > 0 {
		s += " = " + strings.Join(parts, " + ")
	}
	if x.Area {
		s += fmt.Sprintf("; in the best matches' folder (ordered ×%g)", areaWeight)
	}
	if x.Lead {
		s += "; leads a tag"
		if !x.Area {
			s += fmt.Sprintf(" the area does not cover (ordered ×%g)", areaWeight)
		}
	}
	if x.ByName {
		s += "; asked for by name"
	}
	if x.Boost != 0 {
		s += fmt.Sprintf("; priority boost %+.2f", x.Boost)
	}
	if x.Outcome == OutcomeBelow || x.Outcome == OutcomeWeak {
		s += fmt.Sprintf("; floor %.2f", x.Floor)
	}
	return s
}
