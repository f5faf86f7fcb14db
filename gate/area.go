package gate

import (
	"cmp"
	"slices"
)

// The area of a task is where the library files what the task is about: the folders of its best
// matches. A team files prompts by topic, so a prompt filed beside the best match is about the
// same area ("Event Schemas" beside "Event Consumers", "Query Review" beside "Indexing
// Guidelines"), while one filed elsewhere that shares a word with a tag often is not ("Runbook
// Template" for the tag "templates" when the best match is "Localization of Emails").
//
// The area is not matching by folder name: a tag "database" does not hit the Database folder (the
// folder path stays a weak field of BM25F). It follows from the ranking, as feedback does, so it
// is as deterministic as the ranking:
//   - the area is the folders of the areaDocs best matches (priority 10 apart) that score at
//     least areaShare of the best;
//   - selection (match.go) asks less of a prompt in the area (areaFloor of the best relevance)
//     than of one outside it (floorShare), unless that one leads a tag (leadFloor);
//   - packing orders a prompt in the area as if its relevance were areaWeight times as high, so
//     when the budget binds, the area's prompts go first.
//
// Tuned on testdata/gate (tuning half only).
var (
	areaDocs   = 2
	areaShare  = 0.6
	areaFloor  = 0.3
	areaWeight = 2.0
)

// area marks the entries filed in the folders of the best matches (s.inArea).
func (s *scorer) area() {
	ix := s.ix
	var best []int32
	for i, rel := range s.total {
		if rel > 0 && ix.entries[i].Priority < CriticalPriority {
			best = append(best, int32(i))
		}
	}
	if len(best) == 0 {
		return
	}
	// The few best, ties broken by index order, as the ranking does.
	slices.SortStableFunc(best, func(a, b int32) int { return cmp.Compare(s.total[b], s.total[a]) })
	top := s.total[best[0]]
	folders := map[string]bool{}
	for _, i := range best[:min(areaDocs, len(best))] {
		if s.total[i] >= areaShare*top {
			folders[ix.entries[i].FolderPath] = true
		}
	}
	for i := range ix.entries {
		if folders[ix.entries[i].FolderPath] {
			s.inArea[i] = true
		}
	}
}
