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
// spelling (OtherSpelling), then its singular or plural, in both spellings ("migrations":
// migration; "query": queries; "cookies": cookie). Each has w's Stem, so a look-alike is left
// out ("news" is not "new"), and so is a base of fewer than three letters ("ios" is not "io",
// "its" not "it"). Verb forms are left out: guessed from the word alone, -ed and -ing join too
// many other words ("setting" and "set", "heading" and "head", "timing" and "time"), and the
// stemmer's derivations more ("customer" and "custom"). A word over maxInflected bytes is
// looked for as it is.
func Inflections(w string) []string {
	forms := []string{w}
	if len(w) > maxInflected {
		return forms
	}
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
	for _, c := range numberForms(w) {
		if len(c) < 3 || seen[c] || Stem(c) != s {
			continue
		}
		seen[c] = true
		forms = append(forms, c)
		if o := OtherSpelling(c); o != "" && !seen[o] {
			seen[o] = true
			forms = append(forms, o)
		}
	}
	return forms
}

// maxInflected bounds the words Inflections works on: a longer one is no word to inflect, and
// its forms would only lengthen the query.
const maxInflected = 32

// numberForms guesses the singular of w if it looks plural (queries → query, cookies → cookie,
// indexes → index, migrations → migration), else its plural by the regular rules.
func numberForms(w string) []string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ies"):
		return []string{w[:n-3] + "y", w[:n-1]} // queries → query; cookies → cookie
	case strings.HasSuffix(w, "es"):
		return []string{w[:n-2], w[:n-1]} // indexes → index; databases → database
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return []string{w[:n-1]}
	case strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x") || strings.HasSuffix(w, "z") ||
		strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "sh"):
		return []string{w + "es"}
	case strings.HasSuffix(w, "y") && n >= 2 && !isVowel(w[n-2]):
		return []string{w[:n-1] + "ies"}
	}
	return []string{w + "s"}
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
