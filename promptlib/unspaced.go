package promptlib

import "unicode"

// Unspaced reports whether r is a letter of a script written without spaces between words:
// Chinese, Japanese, Thai, Lao, Khmer, Burmese. Such text is one run of letters up to the next
// punctuation ("日本語のレビュー"), so whole-word matching finds nothing inside it; search and
// ranking treat it otherwise. The prolonged sound mark, the iteration marks (ー, 々) and the
// half-width voiced marks belong to no one script but are written only inside Japanese and
// Chinese words.
func Unspaced(r rune) bool {
	switch r {
	case 'ー', 'ｰ', '々', '〆', 'ゝ', 'ゞ', 'ヽ', 'ヾ', '\uFF9E', '\uFF9F': // the last two: half-width (semi-)voiced marks
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
