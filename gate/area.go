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
//   - selection (match.go) asks less of a prompt in the area (areaFloor of the floor's scale)
//     than of one outside it (floorShare), unless that one leads a tag (leadFloor);
//   - packing orders a prompt in the area as if its relevance were areaWeight times as high, so
//     when the budget binds, the area's prompts go first.
//
// Tuned on testdata/gate (tuning half only).
var (
	areaDocs   = 2
	areaShare  = 0.6
	areaFloor  = 0.35
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

// coverShare is how close to a tag's best match a prompt in the area must score for the area to
// cover that tag.
var coverShare = 0.5

// leads marks the prompts that lead a tag (within conceptShare of its best match) which the area
// does not cover. A lead has a lower floor (match.go) so that every tag is represented: the
// prompt about "invoices" belongs in a briefing for ["api", "pagination", "invoices"] though it
// is filed away from the API guides. When a prompt in the area already matches the tag well
// (coverShare of its best), the tag is represented, and a prompt elsewhere that leads it as
// strongly is most often the word in another sense ("caching" in CDN and Redis guides when the
// task is the CI's build cache): it gets no lower floor, and must reach the general one.
func (s *scorer) leads() {
	for _, t := range s.tops {
		covered := false
		for _, m := range t.near {
			if s.inArea[m.i] && m.score >= coverShare*t.best {
				covered = true
				break
			}
		}
		for _, m := range t.near {
			if m.score >= conceptShare*t.best && (s.inArea[m.i] || !covered) {
				s.lead[m.i] = true
			}
		}
	}
}
