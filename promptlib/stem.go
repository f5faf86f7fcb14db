package promptlib

import (
	"strings"

	"github.com/kljensen/snowball/english"
)

// Stem is what search and the gate's ranking count as one word: the Snowball English stem of a
// lower-case word in its American spelling, so "permissions" and "permission", "alerting" and
// "alert", "anonymisation" and "anonymization" meet. A word with anything but the letters a–z
// ("s3", "oauth2", "données") is its own stem.
func Stem(w string) string {
	if !lowerLetters(w) {
		return w
	}
	return english.Stem(AmericanSpelling(w), true)
}

// Inflections returns the forms of w, a lower-case word, that search looks for: w, its other
// spelling (OtherSpelling), then the other inflections of the same word, plural, -ed and -ing,
// in both spellings ("migrations": migration; "caching": cache, caches, cached; "queries":
// query, queried; "running": run, runs). Each has w's Stem. Derivations are left out, though the
// stemmer makes them one word: "customer" does not give "custom", nor "engineer" "engine", so a
// search finds what its words say. A form that is no word ("cacheing") finds nothing.
func Inflections(w string) []string {
	forms := []string{w}
	if o := OtherSpelling(w); o != "" {
		forms = append(forms, o)
	}
	if !lowerLetters(w) || len(w) < 3 {
		return forms
	}
	s := Stem(w)
	seen := map[string]bool{}
	for _, f := range forms {
		seen[f] = true
	}
	add := func(c string) {
		if len(c) < 2 || seen[c] {
			return
		}
		seen[c] = true
		if Stem(c) != s {
			return
		}
		forms = append(forms, c)
		if o := OtherSpelling(c); o != "" && !seen[o] {
			seen[o] = true
			forms = append(forms, o)
		}
	}
	for _, b := range bases(w) {
		add(b)
		for _, c := range inflect(b) {
			add(c)
		}
	}
	return forms
}

// bases are the words w may be an inflection of: w itself, and w without its ending, with the
// spelling rules undone (queries → query, cached → cache, running → run).
func bases(w string) []string {
	bs := []string{w}
	// cut adds w without end (and with add); undo also tries the doubled consonant and the
	// dropped e an -ed or -ing took.
	cut := func(end, add string, undo bool) {
		b, ok := strings.CutSuffix(w, end)
		if !ok || len(b) < 2 {
			return
		}
		bs = append(bs, b+add)
		if !undo {
			return
		}
		if n := len(b); n >= 3 && b[n-1] == b[n-2] && !isVowel(b[n-1]) {
			bs = append(bs, b[:n-1]) // running → run
		} else {
			bs = append(bs, b+"e") // caching → cache
		}
	}
	switch {
	case strings.HasSuffix(w, "ies"), strings.HasSuffix(w, "ied"):
		cut(w[len(w)-3:], "y", false)
	case strings.HasSuffix(w, "ing"):
		cut("ing", "", true)
	case strings.HasSuffix(w, "ed"):
		cut("ed", "", true)
	case strings.HasSuffix(w, "es"):
		cut("es", "", false)
		cut("s", "", false)
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		cut("s", "", false)
	}
	return bs
}

// inflect gives the plural (or third person), -ed and -ing of b by the regular rules, and with
// the last consonant doubled (plan → planned).
func inflect(b string) []string {
	n := len(b)
	last := b[n-1]
	var out []string
	switch {
	case strings.HasSuffix(b, "s") || strings.HasSuffix(b, "x") || strings.HasSuffix(b, "z") ||
		strings.HasSuffix(b, "ch") || strings.HasSuffix(b, "sh"):
		out = append(out, b+"es")
	case last == 'y' && n >= 2 && !isVowel(b[n-2]):
		out = append(out, b[:n-1]+"ies", b[:n-1]+"ied")
	default:
		out = append(out, b+"s")
	}
	switch {
	case last == 'e' && n >= 2 && b[n-2] != 'e':
		out = append(out, b+"d", b[:n-1]+"ing")
	case last == 'y':
		out = append(out, b+"ing")
		if n >= 2 && isVowel(b[n-2]) {
			out = append(out, b+"ed")
		}
	default:
		out = append(out, b+"ed", b+"ing")
		if n >= 3 && !isVowel(last) && isVowel(b[n-2]) && !isVowel(b[n-3]) && last != 'w' && last != 'x' {
			out = append(out, b+string(last)+"ed", b+string(last)+"ing")
		}
	}
	return out
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// lowerLetters: w is made of the letters a–z only.
func lowerLetters(w string) bool {
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}
