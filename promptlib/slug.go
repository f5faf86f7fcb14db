package promptlib

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Slug turns a title into an MCP prompt name: lower case, ASCII letters and digits joined by
// single hyphens ("Security Review" → "security-review"). Accents are folded ("Café" → "cafe");
// a title with nothing left gives "prompt".
func Slug(title string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range norm.NFKD.String(title) {
		switch {
		case unicode.Is(unicode.Mn, r): // combining marks left by the decomposition
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(unicode.ToLower(r))
		default:
			hyphen = true
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "prompt"
	}
	return strings.TrimRight(b.String(), "-")
}

// Names gives every prompt a unique, stable name: its slug, or on a clash the slug plus "-" and
// the first four characters of its lower-cased id. The prompt that sorts first by id keeps the
// bare slug, so names do not depend on listing order.
func Names(prompts []Prompt) map[string]string {
	byslug := make(map[string][]Prompt, len(prompts))
	for _, p := range prompts {
		s := Slug(p.Title)
		byslug[s] = append(byslug[s], p)
	}
	names := make(map[string]string, len(prompts))
	for s, ps := range byslug {
		first := ps[0]
		for _, p := range ps[1:] {
			if strings.ToLower(p.ID) < strings.ToLower(first.ID) {
				first = p
			}
		}
		for _, p := range ps {
			if p.ID == first.ID {
				names[p.ID] = s
			} else {
				names[p.ID] = s + "-" + strings.ToLower(p.ID[:4])
			}
		}
	}
	return names
}
