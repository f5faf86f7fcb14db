package pipeline

// rangeBytes is what a range of small items holds at most: it fits read_section's 40,000 bytes
// whole, with room for what normalize adds at a container's ends (its key, its brackets), so one
// call reads it.
const rangeBytes = 32 << 10

// groupBySize groups a long run of sibling sections (secs, each ending where the next starts,
// the last at end) by bytes, then nests: runs of up to rangeBytes (less for a smaller run)
// become ranges, each read whole in one read_section call and each section in it still a child
// to drill into; a section larger than that stays itself. While there are more than maxSections
// ranges, runs of maxSections of them become ranges of ranges. title names a range by the
// indexes of its first and last section in secs.
//
// Grouping once, by count, made a 3,000-element array six ranges of 500 tiny elements each: too
// large to read whole, so reading it took one call per element, 3,014 calls for 689 KB; and a
// 1.6 MB log eight ranges of fifty 4 KB parts, 408 calls.
func (sp *splitter) groupBySize(secs []Section, end int, title func(a, b int) string) []Section {
	size := func(i int) int {
		if i+1 < len(secs) {
			return secs[i+1].Start - secs[i].Start
		}
		return end - secs[i].Start
	}
	// A run of 10 KB in one range would be no index at all: ranges are about a ninth of it with
	// 12 sections (packing leaves ranges part full, so aiming at maxSections would give one more
	// and a level of nesting), at least maxBytes, at most rangeBytes. Sections of a few KB each
	// (a log's parts) pack coarsely: the budget grows until the ranges fit one level, if they
	// can.
	total := end - secs[0].Start
	aim := max(2, sp.maxSections*3/4)
	ceiling := max(rangeBytes, sp.maxBytes)
	budget := min(max((total+aim-1)/aim, sp.maxBytes), ceiling)
	type span struct {
		sec  Section
		a, b int // the first and last section it holds
	}
	pack := func(budget int) []span {
		var level []span
		for a := 0; a < len(secs); {
			b, n := a, size(a)
			for b+1 < len(secs) && n+size(b+1) <= budget {
				b++
				n += size(b)
			}
			if a == b {
				level = append(level, span{secs[a], a, a})
			} else {
				level = append(level, span{Section{Start: secs[a].Start, Kind: KindRange, Title: title(a, b), Children: secs[a : b+1 : b+1]}, a, b})
			}
			a = b + 1
		}
		return level
	}
	level := pack(budget)
	for len(level) > sp.maxSections && budget < ceiling {
		budget = min(budget+budget/4, ceiling)
		level = pack(budget)
	}
	for depth := 0; len(level) > sp.maxSections && depth < maxDepth; depth++ {
		var up []span
		// Even runs: 13 ranges are 7 and 6, not 12 and 1.
		groups := (len(level) + sp.maxSections - 1) / sp.maxSections
		per := (len(level) + groups - 1) / groups
		for i := 0; i < len(level); i += per {
			run := level[i:min(i+per, len(level))]
			children := make([]Section, len(run))
			for j, r := range run {
				children[j] = r.sec
			}
			a, b := run[0].a, run[len(run)-1].b
			up = append(up, span{Section{Start: children[0].Start, Kind: KindRange, Title: title(a, b), Children: children}, a, b})
		}
		level = up
	}
	out := make([]Section, len(level))
	for i, r := range level {
		out[i] = r.sec
	}
	return out
}

// groupTitled groups a long run of sections titled by what they hold (headings, declarations)
// into at most max ranges of a round count, each titled by its first and last sections' titles;
// a range that would hold one section is that section, which keeps its own title and summary.
// Such sections are few and each is read for its own title, so they are grouped by count.
func groupTitled(items []Section, max int) []Section {
	return groupTitledBy(items, max, func(i int) string { return items[i].Title })
}

// groupTitledBy is groupTitled with a range's ends named by name(i), where the items' titles
// would not tell ranges apart (files' paths under one long directory).
func groupTitledBy(items []Section, max int, name func(i int) string) []Section {
	size := niceSize((len(items) + max - 1) / max)
	var out []Section
	for a := 0; a < len(items); a += size {
		b := min(a+size, len(items))
		if b-a == 1 {
			out = append(out, items[a])
			continue
		}
		out = append(out, Section{Start: items[a].Start, Kind: KindRange, Title: clip(name(a), 36) + " … " + clip(name(b-1), 36), Children: items[a:b:b]})
	}
	return out
}

// niceSize rounds n up to 1, 2 or 5 times a power of ten.
func niceSize(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}
