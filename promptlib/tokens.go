package promptlib

import "unicode/utf8"

// Tokens is a cheap upper estimate of the tokens s takes in a model's context, checked
// against Anthropic's tokenizer on ids, times, prose, code, JSON, CJK, emoji and escapes
// (TestTokensBoundTheTokenizer): a run of letters is a token and one more for every six
// letters, a run mixing letters and digits (ids, hashes) one for every 1.4 characters, digits
// one for every three, a run of punctuation one for every two marks, a line break or tab one,
// a control character three (as JSON escapes it), and every other character two.
func Tokens(s string) int {
	tokens, letters, digits, marks := 0, 0, 0, 0
	endMarks := func() {
		tokens += (marks + 1) / 2 // `":"`, `","` and the like are one token or two
		marks = 0
	}
	endRun := func() {
		switch {
		case letters > 0 && digits > 0:
			tokens += (letters+digits)*5/7 + 1
		case letters > 0:
			tokens += 1 + letters/6
		case digits > 0:
			tokens += (digits + 2) / 3 // numbers split in threes
		}
		letters, digits = 0, 0
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			endRun()
			endMarks()
			_, size := utf8.DecodeRuneInString(s[i:])
			tokens += 2
			i += size
			continue
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			endMarks()
			letters++
		case '0' <= c && c <= '9':
			endMarks()
			digits++
		case c == ' ':
			endRun() // a space joins the word after it
			endMarks()
		case c == '\n' || c == '\t' || c == '\r':
			endRun()
			endMarks()
			tokens++
		case c < 0x20:
			endRun()
			endMarks()
			tokens += 3 // written \u00XX in a result's JSON
		default:
			endRun()
			marks++
		}
		i++
	}
	endRun()
	endMarks()
	return tokens
}
