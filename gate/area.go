package gate

import "slices"

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

// area marks the entries filed in the folders of the best matches (s.inArea). The best are
// found in one pass (ties go to the earlier entry in index order), not by sorting every match.
func (s *scorer) area() {
	ix := s.ix
	best := make([]int, 0, areaDocs) // entry indexes, best first
	for i, rel := range s.total {
		if rel <= 0 || ix.entries[i].Priority >= CriticalPriority {
			continue
		}
		k := len(best)
		for k > 0 && rel > s.total[best[k-1]] {
			k--
		}
		if k < areaDocs {
			best = slices.Insert(best, k, i)[:min(len(best)+1, areaDocs)]
		}
	}
	if len(best) == 0 {
		return
	}
	top := s.total[best[0]]
	folders := map[string]bool{}
	for _, i := range best {
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
