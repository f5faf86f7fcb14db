package gate

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Words are what ranking compares: whole words, lower case, stemmed (Snowball English), so
// "permissions" and "Permission", "alerting" and "alert", "migrate" and "migration" meet, and a
// tag never matches inside another word ("ci" is not in "incident").

// words splits s into lower-case words of letters and digits; anything else separates words,
// so "error-handling", "error_handling" and "error handling" give the same words. Words of one
// character are dropped: they carry no topic. A run of Chinese, Japanese, Korean, Thai, Lao,
// Khmer or Burmese gives its overlapping pairs of characters (bigrammed), as search engines
// index such text: "日本語" is the words "日本" and "本語", and is found inside "日本語のレビュー";
// there a character alone (第 of "第2章") is a word, as it can be one.
func words(s string, fn func(w string)) {
	runs(s, func(w string, lower, pairs bool) {
		if pairs {
			bigrams(w, fn)
		} else {
			emit(w, lower, fn)
		}
	})
}

// runs splits s into runs of letters and digits, each with whether it is all lower case and
// whether it is bigrammed. A combining mark belongs to the letter before it (a Devanagari vowel
// sign, a Thai tone mark, a decomposed accent); a change of script between bigrammed and other
// text ends a run, so "API設計" is "API" and "設計".
func runs(s string, fn func(w string, lower, pairs bool)) {
	start, lower, pairs := -1, true, false
	end := func(i int) {
		if start >= 0 {
			fn(s[start:i], lower, pairs)
			start = -1
		}
	}
	for i, r := range s {
		// Below U+0300 there are no marks and nothing bigrammed: most text is decided quickly.
		latin := r < 0x300
		switch {
		case !latin && unicode.Is(unicode.M, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			p := !latin && bigrammed(r)
			if start >= 0 && p != pairs {
				end(i)
			}
			if start < 0 {
				start, lower, pairs = i, true, p
			}
			if unicode.IsUpper(r) {
				lower = false
			}
		default:
			end(i)
		}
	}
	end(len(s))
}

// bigrammed: r is a letter of a script whose words are not set apart by spaces (Korean's are,
// but carry their particles: "데이터베이스를" is "the database" as an object).
func bigrammed(r rune) bool { return promptlib.Unspaced(r) || unicode.Is(unicode.Hangul, r) }

// bigrams gives the overlapping pairs of characters of w, a character with its marks; a lone
// character is a word of its own.
func bigrams(w string, fn func(string)) {
	prev, cur := -1, -1 // the starts of the last two characters
	for i, r := range w {
		if unicode.Is(unicode.M, r) {
			continue
		}
		if prev >= 0 {
			fn(w[prev:i])
		}
		prev, cur = cur, i
	}
	if prev >= 0 {
		fn(w[prev:])
	} else if cur >= 0 {
		fn(w)
	}
}

func emit(w string, lower bool, fn func(string)) {
	if utf8.RuneCountInString(w) < 2 {
		return
	}
	if !lower {
		w = strings.ToLower(w)
	}
	fn(w)
}

// stemCache remembers the stems of the words seen so far: a library's vocabulary is a few tens
// of thousands of words, and stemming each occurrence again would be most of NewDoc's cost. It
// stops growing at stemCacheMax words, so a hostile library cannot grow it without bound.
var stemCache sync.Map // word → stem

const stemCacheMax = 200_000

var stemCacheLen struct {
	sync.Mutex
	n int
}

// stem is promptlib.Stem, remembered: the Snowball English stem of a lower-case word in its
// American spelling, so a library written in British English ("anonymisation", "behaviour") is
// found by an assistant that writes American ("anonymization", "behavior"), and the reverse. A
// British word then shares what the stemmer conflates on the American side ("customise" with
// "customer"), as the American spelling always did. Words with digits ("s3", "oauth2") are kept
// as they are. search_prompts finds a word's inflections by the same stems.
func stem(w string) string {
	if v, ok := stemCache.Load(w); ok {
		return v.(string)
	}
	s := promptlib.Stem(w)
	stemCacheLen.Lock()
	if stemCacheLen.n < stemCacheMax {
		stemCacheLen.n++
		stemCache.Store(strings.Clone(w), strings.Clone(s))
	}
	stemCacheLen.Unlock()
	return s
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// term is the hash of a stem, or of two adjacent stems joined by a space (a phrase), in
// termBits bits. Documents keep hashes, not strings: a posting list keyed by an integer is built
// in a fraction of the time, and a Doc packs each with its counts in 64 bits (termCount). A
// collision between two terms costs at worst one odd match; with 42 bits it is expected about
// once in a vocabulary of two million terms. The hash is FNV-1a folded to termBits, fixed across
// processes, so rankings (and their tie-breaks) are the same in every run.
type term = uint64

const termBits = 64 - countsBits

func termOf(stem string) term { return fold(fnv(fnvOffset, stem)) }

func pairOf(a, b string) term { return fold(fnv(fnv(fnv(fnvOffset, a), " "), b)) }

// fold xor-folds a 64-bit FNV hash to termBits, as FNV's authors advise for shorter hashes.
func fold(h uint64) term { return (h >> termBits) ^ (h & (1<<termBits - 1)) }

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// stemsOf is the stems of the words of s, stop words dropped, in order.
func stemsOf(s string) []string {
	var out []string
	words(s, func(w string) {
		if !indexStop[w] {
			out = append(out, stem(w))
		}
	})
	return out
}

// indexStop are English function words: too common to say what a prompt is about.
var indexStop = setOf(`a an and are as at be been but by can could did do does for from had has
	have he her his how i if in into is it its just may me might must my no nor not of on once
	only or our ours out over own she should so some such than that the their them then there
	these they this those through to too under until up very was we were what when where which
	while who whom why will with would you your yours also each other any all both few more most
	same via per etc about above after again against am because before being below between doing
	during further having here him hers herself himself itself myself ourselves themselves theirs
	yourself yourselves whose`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
