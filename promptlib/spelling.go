package promptlib

import (
	"slices"
	"strings"
)

// British and American spellings of one word ("optimise" and "optimize", "behaviour" and
// "behavior", "centre" and "center", "cancelled" and "canceled") are one word to search and to
// the gate's ranking: a library written in one is found by a user or an assistant who writes
// the other. The rules here serve both, so the two never disagree on what is the same word.

// AmericanSpelling returns the American spelling of w, a lower-case word, or w itself: the rules
// regular enough to write down (-ise → -ize, -lyse → -lyze, -our → -or, -tre → -ter, a doubled l
// before -ed, -ing and -er) and a list of irregular words ("judgement", "programme", "grey").
//
// The gate rewrites every word of the library and of the tags with it before stemming, so a
// rewrite must never land on another real word: that is why -ise words that are -ise in American
// too (advise, promise, exercise) are left alone, -our and -tre only rewrite listed words ("four"
// and "string" stay), and "cheque", "tyre" and "storey" are not in the list. A British word the
// rules miss keeps its spelling; one they rewrite in error becomes a non-word both sides share.
func AmericanSpelling(w string) string {
	if a, ok := britishWords[w]; ok {
		return a
	}
	a := swapOur(w, "our", "or")
	if s, ok := stemBefore(a, iseEndings); ok && !americanIse(s+"ise") {
		return s + "iz" + a[len(s)+2:]
	}
	if e, ok := britishEndings.find(a); ok {
		return a[:len(a)-len(e)] + britishEndings.to[e]
	}
	return a
}

// OtherSpelling returns w's spelling on the other side of the Atlantic, or "" when the rules
// know none: AmericanSpelling for a British word, the reverse for an American one. It is for
// search, which looks for both, so the reverse rules take no exceptions: a wrong guess costs
// little there ("resize" → "resise" finds nothing; "meter" → "metre" also finds the unit). The
// gate never uses it. One word, one guess: "vaporize" gives "vapourise", not "vaporise".
func OtherSpelling(w string) string {
	if a := AmericanSpelling(w); a != w {
		return a
	}
	if b, ok := americanWords[w]; ok {
		return b
	}
	b := swapOur(w, "or", "our")
	if s, ok := stemBefore(b, izeEndings); ok {
		b = s + "is" + b[len(s)+2:]
	} else if e, ok := americanEndings.find(b); ok {
		b = b[:len(b)-len(e)] + americanEndings.to[e]
	}
	if b == w {
		return ""
	}
	return b
}

// swapOur replaces, in w, the first from that follows one of ourStems with to ("colour" →
// "color" and back).
func swapOur(w, from, to string) string {
	if !strings.Contains(w, from) {
		return w
	}
	for _, s := range ourStems {
		if j := strings.Index(w, s+from); j >= 0 {
			return w[:j+len(s)] + to + w[j+len(s)+len(from):]
		}
	}
	return w
}

// stemBefore finds the first of endings (longest first) that w ends in, and returns what comes
// before it; a stem under three letters ("rise", "size", "crises") does not count.
func stemBefore(w string, endings []string) (string, bool) {
	for _, e := range endings {
		if strings.HasSuffix(w, e) && len(w)-len(e) >= 3 {
			return w[:len(w)-len(e)], true
		}
	}
	return "", false
}

var (
	iseEndings = []string{"isationally", "isational", "isability", "isations", "isation", "isable",
		"isably", "ising", "isers", "iser", "ises", "ised", "ise"}
	izeEndings = []string{"izationally", "izational", "izability", "izations", "ization", "izable",
		"izably", "izing", "izers", "izer", "izes", "ized", "ize"}
)

// americanIse: the -ise words American English spells with an s too, by ending (likewise,
// raise, franchise, surprise) and the listed words with what comes before them (unadvised,
// uncompromising). Some must match whole, or a British word would end in them: "arise"
// (summarise), "anise" (organise), "mortise" (amortise), "cerise" (mercerise); and "-rise",
// "-cise", "-oise", "-vise" and "-uise" are no endings of their own (authorise, criticise,
// memoise, collectivise, soliloquise).
func americanIse(w string) bool {
	for _, e := range []string{"wise", "aise", "chise", "prise", "sunrise", "uprise", "exercise",
		"concise", "precise", "excise", "incise", "circumcise", "noise", "poise", "tortoise",
		"porpoise", "turquoise", "advise", "devise", "revise", "supervise", "improvise",
		"televise", "bruise", "cruise", "guise", "advertise", "chastise", "expertise", "treatise",
		"promise", "premise", "demise", "surmise", "merchandise", "paradise", "despise", "valise",
		"chemise"} {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	switch w {
	case "arise", "anise", "mortise", "cerise":
		return true
	}
	return false
}

// ourStems are the words British spells -our and American -or, by what comes before "our"
// ("colour" → "col"). Only these: "four", "hour", "tour" and "your" are one word everywhere.
// A stem matches inside a longer word too ("unfavourable", "discoloured", "behavioural").
var ourStems = strings.Fields(`behavi col flav fav hon lab neighb harb hum rum vap arm endeav
	sav savi od val rig vig clam parl tum cand ard ferv splend`)

// britishEndings are word endings rewritten as they stand: -lyse (the irregular list has
// "analyses", which is also the plural of analysis in both), the listed -tre words and their
// forms (centred, centring, kilometres), and a doubled l after the listed verbs (cancelled,
// modelling, traveller). Verbs that double the l in American too (compel, control, patrol,
// enrol) are not listed. americanEndings is the reverse.
var britishEndings, americanEndings = func() (endings, endings) {
	var pairs []string
	for _, p := range []string{"aly", "oly"} { // analyse, paralyse, catalyse; hydrolyse
		for _, e := range []string{"se", "sed", "sing", "ser", "sers"} {
			pairs = append(pairs, p+e, p+"z"+e[1:])
		}
	}
	for _, w := range strings.Fields(`centre metre litre theatre fibre calibre sombre sabre spectre
		lustre meagre mitre`) {
		b := w[:len(w)-2]
		pairs = append(pairs, b+"re", b+"er", b+"res", b+"ers", b+"red", b+"ered", b+"ring", b+"ering")
	}
	for _, v := range strings.Fields(`cancel travel label model signal fuel level channel tunnel
		funnel marshal counsel pedal total dial equal rival quarrel shovel spiral initial panel
		parcel pencil stencil marvel revel swivel towel jewel duel bevel chisel enamel grovel
		snorkel unravel libel`) {
		pairs = append(pairs, v+"led", v+"ed", v+"ling", v+"ing", v+"ler", v+"er", v+"lers", v+"ers")
	}
	b2a, a2b := endings{to: map[string]string{}}, endings{to: map[string]string{}}
	for i := 0; i < len(pairs); i += 2 {
		b2a.add(pairs[i], pairs[i+1])
		a2b.add(pairs[i+1], pairs[i])
	}
	return b2a, a2b
}()

// endings maps word endings to their replacements; lens holds the endings' lengths, longest
// first, so a word is looked up once per length and the longest ending wins.
type endings struct {
	to   map[string]string
	lens []int
}

func (e *endings) add(from, to string) {
	e.to[from] = to
	if !slices.Contains(e.lens, len(from)) {
		e.lens = append(e.lens, len(from))
		slices.SortFunc(e.lens, func(a, b int) int { return b - a })
	}
}

// find returns the longest ending of w that e holds.
func (e *endings) find(w string) (string, bool) {
	for _, n := range e.lens {
		if n <= len(w) {
			if _, ok := e.to[w[len(w)-n:]]; ok {
				return w[len(w)-n:], true
			}
		}
	}
	return "", false
}

// britishWords are the irregular ones, each form spelled out.
var britishWords, americanWords = func() (map[string]string, map[string]string) {
	f := strings.Fields(`
		catalogue catalog catalogues catalogs catalogued cataloged cataloguing cataloging
		dialogue dialog dialogues dialogs analogue analog analogues analogs
		judgement judgment judgements judgments acknowledgement acknowledgment
		acknowledgements acknowledgments ageing aging artefact artifact artefacts artifacts
		grey gray greys grays greyed grayed greying graying greyish grayish greyscale grayscale
		defence defense defences defenses offence offense offences offenses
		licence license licences licenses pretence pretense
		practise practice practises practices practised practiced practising practicing
		programme program programmes programs enrol enroll enrols enrolls
		enrolment enrollment enrolments enrollments fulfil fulfill fulfils fulfills
		fulfilment fulfillment instalment installment instalments installments
		skilful skillful skilfully skillfully wilful willful wilfully willfully
		manoeuvre maneuver manoeuvres maneuvers manoeuvred maneuvered manoeuvring maneuvering
		aluminium aluminum mould mold moulds molds moulded molded moulding molding mouldy moldy
		sceptic skeptic sceptics skeptics sceptical skeptical sceptically skeptically
		scepticism skepticism paediatric pediatric anaesthetic anesthetic anaesthesia anesthesia
		encyclopaedia encyclopedia cosy cozy jewellery jewelry plough plow ploughs plows
		orientated oriented orientate orient focussed focused focussing focusing
		benefitted benefited benefitting benefiting whilst while amongst among learnt learned
		analyses analyzes judgemental judgmental greyness grayness defenceless defenseless
		licenced licensed licencing licensing cataloguer cataloger cataloguers catalogers
		centrepiece centerpiece centrepieces centerpieces fibreglass fiberglass trialled trialed
		trialling trialing counsellor counselor counsellors counselors marvellous marvelous
		manoeuvrable maneuverable`)
	b2a := make(map[string]string, len(f)/2)
	a2b := make(map[string]string, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		b2a[f[i]] = f[i+1]
		if _, ok := a2b[f[i+1]]; !ok {
			a2b[f[i+1]] = f[i]
		}
	}
	return b2a, a2b
}()
