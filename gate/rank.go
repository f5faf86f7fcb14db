package gate

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Ranking is BM25F over whole stemmed words:
//
//   - each tag is a concept; its alternatives are the tag itself, its synonyms (at
//     synonymWeight) and its implied topics (at impliedWeight, implied.go); a concept scores the
//     best of its alternatives, so a tag and its synonyms never add up to more than one strong
//     hit;
//   - an alternative of several words scores the mean of its words, plus a bonus when they stand
//     side by side as a phrase in the title, a heading or the summary: "error handling" ranks
//     the prompt titled so above one that says "error" in one place and "handling" in another;
//   - a word's score is BM25F: its counts per field, weighted (title strong, headings next, the
//     summary, then the body, the folder path weak) and normalised by each field's length,
//     saturated (k1) and multiplied by the word's rarity in the project (idf);
//   - a prompt's relevance is the sum over the concepts.
//
// Priority does not enter relevance: see select.go for how it bounds a reordering.

// Field weights and BM25 parameters, tuned on testdata/gate (tuning half only).
var fieldWeight = [numFields]float64{
	fieldTitle:    10.0,
	fieldChapters: 2.5,
	fieldSummary:  1.5,
	fieldFolder:   0.4,
	fieldBody:     1.0,
}

var fieldB = [numFields]float64{
	fieldTitle:    0.3,
	fieldChapters: 0.5,
	fieldSummary:  0.3,
	fieldFolder:   0.0,
	fieldBody:     0.75,
}

// bm25K1 is BM25's saturation. It is higher than the usual 1.2 because fields are weighted
// before saturating: with 1.2 a folder-path hit (weight 0.4) already scores half of a title hit.
var bm25K1 = 3.0

// conceptShare is how close to a tag's best match an entry must score to lead that tag.
var conceptShare = 0.95

// phraseBonus is the share of a phrase's mean word score added when its words are adjacent.
var phraseBonus = 0.5

// alternative is one way of saying a concept: the stems of a phrase.
type alternative struct {
	text    string
	stems   []string
	terms   []term
	pairs   []term // adjacent stems
	weight  float64
	implied bool // an implied topic of the tag (implied.go), not a way of saying it
}

// concept is one tag, its synonyms and its implied topics.
type concept struct {
	tag  string
	alts []alternative
	// weight scales the concept's scores: folderTagWeight for a tag that names one of the
	// project's folders beside other tags, 1 otherwise.
	weight float64
}

// folderTagWeight is the weight of a tag that names one of the project's folders ("payments",
// "go", "tests" for a folder "Testing") when the task has other tags: it says where the task
// is, and matches a whole folder's prompts about alike, while the other tags say what in it the
// task is about. At full weight it carried prompts that matched nothing else over the floor
// ("Generics in Go" for a goroutine leak); 0.7 kept begin_session's tuning-half recall and raised
// its precision 43.0 → 45.8 (0.5: 78.9 / 46.4, 0.3: 77.2 / 46.8; 0.8: 80.7 / 44.7). Tuned on
// testdata/gate (tuning half only).
var folderTagWeight = 0.7

// namesFolder reports whether a tag, stemmed, is the name of one of the project's folders or a
// part of a folder's path.
func (ix *Index) namesFolder(tag string) bool {
	ix.folderKeysOnce.Do(func() {
		ix.folderKeys = map[string]bool{}
		for f := range ix.folderNames() {
			ix.folderKeys[strings.Join(stemsOf(f), " ")] = true
		}
	})
	return ix.folderKeys[strings.Join(stemsOf(tag), " ")]
}

// query turns normalised tags into concepts. Tags without a word (only stop words) are kept
// with no alternatives, so explanations still show them.
func (ix *Index) query(tags []string) []concept {
	out := make([]concept, 0, len(tags))
	// A synonym that is itself one of the tags is that tag's evidence, not another's: with
	// ["api", "rest"], "rest" is searched once, as its own concept, so a prompt titled with
	// "rest" alone does not score twice (once at synonymWeight under "api").
	asTag := map[string]bool{}
	for _, tag := range tags {
		asTag[strings.Join(stemsOf(tag), " ")] = true
	}
	for _, tag := range tags {
		c := concept{tag: tag, weight: 1}
		if len(tags) > 1 && ix.namesFolder(tag) {
			c.weight = folderTagWeight
		}
		own := newAlternative(tag, 1)
		if len(own.terms) > 0 {
			c.alts = append(c.alts, own)
			seen := map[string]bool{strings.Join(own.stems, " "): true}
			addSyn := func(key string) {
				for _, s := range ix.synonyms[key] {
					a := newAlternative(s, synonymWeight)
					k := strings.Join(a.stems, " ")
					if len(a.terms) > 0 && !seen[k] && !asTag[k] {
						seen[k] = true
						c.alts = append(c.alts, a)
					}
				}
			}
			// The tag as a table phrase first ("on call"), then its stems ("in production" →
			// "production"), then the runs of its words that hold a particle ("on-call
			// rotation" → "on call"): phraseKey says why.
			keys := []string{phraseKey(tag)}
			if k := strings.Join(own.stems, " "); k != keys[0] {
				keys = append(keys, k)
			}
			keys = append(keys, particleRuns(keys[0])...)
			// A multi-word tag also reaches the synonyms of its words: "pii handling" → pii's;
			// but not of a word that is a tag of its own, whose concept has them already (with
			// ["service", "go service"] the evidence for "service" would count twice).
			if len(own.stems) > 1 {
				for _, w := range own.stems {
					if !asTag[w] {
						keys = append(keys, w)
					}
				}
			}
			for _, k := range keys {
				addSyn(k)
			}
			// Implied topics (implied.go), weaker still, of the tag and its words; not of its
			// synonyms: "timeout" → "latency" → "caching" is two weak steps from the task.
			for _, k := range keys {
				for _, s := range impliedTopics()[k] {
					a := newAlternative(s, impliedWeight)
					a.implied = true
					k := strings.Join(a.stems, " ")
					if len(a.terms) > 0 && !seen[k] && !asTag[k] {
						seen[k] = true
						c.alts = append(c.alts, a)
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// particleRuns is the runs of two and three words of a phrase key that hold a particle or
// preposition, shorter than the key: where a table phrase such as "on call" or "sign in" can
// stand inside a longer tag.
func particleRuns(key string) []string {
	w := strings.Fields(key)
	var out []string
	for n := 2; n <= 3 && n < len(w); n++ {
		for i := 0; i+n <= len(w); i++ {
			if slices.ContainsFunc(w[i:i+n], func(s string) bool { return indexStop[s] }) {
				out = append(out, strings.Join(w[i:i+n], " "))
			}
		}
	}
	return out
}

func newAlternative(text string, weight float64) alternative {
	a := alternative{text: text, weight: weight, stems: stemsOf(text)}
	for i, s := range a.stems {
		a.terms = append(a.terms, termOf(s))
		if i > 0 {
			a.pairs = append(a.pairs, pairOf(a.stems[i-1], s))
		}
	}
	return a
}

// idf is the rarity of a term in the project: BM25's, never negative.
func (ix *Index) idf(df int) float64 {
	n := float64(len(ix.entries))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// termScore is BM25F of one posting, with the term's idf.
func (ix *Index) termScore(p fieldCounts, lens *[numFields]int32, idf float64) float64 {
	tf := 0.0
	for f := range numFields {
		c := p.in(f)
		if c == 0 {
			continue
		}
		norm := 1 - fieldB[f] + fieldB[f]*float64(lens[f])/ix.avgLen[f]
		tf += fieldWeight[f] * float64(c) / norm
	}
	return idf * tf * (bm25K1 + 1) / (bm25K1 + tf)
}

// scorer holds the scratch space of one ranking: relevance per entry, and per concept the best
// alternative's score, touched entries listed so clearing is sparse.
type scorer struct {
	ix      *Index
	total   []float64
	concept []float64
	alt     []float64
	lead    []bool       // among the best matches of some concept the area does not cover (area.go)
	tops    []tagMatches // per concept
	inArea  []bool       // filed beside the best matches (area.go)
	touched []int32      // entries with concept > 0
	altHit  []int32      // entries with alt > 0
	words   []uint8      // per entry, how many of the alternative's words it has
	// parts, when not nil, records each concept's score per entry for Explain, and best which
	// of the concept's alternatives gave it.
	parts map[int32][]float64
	best  map[int32][]int
}

// via is entry i's best alternative per concept, for Explain.
func (s *scorer) via(i int32, n int) []int {
	if s.best[i] == nil {
		s.best[i] = make([]int, n)
	}
	return s.best[i]
}

func newScorer(ix *Index, explain bool) *scorer {
	n := len(ix.entries)
	s := &scorer{ix: ix, total: make([]float64, n), concept: make([]float64, n), alt: make([]float64, n), words: make([]uint8, n), lead: make([]bool, n), inArea: make([]bool, n)}
	if explain {
		s.parts, s.best = map[int32][]float64{}, map[int32][]int{}
	}
	return s
}

// rank scores every entry against the concepts; relevance ends up in s.total.
func (s *scorer) rank(concepts []concept) {
	ix := s.ix
	for ci, c := range concepts {
		for ai, a := range c.alts {
			share := a.weight / float64(len(a.terms))
			for _, t := range a.terms {
				s.addTerm(t, share, a.implied, true)
			}
			for _, t := range a.pairs {
				s.addTerm(t, a.weight*phraseBonus/float64(len(a.pairs)), a.implied, false)
			}
			// The concept keeps the best alternative per entry. A synonym or implied topic is
			// the whole phrase: "rest api" is not found in "encryption at rest", while a tag's
			// own words each count (the assistant's phrasing is only a guess at the library's).
			whole := a.weight < 1
			for _, i := range s.altHit {
				n := s.words[i]
				s.words[i] = 0
				if whole && int(n) < len(a.terms) {
					s.alt[i] = 0
					continue
				}
				if s.concept[i] == 0 {
					s.touched = append(s.touched, i)
				}
				if s.parts != nil && s.alt[i] > s.concept[i] {
					s.via(i, len(concepts))[ci] = ai
				}
				s.concept[i] = max(s.concept[i], s.alt[i])
				s.alt[i] = 0
			}
			s.altHit = s.altHit[:0]
		}
		if c.weight != 1 {
			for _, i := range s.touched {
				s.concept[i] *= c.weight
			}
		}
		// An entry among the best matches of one tag is a candidate whatever its total: the
		// prompt about "pagination" belongs in a briefing for ["api", "pagination", "invoices"]
		// even when others match two of the tags.
		best := 0.0
		for _, i := range s.touched {
			best = max(best, s.concept[i])
		}
		top := tagMatches{best: best}
		for _, i := range s.touched {
			if s.concept[i] >= min(coverShare, conceptShare)*best {
				top.near = append(top.near, scored{i, s.concept[i]})
			}
			s.total[i] += s.concept[i]
			if s.parts != nil {
				if s.parts[i] == nil {
					s.parts[i] = make([]float64, len(concepts))
				}
				s.parts[i][ci] = s.concept[i]
			}
			s.concept[i] = 0
		}
		s.touched = s.touched[:0]
		s.tops = append(s.tops, top)
	}
	_ = ix
}

// tagMatches are one concept's best matches: its best score and the entries near it (at least
// coverShare or conceptShare of it, whichever is lower), for leads (area.go).
type tagMatches struct {
	best float64
	near []scored
}

type scored struct {
	i     int32
	score float64
}

// addTerm adds a term's score to s.alt. topical counts only the fields that name a prompt's
// topics (title, headings, summary): an implied topic is evidence only where a prompt is about
// it, not where its body mentions it in passing.
func (s *scorer) addTerm(t term, weight float64, topical, word bool) {
	pl := s.ix.postings[t]
	if len(pl) == 0 {
		return
	}
	idf := s.ix.idf(len(pl))
	for k := range pl {
		p := &pl[k]
		fc := p.fieldCounts
		if topical {
			fc &= topicalFields
			if fc == 0 {
				continue
			}
		}
		v := weight * s.ix.termScore(fc, &s.ix.entries[p.doc].lens, idf)
		if v <= 0 {
			continue
		}
		if s.alt[p.doc] == 0 {
			s.altHit = append(s.altHit, p.doc)
		}
		s.alt[p.doc] += v
		if word {
			s.words[p.doc]++
		}
	}
}

// Feedback: the words of the best matches' titles and headings say what the task is about in
// the library's own vocabulary, so they are searched too, weakly (feedbackWeight of a tag). A
// prompt that shares the top match's topic ("Health Checks" beside "Kubernetes Deployments")
// then ranks above one that only shares a word with a tag. Deterministic: the same ranking gives
// the same feedback.
var (
	feedbackDocs   = 2    // how many of the best matches give words
	feedbackTerms  = 8    // how many of their words are searched
	feedbackWeight = 0.15 // of one tag, spread over the words (0.3 before implied topics carried same-topic prompts)
	feedbackShare  = 0.6  // a match gives words only when it scores this share of the best
)

// feedback adds the feedback concept's scores to s.total, and returns its words' terms (for
// Explain). The concepts' own terms are not searched again.
func (s *scorer) feedback(concepts []concept) []term {
	if feedbackDocs == 0 || feedbackWeight == 0 {
		return nil
	}
	ix := s.ix
	var best []int32
	for i := range s.total {
		if s.total[i] == 0 || ix.entries[i].Priority >= CriticalPriority {
			continue
		}
		best = append(best, int32(i))
		slices.SortFunc(best, func(a, b int32) int { return cmp.Compare(s.total[b], s.total[a]) })
		if len(best) > feedbackDocs {
			best = best[:feedbackDocs]
		}
	}
	if len(best) == 0 {
		return nil
	}
	own := map[term]bool{}
	for _, c := range concepts {
		for _, a := range c.alts {
			for _, t := range a.terms {
				own[t] = true
			}
		}
	}
	weight := map[term]float64{}
	top := s.total[best[0]]
	for _, i := range best {
		if s.total[i] < feedbackShare*top {
			continue
		}
		for _, tf := range ix.entries[i].terms {
			if own[tf.term()] || tf.counts().in(fieldTitle)+tf.counts().in(fieldChapters) == 0 {
				continue
			}
			df := len(ix.postings[tf.term()])
			if df < 2 { // only this prompt: finds nothing new
				continue
			}
			weight[tf.term()] += ix.idf(df)
		}
	}
	type tw struct {
		t term
		w float64
	}
	var terms []tw
	for t, w := range weight {
		terms = append(terms, tw{t, w})
	}
	slices.SortFunc(terms, func(a, b tw) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	terms = terms[:min(len(terms), feedbackTerms)]
	var out []term
	for _, t := range terms {
		out = append(out, t.t)
		s.addTerm(t.t, feedbackWeight/float64(len(terms)), false, false)
	}
	src := map[int32]bool{}
	for _, i := range best {
		src[i] = true
	}
	for _, i := range s.altHit {
		if !src[i] {
			s.total[i] += s.alt[i]
		}
		s.alt[i] = 0
	}
	s.altHit = s.altHit[:0]
	return out
}
