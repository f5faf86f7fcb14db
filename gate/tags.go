package gate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tag limits. Ten tags of 40 characters say what a task is about; more would only slow matching
// and let one call pull in the whole library.
const (
	MaxTags   = 10
	MaxTagLen = 40
)

// NormalizeTags cleans tags the way matching needs them, deterministically:
//   - lower case; only letters, digits, '-', '_', spaces and the combining marks after a letter
//     kept, anything else dropped;
//   - runs of spaces collapsed to one, leading and trailing spaces trimmed;
//   - cut to MaxTagLen characters (then trimmed again);
//   - empty tags dropped, duplicates dropped (the first one stays), at most MaxTags kept.
//
// The result never holds more than MaxTags tags of 1..MaxTagLen characters each.
func NormalizeTags(tags []string) []string {
	out := make([]string, 0, min(len(tags), MaxTags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if len(out) == MaxTags {
			break
		}
		n := normalizeTag(t)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

func normalizeTag(t string) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range t {
		if n >= MaxTagLen {
			break
		}
		switch {
		case unicode.Is(unicode.M, r) && (space || b.Len() == 0):
			// A mark belongs to the letter before it; with none, it is dropped.
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || r == '-' || r == '_':
			if space && b.Len() > 0 {
				b.WriteByte(' ')
				n++
				if n >= MaxTagLen {
					continue
				}
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			n++
		case unicode.IsSpace(r):
			space = true
		}
	}
	s := strings.TrimSpace(b.String())
	for utf8.RuneCountInString(s) > MaxTagLen { // ToLower can change nothing here, but be sure
		_, size := utf8.DecodeLastRuneInString(s)
		s = strings.TrimSpace(s[:len(s)-size])
	}
	return s
}
