package gate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// callValues calls fn with each string value of a tool call's JSON arguments, in document order,
// except those under a "content" or "body" key (any case, any depth): that is the user's text,
// not a description of the task. It stops when fn returns false, and at the first JSON error.
func callValues(args json.RawMessage, fn func(v string) bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	// Each open container pushes a frame; in an object the frame alternates key and value.
	type frame struct {
		object, wantKey, skip bool
	}
	var stack []frame
	// afterValue: a value just ended, so the enclosing object expects a key again.
	afterValue := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
	skipping := func() bool { return len(stack) > 0 && stack[len(stack)-1].skip }
	pendingSkip := false // the value about to come is under content/body
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		top := -1
		if len(stack) > 0 {
			top = len(stack) - 1
		}
		if top >= 0 && stack[top].object && stack[top].wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:top]
				afterValue()
				continue
			}
			key, _ := tok.(string)
			pendingSkip = stack[top].skip || strings.EqualFold(key, "content") || strings.EqualFold(key, "body")
			stack[top].wantKey = false
			continue
		}
		skip := pendingSkip || skipping()
		pendingSkip = false
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true, skip: skip})
			case '[':
				stack = append(stack, frame{skip: skip})
			default: // ']'; '}' is handled with the keys
				if top >= 0 {
					stack = stack[:top]
				}
				afterValue()
			}
			continue
		case string:
			if !skip && !fn(v) {
				return
			}
		}
		afterValue()
	}
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// splitWords splits s into words of letters and digits, breaking at every other character, at
// camelCase humps and where bigrammed text (Chinese, Japanese …) meets other text. Japanese
// hiragana breaks words too: a request's hiragana is mostly its grammar (particles, verb
// endings), and the kanji and katakana between are its terms ("日本語の文章をレビュー" →
// 日本語, 文章, レビュー).
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	var prev rune // the last letter or digit of cur, past its marks
	for i, r := range rs {
		latin := r < 0x300 // no marks, no hiragana, nothing bigrammed: decided quickly
		if !latin && unicode.Is(unicode.M, r) {
			if len(cur) > 0 {
				cur = append(cur, r)
			}
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) || !latin && unicode.Is(unicode.Hiragana, r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			hump := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower))
			if hump || !(latin && prev < 0x300) && bigrammed(r) != bigrammed(prev) {
				flush()
			}
		}
		cur = append(cur, r)
		prev = r
	}
	flush()
	return words
}

func hasLetter(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// stopWords carry no meaning for matching: English function words, the verbs and nouns every
// tool name and argument has, and URL noise.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an and are as at be by but for from has have how i if in into is it its me my no not of on
		or our so than that the their then there these this to too us was we were what when where
		which who why will with you your all any can do does each more most new other some such
		get set list create update delete remove read write search find fetch query show add put
		make use run call tool tools id ids name names type value values limit offset page size
		true false null none prompt prompts folder folders item items data args arg input output
		http https www com org net html json`) {
		m[w] = true
	}
	return m
}()

// InterceptTags is what an intercepted tool call is about, as tags for the index, from what the
// call says:
//   - a value that is the id or the name of a prompt in the index (get_prompt {id}) gives that
//     prompt's title; a value that is a folder of the index (list_prompts {folder}) is kept
//     whole, as a phrase;
//   - every other word of the tool name and the string values (content and body excepted, long
//     requests included) is a candidate, stop words and request filler dropped, also when
//     inflected ("seeing", "trying");
//   - two kept words side by side that the index holds as a phrase (in a title, heading or
//     summary: "phone number", "rich text") are one tag, the phrase, in place of its words, as
//     an assistant would give it to begin_session: the prompt that names the phrase ranks above
//     one that has the words apart, and a word is not counted both alone and in its phrase
//     (with "go service" and "go" apart, every "… in Go" prompt led the ranking); a word
//     between two phrases ("rich text editor") gives both. The phrases take the places of the
//     kept words, so a request cut to its most telling words can give fewer tags than MaxTags;
//   - the candidates the index, the synonym table or the implied topics know are kept, the most telling first: rare
//     in the project, and naming a topic (found in some title or heading) rather than only said
//     in passing in bodies; so a long request is summarised to its key terms;
//   - a value naming a file adds what its type says (filetypes.go: "AccountPage.tsx" → react);
//   - at most MaxTags, in the order the call says them, and never none when the call carries a
//     word the index knows.
func (ix *Index) InterceptTags(tool string, args json.RawMessage) []string {
	var phrases []string
	var cands []keyword
	at := map[string]int{} // stem → position in cands
	// The tool name's verbs and nouns (get, list, prompts) say how, not what; in a value the same
	// word can be the task ("delete a user's data", "a slow query"), so values drop only filler.
	var pairs []string
	var pairStems [][2]string // the stems of each pair's words
	addText := func(s string, noise map[string]bool, phrase bool) {
		prevW, prevSt := "", ""
		for _, w := range splitWords(s) {
			w = normalizeTag(w)
			st := stem(w)
			if noise[w] || fillerWords[w] || indexStop[w] || (w != st && fillerStems[st]) || utf8.RuneCountInString(w) < 2 || !hasLetter(w) {
				prevSt = ""
				continue
			}
			// Pairs are indexed only in titles, headings, summaries and folder paths: one that
			// has postings is a phrase the library names a topic with.
			if phrase && prevSt != "" && len(ix.postings[pairOf(prevSt, st)]) > 0 {
				pairs = append(pairs, prevW+" "+w)
				pairStems = append(pairStems, [2]string{prevSt, st})
			}
			prevW, prevSt = w, st
			if k, ok := at[st]; ok {
				cands[k].count++
				continue
			}
			if score := ix.wordScore(w, st); score > 0 { // 0: unknown to the index and the tables
				at[st] = len(cands)
				cands = append(cands, keyword{w: w, score: score, count: 1, pos: len(cands)})
			}
		}
	}
	addText(tool, stopWords, false)
	folders := ix.folderNames()
	callValues(args, func(v string) bool {
		t := strings.TrimSpace(v)
		if i, ok := ix.byID[strings.ToLower(t)]; ok {
			phrases = append(phrases, ix.entries[i].Title)
			return true
		}
		if uuidLike.MatchString(t) {
			return true
		}
		i, named := ix.byName[t]
		whole := named || folders[strings.ToLower(t)]
		switch {
		case named:
			// Its title, as for an id: the name itself would ask for the prompt first
			// (Index.namedBy), and the call's own result carries it.
			phrases = append(phrases, ix.entries[i].Title)
		case whole:
			phrases = append(phrases, t)
		}
		addText(t, valueNoise, !whole) // a value kept whole is its own phrase already
		for _, topic := range fileTopics(t) {
			addText(topic, nil, false)
		}
		return true
	})
	room := MaxTags - min(len(phrases), MaxTags/2)
	if len(cands) > room {
		slices.SortStableFunc(cands, func(a, b keyword) int { return cmp.Compare(b.rank(), a.rank()) })
		cands = cands[:room]
		slices.SortFunc(cands, func(a, b keyword) int { return a.pos - b.pos })
	}
	// A kept word that is part of a phrase gives the phrase (once), where the word stood.
	tags := phrases
	used := make([]bool, len(pairs))
	for _, c := range cands {
		st, inPair := stem(c.w), false
		for k, ps := range pairStems {
			if ps[0] != st && ps[1] != st {
				continue
			}
			inPair = true
			if !used[k] {
				used[k] = true
				tags = append(tags, pairs[k])
			}
		}
		if !inPair {
			tags = append(tags, c.w)
		}
	}
	return NormalizeTags(tags)
}

// keyword is one candidate word of an intercepted call.
type keyword struct {
	w     string
	score float64 // keyScore of its stem
	count int     // how often the call says it
	pos   int     // first mention
}

// rank orders candidates: how telling the word is, a little more when the call says it again.
func (k keyword) rank() float64 { return k.score * (1 + 0.2*float64(min(k.count, 3)-1)) }

// keyScore is how telling a stem is of a task, 0 when neither the index nor the synonym and
// implied-topic tables know it: its rarity in the project (idf), and full weight only when it names a topic, in some
// prompt's title or headings; a word found only in bodies is said in passing more often than not.
func (ix *Index) keyScore(st string) float64 {
	pl := ix.postings[termOf(st)]
	if len(pl) == 0 {
		if len(ix.synonyms[st]) > 0 || len(impliedTopics()[st]) > 0 {
			// A synonym, or a task word with implied topics ("deploy", "refund"): worth a
			// middling word.
			return ix.idf(len(ix.entries) / 10)
		}
		return 0
	}
	topical := false
	for k := range pl {
		if pl[k].in(fieldTitle) > 0 || pl[k].in(fieldChapters) > 0 {
			topical = true
			break
		}
	}
	s := ix.idf(len(pl))
	if !topical {
		s *= bodyWordShare
	}
	return max(s, 1e-6)
}

// wordScore is keyScore of a word with stem st; a bigrammed word's is its most telling pair's.
func (ix *Index) wordScore(w, st string) float64 {
	r, _ := utf8.DecodeRuneInString(w)
	if !bigrammed(r) {
		return ix.keyScore(st)
	}
	best := 0.0
	bigrams(w, func(p string) { best = max(best, ix.keyScore(p)) })
	return best
}

// bodyWordShare is what a word found only in bodies is worth next to a topic word of the same
// rarity, when a long request is cut down to its key terms.
const bodyWordShare = 0.4

// folderNames is the set of folder names and paths of the index's prompts, lower case,
// computed on first use.
func (ix *Index) folderNames() map[string]bool {
	ix.foldersOnce.Do(func() {
		m := map[string]bool{}
		for i := range ix.entries {
			p := ix.entries[i].FolderPath
			if p == "" || m[strings.ToLower(p)] {
				continue
			}
			m[strings.ToLower(p)] = true
			for _, part := range strings.Split(p, PathSep) {
				m[strings.ToLower(part)] = true
			}
		}
		ix.folders = m
	})
	return ix.folders
}

// valueNoise are the words of argument values that say nothing about the task.
var valueNoise = setOf(`https www com org net html json true false null none id ids`)

// fillerWords are what requests are phrased with, not what they are about.
var fillerWords = setOf(`please help want need like let lets just about thing things way also
	should would could going look looking sure okay ok hi hello thanks able make sure currently
	something anything everything someone using used via task tasks work working start started
	know think see try trying good better best new existing current our team code
	keep without within sometimes often again still even really maybe seem seems immediately
	instead whenever already quite rather actually basically somehow lot lots bit worse sensible
	properly correctly add implement increase improve modify`)

// fillerStems are the stems of the filler and stop words, so their inflections ("seeing",
// "tried", "makes") are filler too.
var fillerStems = func() map[string]bool {
	m := map[string]bool{}
	for _, set := range []map[string]bool{fillerWords, indexStop} {
		for w := range set {
			if isASCIILetters(w) {
				m[stem(w)] = true
			}
		}
	}
	return m
}()

// maxCallText bounds, in characters, an intercepted call as a Reranker is told it (Task.Call):
// enough for a query, a path or an issue's title and first lines, not a whole file being written.
const maxCallText = 600

// callText is an intercepted call as the assistant made it, "tool {arguments}", with the
// arguments compacted and clipped to maxCallText.
func callText(tool string, args json.RawMessage) string {
	var b bytes.Buffer
	if len(args) > 0 && json.Compact(&b, args) == nil && b.String() != "{}" && b.String() != "null" {
		return clip(tool+" "+b.String(), maxCallText)
	}
	return tool
}
