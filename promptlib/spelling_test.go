package promptlib

import "testing"

func TestAmericanSpelling(t *testing.T) {
	for british, american := range map[string]string{
		// -ise → -ize, every form
		"optimise": "optimize", "optimised": "optimized", "optimising": "optimizing",
		"optimisation": "optimization", "organisations": "organizations", "sanitiser": "sanitizer",
		"recognisable": "recognizable", "prioritises": "prioritizes", "unauthorised": "unauthorized",
		"summarising": "summarizing", "categorise": "categorize", "containerised": "containerized",
		"memorise": "memorize", "parameterise": "parameterize", "memoise": "memoize",
		"criticised": "criticized", "publicise": "publicize", "amortised": "amortized",
		"organisational": "organizational", "recognisably": "recognizably", "collectivise": "collectivize",
		// -lyse, -our, -tre, a doubled l, and two rules in one word
		"analyse": "analyze", "paralysed": "paralyzed", "analysers": "analyzers",
		"behaviour": "behavior", "behavioural": "behavioral", "unfavourable": "unfavorable",
		"favourite": "favorite", "saviour": "savior", "centre": "center", "centred": "centered",
		"centring": "centering", "kilometres": "kilometers", "fibre": "fiber",
		"cancelled": "canceled", "modelling": "modeling", "travellers": "travelers",
		"remodelled": "remodeled", "colourised": "colorized",
		// irregular
		"judgement": "judgment", "catalogue": "catalog", "programmes": "programs", "grey": "gray",
		"defence": "defense", "licence": "license", "practising": "practicing", "artefacts": "artifacts",
		"judgemental": "judgmental", "licenced": "licensed", "analyses": "analyzes",
	} {
		if got := AmericanSpelling(british); got != american {
			t.Errorf("AmericanSpelling(%q) = %q, want %q", british, got, american)
		}
	}
}

func TestAmericanSpellingLeavesWordsSpelledOneWay(t *testing.T) {
	// Rewriting any of these would make it another word, or a word American spells so too.
	for _, w := range []string{
		"advise", "revised", "supervisor", "exercise", "precise", "promise", "uncompromising",
		"premises", "enterprise", "surprising", "arises", "comprise", "sunrise", "exercising",
		"poised", "tortoise", "unadvised", "mortise", "bruised", "disguise", "televised", "likewise", "noise", "raised", "franchises",
		"expertise", "merchandising", "advertisers", "cruise", "anise", "rise", "crises",
		"four", "hour", "your", "tour", "pour", "glamour", "string", "metric", "genre", "acre",
		"called", "controlled", "compelled", "installed", "check", "tire", "story",
		"optimize", "behavior", "center", "canceled",
	} {
		if got := AmericanSpelling(w); got != w {
			t.Errorf("AmericanSpelling(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestOtherSpelling(t *testing.T) {
	for w, other := range map[string]string{
		"optimise": "optimize", "optimize": "optimise", "optimizations": "optimisations",
		"behavior": "behaviour", "colors": "colours", "center": "centre", "centered": "centred",
		"canceled": "cancelled", "labeling": "labelling", "judgment": "judgement",
		"gray": "grey", "analyze": "analyse",
		"review": "", "size": "", "four": "",
	} {
		if got := OtherSpelling(w); got != other {
			t.Errorf("OtherSpelling(%q) = %q, want %q", w, got, other)
		}
	}
}

// FuzzSpelling: any word gives a word back, never a panic; a rewrite of lower-case letters stays
// lower-case letters, and the American spelling of an American spelling is itself.
func FuzzSpelling(f *testing.F) {
	for _, w := range []string{"colourised", "our", "centring", "cancelled", "ise", "lyse", "organisational", "", "é", "OUR"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		a, o := AmericanSpelling(w), OtherSpelling(w)
		if w != "" && a == "" {
			t.Fatalf("AmericanSpelling(%q) is empty", w)
		}
		if lowerLetters(w) && (!lowerLetters(a) || o != "" && !lowerLetters(o)) {
			t.Fatalf("%q: American %q, other %q", w, a, o)
		}
		if again := AmericanSpelling(a); again != a {
			t.Fatalf("AmericanSpelling(%q) = %q, but AmericanSpelling(%q) = %q", w, a, a, again)
		}
	})
}
