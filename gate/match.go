package gate

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
)

// Selection is deterministic: the same index, tags, budget and session state always give the
// same selection, in the same order.
//
//   - Relevance is ranked as rank.go says (whole stemmed words, field weights, BM25F, synonyms).
//   - The relevance floor: a prompt is a candidate when its relevance is above minRelevance and
//     at least a share of the scale, the mean of the two best matches' relevances (one
//     prompt matching every tag does not set the scale alone; priority 10 apart, and sent or
//     not: the floor is the tags', not the session's): floorShare in general;
//     areaFloor for a prompt in the task's area, the folders of the best matches (area.go); leadFloor for a prompt that is
//     the best match of one tag (within conceptShare of it) that the area does not cover: the
//     prompt about "invoices" belongs in a briefing for ["api", "pagination", "invoices"] even
//     when others match two of the tags. Priorities 1–3 need lowFloorShare whatever else holds. Below its floor a prompt
//     matched only incidentally: a word in a long body, a folder name, one tag's word in a
//     prompt about something else.
//   - The order key of a candidate is its relevance, areaWeight times it in the area or when it
//     leads a tag, plus the priority's bounded boost, priorityBoost × the floor's scale ×
//     (priority − 5) / 5: priority reorders candidates of similar relevance but never lifts a
//     prompt over the floor or multiplies incidental hits.
//   - Priority 10 is always included in full, whatever the tags and the budget, and uses the
//     budget up first.
//   - Packing: in order, each candidate's full content (Doc.Bytes) is taken while it fits what
//     is left of the byte budget and of what one briefing carries (wholeBriefing, whose tokens
//     bind first for code); one that does not fit is named by its index line (at most the
//     index cap; the rest are counted), and packing goes on, so a smaller prompt further down
//     can still be sent in full.
//   - A tag that is a prompt's name of more than one word, whole (as briefings print names),
//     puts that prompt first whatever its relevance: the way to fetch a weak match, or any
//     prompt the index names.
//   - Prompts already sent in the session (by a briefing, or in full by a tool result:
//     Session.Received) are not sent again: they are reported as already provided when they
//     are candidates (a priority-10 prompt only when it is relevant), and
//     left out of the remaining index. So are those whose table of contents a briefing sent
//     (AlreadyTOC): the model reads their sections, and the same contents again would tell it
//     nothing. Only its name as a tag sends such a prompt again, whole, when it fits what the
//     briefing has left (the budget; priority 10, wholeBriefing); never as its contents.
//   - Weak matches: the best matches below the floor (at most weakCap, within the index cap) are
//     named with their summaries, before the rest of the index. The floor is where a lexical match
//     stops telling; the assistant reading the summary can tell whether "CI Runners" matters for
//     a slow pipeline, and fetch it with read_prompts.
//   - Remaining: the index entries neither selected, weak matches nor already sent, capped as
//     Index.Lines is (less the weak matches named).
//
// Tuned on testdata/gate (tuning half only).
var (
	floorShare    = 0.6
	lowFloorShare = 0.6
	minRelevance  = 0.05
	priorityBoost = 0.2
	leadFloor     = 0.5
	// floorScaleSecond is the second best relevance's share of the floor's scale (top).
	floorScaleSecond = 0.5
)

// Selection is the outcome of matching tags against an index within a byte budget.
type Selection struct {
	Tags          []string // the normalised tags that were matched
	Critical      []Entry  // priority 10, sent in full
	CriticalTOC   []Entry  // priority 10 past what a briefing carries in full (wholeBriefing): as tables of contents
	CriticalNamed []Entry  // priority 10 past that, without contents: named with id and size, for get_prompt
	Full          []Entry  // relevant, sent in full within the budget
	TOC           []Entry  // relevant but over the budget in full, sent as a table of contents (Doc.TOCBytes)
	Room          int      // the prompt content a briefing may carry: the budget, at most maxBriefingBytes
	Listed        []Entry  // relevant but over the budget: named with their summary, at most the cap
	MoreListed    int      // relevant, over the budget and beyond the cap: counted, not listed
	AlreadySent   []Entry  // relevant, but the model has them from this session: not repeated (at most the cap)
	AlreadyTOC    []Entry  // relevant, but the model has their tables of contents from this session: not repeated (within the cap, after AlreadySent)
	TOCHeld       int      // prompts the session has only as tables of contents that are not in AlreadyTOC: left out of Remaining too
	Weak          []Entry  // matched below the floor, best first: named (at most weakCap, within the cap)
	Remaining     []Entry  // the rest of the index, capped like Index.Lines less the weak matches
	Omitted       int      // index entries neither selected, weak matches nor in Remaining: beyond the cap, or cut to keep the result within its size
}

// Sent is every entry the selection carries in full: Critical then Full.
func (s Selection) Sent() []Entry {
	return append(append([]Entry(nil), s.Critical...), s.Full...)
}

// Reranker chooses among the candidates of a selection and orders them, for example by asking
// an LLM which prompts a task needs (DESIGN §9). It is given the candidates above the relevance
// floor, best first, then the best matches below the floor (rerankBelow), and answers ids in
// the order it prefers. What it names is sent, in its order, within the budget. Every candidate
// it does not name (but one a tag asks for by name) is named with its summary as a weak match,
// ahead of the matches below the floor it leaves out, which stay weak matches: the floor is
// where a lexical match stops telling, and a model that reads the summaries can tell "Health
// Checks" is needed for a deploy though its words are not the task's, and that "Build Caching"
// is not needed for a cache of product prices though they share a word. Nothing it leaves out
// is lost to the assistant, which can fetch it with read_prompts. Unknown ids are ignored.
// Priority 10 is never its to decide. No ids and no error is an answer: the task needs none of
// the candidates, and all are named. On an error, or ids of which none is a candidate, the
// deterministic selection stands.
//
// make eval's "ideal re-rank" rows measure the design with a re-ranker that knows the labels.
// Sending what it leaves out after what it names would cap begin_session's precision at 44 %
// however good the model; naming it lets precision follow the model's judgement. Offering 5
// matches below the floor capped recall at 85 % (68 % on intercept), offering 15 at 90 % (78 %).
type Reranker interface {
	Rerank(ctx context.Context, task Task, candidates []Entry) (ids []string, err error)
}

// Task is what a Reranker judges the candidates against. Only Tags enter the deterministic
// ranking: the task sentence, weighed as key terms beside the tags, lowered begin_session's
// recall and precision on testdata/gate, while a model reads it better than the tags.
type Task struct {
	Tags []string // the tags the candidates were matched by (normalised when a Reranker gets them)
	// Text is the task in the assistant's words, begin_session's or read_prompts' task argument
	// (on one line, at most maxTaskText characters, when a Reranker gets it); empty when it gave
	// none.
	Text string
	// Call is an intercepted call as the assistant made it, its tool and JSON arguments (at most
	// maxCallText characters): the sentence it was given says more to a model than the key terms
	// taken from it. Empty for begin_session and read_prompts, whose tags are the assistant's own.
	Call string
}

// candidate is one relevant entry with its order key.
type candidate struct {
	i     int
	rel   float64
	order float64
	boost float64 // the priority's part of order
	// nameOnly is a candidate a Reranker did not choose: named as a weak match, not sent.
	nameOnly bool
	// wholeOnly is a prompt whose table of contents the session sent, asked for by name: sent
	// in full when it fits, else reported as already provided, never sent as its contents again.
	wholeOnly bool
}

// Select matches tags against the index following the rules above. budget is the byte budget
// for full content and limit the index cap for Remaining and Listed; sent holds the ids of the
// prompts already sent in the session (nil: none). Select changes nothing: the Session records
// what was sent.
func Select(ix *Index, tags []string, budget, limit int, sent map[string]bool) Selection {
	return SelectReranked(context.Background(), ix, Task{Tags: tags}, budget, limit, sent, nil)
}

// SelectReranked is Select with the candidates of task's tags reordered by rr before packing
// (nil: as Select).
func SelectReranked(ctx context.Context, ix *Index, task Task, budget, limit int, sent map[string]bool, rr Reranker) Selection {
	return ix.selectFor(ctx, task, budget, limit, sent, nil, rr)
}

// selectFor is SelectReranked for a session that also sent the tables of contents of the
// prompts in toc (by id; an id in sent too was sent in full since).
func (ix *Index) selectFor(ctx context.Context, task Task, budget, limit int, sent, toc map[string]bool, rr Reranker) Selection {
	r := ix.rankTags(task.Tags, sent, toc, false)
	if rr != nil {
		below := ix.belowFloor(r, rerankBelow)
		if len(r.cands)+len(below) > 1 {
			r.cands = rerank(ctx, ix, Task{Tags: r.tags, Text: taskText(task.Text), Call: task.Call}, r.cands, below, r.named, rr)
		}
	}
	return ix.pack(r, budget, limit)
}

// ranking is the outcome of scoring before packing.
type ranking struct {
	tags     []string
	concepts []concept
	scores   *scorer
	feedback []term
	critical []int        // priority 10 not yet sent
	cands    []candidate  // above the floor, not sent, not critical, best first; or asked for by name
	already  []int        // above the floor, or critical and relevant, but sent before
	wasSent  []bool       // sent in full or as a table of contents
	tocOnly  []bool       // of those, sent only as a table of contents
	named    map[int]bool // entries a tag names whole: candidates first (namedBy)
	top      float64      // the scale of the floor and of the priority boost: see rankTags
}

func (ix *Index) rankTags(tags []string, sent, toc map[string]bool, explain bool) ranking {
	r := ranking{tags: NormalizeTags(tags)}
	r.named = ix.namedBy(tags)
	r.concepts = ix.query(r.tags)
	r.scores = newScorer(ix, explain)
	r.scores.rank(r.concepts)
	r.feedback = r.scores.feedback(r.concepts)
	r.scores.area()
	r.scores.leads()
	rel := r.scores.total
	r.wasSent = make([]bool, len(ix.entries))
	r.tocOnly = make([]bool, len(ix.entries))
	for id := range toc {
		if i, ok := ix.byID[strings.ToLower(id)]; ok {
			r.wasSent[i], r.tocOnly[i] = true, true
		}
	}
	for id := range sent {
		if i, ok := ix.byID[strings.ToLower(id)]; ok {
			r.wasSent[i], r.tocOnly[i] = true, false
		}
	}
	// The scale of the floor is the mean of the two best relevances, not the best alone: a prompt
	// that matches every tag stands far above the rest, and against it alone the prompt that
	// answers one tag of the task falls under the floor (the payouts guide beside the one about
	// reconciliation). With one match, or two alike, it is the best relevance.
	//
	// The prompts already sent count: the floor says how well a prompt must match these tags,
	// and what the session was sent does not change that. Scaled by the best matches not yet
	// sent, a read_prompts repeating begin_session's tags would find the floor fallen to the
	// weak matches and send in full a prompt that only shares a word of the best match's title
	// (feedback) and none of the tags'.
	best, second := 0.0, 0.0
	for i := range ix.entries {
		if ix.entries[i].Priority < CriticalPriority {
			switch v := rel[i]; {
			case v > best:
				best, second = v, best
			case v > second:
				second = v
			}
		}
	}
	r.top = best
	if second > minRelevance { // a second match too weak to be a candidate does not halve the scale
		r.top = (1-floorScaleSecond)*best + floorScaleSecond*second
	}
	for i := range ix.entries {
		e := &ix.entries[i]
		critical := e.Priority >= CriticalPriority
		above := ix.aboveFloor(e.Priority, rel[i], r.top, r.scores.lead[i], r.scores.inArea[i])
		switch {
		case r.tocOnly[i] && r.named[i]:
			// Its contents were sent; asked for by name, the model wants the whole: first, as
			// any prompt asked for by name, but whole or not at all (pack), priority 10 too.
			r.cands = append(r.cands, candidate{i: i, rel: rel[i], order: math.Inf(1), wholeOnly: true})
		case r.wasSent[i]:
			if above || r.named[i] || critical && rel[i] > 0 {
				r.already = append(r.already, i)
			}
		case critical:
			r.critical = append(r.critical, i)
		case r.named[i]:
			// Asked for by name (a briefing says to fetch a weak match so): first, whatever
			// its relevance. Its tag is matched as words too, like any other.
			r.cands = append(r.cands, candidate{i: i, rel: rel[i], order: math.Inf(1)})
		case above:
			order := rel[i]
			if r.scores.inArea[i] || r.scores.lead[i] {
				// A lead outside the area is the one prompt for a tag the area does not
				// cover: ordered with the area's, or the budget is spent before it.
				order *= areaWeight
			}
			boost := priorityBoost * r.top * float64(e.Priority-DefaultPriority) / float64(CriticalPriority-DefaultPriority)
			r.cands = append(r.cands, candidate{i: i, rel: rel[i], order: order + boost, boost: boost})
		}
	}
	slices.SortFunc(r.critical, func(a, b int) int {
		if c := cmp.Compare(rel[b], rel[a]); c != 0 {
			return c
		}
		return ix.byTitle(a, b)
	})
	slices.SortFunc(r.cands, func(a, b candidate) int {
		if c := cmp.Compare(b.order, a.order); c != 0 {
			return c
		}
		if c := cmp.Compare(ix.entries[b.i].Priority, ix.entries[a.i].Priority); c != 0 {
			return c
		}
		return ix.byTitle(a.i, b.i)
	})
	return r
}

// namedBy is the entries whose name a tag is, whole and in any case. A name is matched before
// the tag is cut to MaxTagLen, so a long name still puts its own prompt first, not a sibling
// that shares the words of its first 40 characters. A name of one word is left to the ranking: "sql" is a tag like any other, and the prompt titled
// so ranks by it anyway.
func (ix *Index) namedBy(tags []string) map[int]bool {
	var named map[int]bool
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if !strings.Contains(t, "-") {
			continue
		}
		if i, ok := ix.byName[t]; ok {
			if named == nil {
				named = map[int]bool{}
			}
			named[i] = true
		}
	}
	return named
}

// aboveFloor is the relevance floor; lead says the prompt is the best match of some tag, inArea
// that it is filed beside the best matches.
func (ix *Index) aboveFloor(priority int, rel, top float64, lead, inArea bool) bool {
	return rel > minRelevance && rel >= floorOf(priority, lead, inArea)*top
}

// floorOf is the share of the floor's scale (ranking.top) a prompt must reach.
func floorOf(priority int, lead, inArea bool) float64 {
	share := floorShare
	if inArea {
		share = min(share, areaFloor)
	}
	if lead {
		share = min(share, leadFloor)
	}
	if priority <= 3 {
		share = max(share, lowFloorShare)
	}
	return share
}

func (ix *Index) byTitle(a, b int) int {
	ea, eb := &ix.entries[a], &ix.entries[b]
	if c := strings.Compare(ea.Title, eb.Title); c != 0 {
		return c
	}
	return strings.Compare(ea.ID, eb.ID)
}

// maxBriefingBytes and maxBriefingTokens bound the prompt content one briefing carries, whatever
// the project's byteBudget and however long its priority-10 prompts are: a briefing is one tool
// result, which a client refuses past its limits (Claude Code: 25,000 tokens; mcpctl keeps a
// result within 20,000 of promptlib.Tokens' estimate, mcpserver.MaxResultTokens), and its texts,
// headings and index lines take some of that, and the model reads it as JSON (begin_session's
// structured result: the text escaped, beside lists of names), some 15 % more tokens than the
// text. The tokens bind first for code, tables and ids: 80 KB of Go is about 30,000 tokens.
const (
	maxBriefingBytes  = 80_000
	maxBriefingTokens = 14_000
)

// carry is what a briefing's prompt content may still take, of maxBriefingBytes and
// maxBriefingTokens.
type carry struct{ bytes, tokens int }

var wholeBriefing = carry{maxBriefingBytes, maxBriefingTokens}

// full and contents are what sending e in full, or as its table of contents, costs.
func full(e *Entry) carry     { return carry{e.Bytes, e.Tokens} }
func contents(e *Entry) carry { return carry{e.TOCBytes, e.TOCTokens} }

// neverCarried reports whether no briefing can carry e, whole or as its contents: over the
// budget's room bytes (0: none known), or over what one briefing carries, as 50 KB of code is
// whatever the budget.
func neverCarried(e *Entry, room int) bool {
	whole := room > 0 && e.Bytes > room || !wholeBriefing.holds(full(e))
	toc := e.TOCBytes == 0 || room > 0 && e.TOCBytes > room || !wholeBriefing.holds(contents(e))
	return whole && toc
}

func (c carry) holds(n carry) bool { return n.bytes <= c.bytes && n.tokens <= c.tokens }
func (c carry) less(n carry) carry { return carry{c.bytes - n.bytes, c.tokens - n.tokens} }

// packCritical splits the priority-10 prompts (in crit, in order) into those sent in full, the
// shortest first while they fit wholeBriefing, those sent as their tables of contents, and
// those only named: a 90 KB runbook made priority 10 must not crowd the rules out of the
// briefing, nor the briefing out of the client.
func (ix *Index) packCritical(crit []int) (sent, toc, named []Entry) {
	bySize := slices.Clone(crit)
	slices.SortStableFunc(bySize, func(a, b int) int { return ix.entries[a].Bytes - ix.entries[b].Bytes })
	how := map[int]int{} // 0 full, 1 toc, 2 named
	room := wholeBriefing
	for _, i := range bySize {
		e := &ix.entries[i]
		switch {
		case room.holds(full(e)):
			room = room.less(full(e))
		case e.TOCBytes > 0 && room.holds(contents(e)):
			room = room.less(contents(e))
			how[i] = 1
		default:
			how[i] = 2
		}
	}
	for _, i := range crit {
		switch how[i] {
		case 0:
			sent = append(sent, ix.entries[i])
		case 1:
			toc = append(toc, ix.entries[i])
		default:
			named = append(named, ix.entries[i])
		}
	}
	return sent, toc, named
}

func (ix *Index) pack(r ranking, budget, limit int) Selection {
	sel := Selection{Tags: r.tags, Room: min(budget, maxBriefingBytes)}
	left := sel.Room      // of the budget
	room := wholeBriefing // of what one briefing carries
	taken := make([]bool, len(ix.entries))
	var passed []Entry      // candidates a Reranker did not choose
	var held []int          // prompts whose contents were sent, asked for by name, that do not fit whole
	shown := map[int]bool{} // of the prompts whose contents were sent, those this briefing sends or names
	sel.Critical, sel.CriticalTOC, sel.CriticalNamed = ix.packCritical(r.critical)
	for _, e := range sel.Critical {
		left -= e.Bytes
		room = room.less(full(&e))
	}
	for _, e := range sel.CriticalTOC {
		left -= e.TOCBytes
		room = room.less(contents(&e))
	}
	for _, i := range r.critical {
		taken[i] = true
	}
	for _, c := range r.cands {
		e := &ix.entries[c.i]
		taken[c.i] = true
		switch {
		case c.nameOnly:
			if len(passed) < limit {
				passed = append(passed, *e)
			}
		case c.wholeOnly:
			// A priority-10 prompt is held back by what one briefing carries, not by the
			// budget, as when it was first sent.
			if room.holds(full(e)) && (e.Bytes <= left || e.Priority >= CriticalPriority) {
				sel.Full = append(sel.Full, *e)
				left -= e.Bytes
				room = room.less(full(e))
				shown[c.i] = true
			} else {
				held = append(held, c.i)
			}
		case e.Bytes <= left && room.holds(full(e)):
			sel.Full = append(sel.Full, *e)
			left -= e.Bytes
			room = room.less(full(e))
		case e.TOCBytes > 0 && e.TOCBytes <= left && room.holds(contents(e)):
			// Too big in full, it goes as its table of contents: its sections are one
			// read_section away, and more relevant prompts fit the budget.
			sel.TOC = append(sel.TOC, *e)
			left -= e.TOCBytes
			room = room.less(contents(e))
		case len(sel.Listed) < limit:
			sel.Listed = append(sel.Listed, *e)
		default:
			sel.MoreListed++
		}
	}
	// What was asked for by name first, then the rest, within one cap.
	for _, i := range slices.Concat(held, r.already) {
		switch {
		case len(sel.AlreadySent)+len(sel.AlreadyTOC) >= limit:
		case r.tocOnly[i]:
			sel.AlreadyTOC = append(sel.AlreadyTOC, ix.entries[i])
			shown[i] = true
		default:
			sel.AlreadySent = append(sel.AlreadySent, ix.entries[i])
		}
	}
	for i, toc := range r.tocOnly {
		if toc && !shown[i] {
			sel.TOCHeld++
		}
	}
	// The candidates a Reranker passed over lead the weak matches: like them, they are one
	// read_prompts away, their name as a tag.
	sel.Weak = passed
	for _, c := range ix.belowFloor(r, max(min(weakCap, limit-len(passed)), 0)) {
		sel.Weak = append(sel.Weak, ix.entries[c.i])
		taken[c.i] = true
	}
	skip := func(i int) bool { return taken[i] || r.wasSent[i] }
	rest := 0
	for i := range ix.entries {
		if !skip(i) {
			rest++
		}
	}
	for _, i := range pick(ix.entries, limit-len(sel.Weak), skip) {
		sel.Remaining = append(sel.Remaining, ix.entries[i])
	}
	sel.Omitted = rest - len(sel.Remaining)
	return sel
}

// weakCap is how many of the best matches below the floor a briefing names. They take the place
// of as many index lines in priority order, so a briefing grows only by their heading (~180
// bytes) when the index fills its cap. On testdata/gate, eight name over a third of the wanted
// prompts begin_session does not send (make eval's "+named" column); five name a quarter, and
// past eight the held-out half gains next to nothing (19 → 20 of its prompts at ten).
const weakCap = 8

// rerankCandidates is how many of the best candidates a Reranker sees; rerankBelow how many of
// the best matches below the floor it sees after them. With 15 below the floor, a re-ranker
// that knew the labels would reach 90 % recall on testdata/gate (85 % with 5). Each entry is
// clipped (rerankQuestion), so a question stays under about 16 KB; on testdata/gate, with the
// instructions and an intercepted call, it is 3.3 KB on average and 5.6 KB at most.
const (
	rerankCandidates = 20
	rerankBelow      = 15
)

// belowFloor is the n best matches that are not candidates (not above the floor, not sent,
// not priority 10), best first.
func (ix *Index) belowFloor(r ranking, n int) []candidate {
	in := make([]bool, len(ix.entries))
	for _, c := range r.cands {
		in[c.i] = true
	}
	var out []candidate
	for i, rel := range r.scores.total {
		if rel <= minRelevance || in[i] || r.wasSent[i] || ix.entries[i].Priority >= CriticalPriority {
			continue
		}
		k := len(out)
		for k > 0 && rel > out[k-1].rel {
			k--
		}
		if k < n {
			out = slices.Insert(out, k, candidate{i: i, rel: rel, order: rel})[:min(len(out)+1, n)]
		}
	}
	return out
}

// rerank puts what rr chooses first, in its order, and marks every other candidate nameOnly but
// those a tag names (named), which are sent whatever the model thinks of them.
func rerank(ctx context.Context, ix *Index, task Task, cands, below []candidate, named map[int]bool, rr Reranker) []candidate {
	head := cands[:min(len(cands), rerankCandidates)]
	offered := append(slices.Clone(head), below...)
	entries := make([]Entry, len(offered))
	for k, c := range offered {
		entries[k] = ix.entries[c.i]
	}
	ids, err := rr.Rerank(ctx, task, entries)
	if err != nil {
		return cands
	}
	pos := map[string]int{}
	for k, c := range offered {
		pos[strings.ToLower(ix.entries[c.i].ID)] = k
	}
	out := make([]candidate, 0, len(cands)+len(below))
	used := make([]bool, len(offered))
	for _, id := range ids {
		if k, ok := pos[strings.ToLower(id)]; ok && !used[k] {
			used[k] = true
			out = append(out, offered[k])
		}
	}
	if len(out) == 0 && len(ids) > 0 { // no known id: as if it had not answered
		return cands
	}
	// The candidates it did not choose, and those it was not offered (they rank below them),
	// are named, not sent; below the floor, what it left out stays a weak match.
	for k, c := range cands {
		if k >= len(head) || !used[k] {
			c.nameOnly = !named[c.i]
			out = append(out, c)
		}
	}
	return out
}
