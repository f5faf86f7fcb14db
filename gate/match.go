package gate

import (
	"slices"
	"strings"
)

// Matching is deterministic: the same index, tags, budget and session state always give the same
// selection, in the same order.
//
//   - Tags are normalised with NormalizeTags, then folded (see fold) like the prompt fields.
//   - Hits: a tag hits a field when it is a substring of it; the fields are the prompt's name,
//     title, summary, chapters (all headings together) and folder path. Each field counts at
//     most once per tag, so one tag gives 0 to 5 hits and a prompt's hits are the sum over tags.
//   - Score = hits × priority.
//   - Inclusion by priority: 10 is always included, whatever the tags and the budget; 4–9 need
//     at least one hit; 1–3 need at least two.
//   - Order: priority-10 prompts first (by hits, then title), then the other included prompts by
//     score descending, then priority descending, then title, then id.
//   - Budget: in that order each prompt's full content (Entry.Bytes) is taken while it fits in
//     what is left of the byte budget. Priority-10 prompts are always taken and use the budget
//     up first. A prompt that does not fit is listed by its index line instead, and filling goes
//     on with the next one, so a smaller prompt further down can still be sent in full. At most
//     the index cap of such prompts are listed; the rest are counted (a broad tag can match
//     thousands).
//   - Prompts already sent in the session are not sent again: they are reported as already
//     provided when they match (a priority-10 prompt only when a tag hits it), and left out of
//     the remaining index.
//   - Remaining: the index entries neither selected nor already sent, capped as Index.Lines is.

// Hits counts how many (tag, field) pairs hit: see the matching rules above. tags must already
// be normalised.
func Hits(e *Entry, tags []string) int {
	hits := 0
	for _, t := range tags {
		t = fold(t)
		for f := range numFields {
			if strings.Contains(fold(e.field(f)), t) {
				hits++
			}
		}
	}
	return hits
}

// included reports whether a prompt of this priority with this many hits belongs in a briefing.
func included(priority, hits int) bool {
	switch {
	case priority >= CriticalPriority:
		return true
	case priority >= 4:
		return hits >= 1
	default:
		return hits >= 2
	}
}

// Selection is the outcome of matching tags against an index within a byte budget.
type Selection struct {
	Tags        []string // the normalised tags that were matched
	Critical    []Entry  // priority 10, sent in full
	Full        []Entry  // matched, sent in full within the budget
	Listed      []Entry  // matched but over the budget: shown by index line only, at most the cap
	MoreListed  int      // matched, over the budget and beyond the cap: counted, not listed
	AlreadySent []Entry  // matched, but sent earlier in the session: not repeated (at most the cap)
	Remaining   []Entry  // the rest of the index, capped like Index.Lines
	Omitted     int      // index entries neither selected nor in Remaining (beyond the cap)
}

// Sent is every entry the selection carries in full: Critical then Full.
func (s Selection) Sent() []Entry {
	return append(append([]Entry(nil), s.Critical...), s.Full...)
}

// sortKey packs the match order into one integer, so sorting thousands of matches is a plain
// integer sort: score descending, then priority descending, then title (and id) ascending. A
// score is at most MaxTags × numFields × 10 = 500 (10 bits), a priority at most 10 (4 bits).
func sortKey(score, priority int, rank int32) uint64 {
	return uint64(1023-score)<<48 | uint64(15-priority)<<40 | uint64(uint32(rank))
}

// keyEntry recovers the entry position from a sort key.
func (ix *Index) keyEntry(k uint64) int {
	return int(ix.byRank[uint32(k)])
}

// Select matches tags against the index following the rules above. budget is the byte budget
// for full content and limit the index cap for Remaining and Listed; sent holds the ids of the
// prompts already sent in the session (nil: none). Select changes nothing: the Session records
// what was sent.
func Select(ix *Index, tags []string, budget, limit int, sent map[string]bool) Selection {
	sel := Selection{Tags: NormalizeTags(tags)}
	hitsOf := make([]int, len(ix.entries))
	scratch := make([]bool, len(ix.entries)+1)
	for _, t := range sel.Tags {
		t = fold(t)
		for f := range ix.cols {
			ix.cols[f].addHits(t, hitsOf, scratch)
		}
	}
	// Positions of the sent prompts: a lookup per sent prompt, not one per index entry.
	wasSent := make([]bool, len(ix.entries))
	for id := range sent {
		if i, ok := ix.byID[id]; ok {
			wasSent[i] = true
		}
	}
	var critical, matched []uint64
	for i := range ix.entries {
		e := &ix.entries[i]
		hits := hitsOf[i]
		if !included(e.Priority, hits) {
			continue
		}
		if wasSent[i] {
			if (e.Priority < CriticalPriority || hits > 0) && len(sel.AlreadySent) < limit {
				sel.AlreadySent = append(sel.AlreadySent, *e)
			}
			continue
		}
		k := sortKey(hits*e.Priority, e.Priority, ix.rank[i])
		if e.Priority >= CriticalPriority {
			critical = append(critical, k)
		} else {
			matched = append(matched, k)
		}
	}
	// Priority-10 prompts share their priority, so they come out by hits, then title.
	slices.Sort(critical)
	slices.Sort(matched)

	left := budget
	taken := make([]bool, len(ix.entries))
	for _, k := range critical {
		i := ix.keyEntry(k)
		e := &ix.entries[i]
		sel.Critical = append(sel.Critical, *e)
		left -= e.Bytes
		taken[i] = true
	}
	for _, k := range matched {
		i := ix.keyEntry(k)
		e := &ix.entries[i]
		taken[i] = true
		switch {
		case e.Bytes <= left:
			sel.Full = append(sel.Full, *e)
			left -= e.Bytes
		case len(sel.Listed) < limit:
			sel.Listed = append(sel.Listed, *e)
		default:
			sel.MoreListed++
		}
	}

	skip := func(i int) bool { return taken[i] || wasSent[i] }
	rest := 0
	for i := range ix.entries {
		if !skip(i) {
			rest++
		}
	}
	for _, i := range pick(ix.entries, limit, skip) {
		sel.Remaining = append(sel.Remaining, ix.entries[i])
	}
	sel.Omitted = rest - len(sel.Remaining)
	return sel
}
