package promptlib

import (
	"cmp"
	"slices"
	"strings"
	"time"
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
// the first four characters of its lower-cased id. The prompt created first keeps the bare slug
// (NameEach), so a new prompt with an existing title never takes the name an existing one is
// known by, and names do not depend on listing order.
func Names(prompts []Prompt) map[string]string {
	names := NameEach(len(prompts), func(i int) (string, string, time.Time) {
		return prompts[i].ID, prompts[i].Title, prompts[i].CreatedAt.Time
	})
	byID := make(map[string]string, len(prompts))
	for i, p := range prompts {
		byID[p.ID] = names[i]
	}
	return byID
}

// NameEach is Names for n prompts given by their id, title and creation time, the names in the
// same order: a server naming 100k prompts need not make a Prompt and a map entry of each.
//
// Of prompts with equal slugs, the one created first keeps the bare slug, ties (and prompts
// without a creation time, which count as oldest) broken by id. The name is what a user types
// as a slash command and what a project's priorities refer to, so it must stay with the prompt
// that had it: ordering by id alone gave it to a newcomer whose random id sorted first.
// Creation times are compared to the microsecond, the precision a kept view stores them in.
func NameEach(n int, prompt func(i int) (id, title string, created time.Time)) []string {
	names := make([]string, n)
	order := make([]int32, n)
	created := make([]int64, n)
	for i := range n {
		_, title, c := prompt(i)
		names[i], order[i], created[i] = Slug(title), int32(i), c.UnixMicro()
	}
	// Equal slugs fall together, the oldest ahead of the others.
	slices.SortFunc(order, func(i, j int32) int {
		if c := strings.Compare(names[i], names[j]); c != 0 {
			return c
		}
		if c := cmp.Compare(created[i], created[j]); c != 0 {
			return c
		}
		idi, _, _ := prompt(int(i))
		idj, _, _ := prompt(int(j))
		return strings.Compare(Key(idi), Key(idj))
	})
	suffix := make([]int, n) // how many characters of its id a name carries; 0 for a bare slug
	for k := 0; k < n; {
		slug := names[order[k]]
		m := k + 1
		for m < n && names[order[m]] == slug {
			m++
		}
		for _, i := range order[k+1 : m] {
			suffix[i] = 4
		}
		k = m
	}
	// A suffix of four characters can still clash: with another prompt of the same title whose
	// id starts alike, or with a title that reads like the suffixed name. The clashing suffixed
	// names take four more characters of their ids until every name is unique; whole ids are.
	slugs := slices.Clone(names)
	for round := 0; ; round++ {
		seen := make(map[string]int, n)
		for i := range names {
			if suffix[i] > 0 {
				id, _, _ := prompt(i)
				names[i] = slugs[i] + "-" + strings.ToLower(id[:min(suffix[i], len(id))])
			}
			seen[names[i]]++
		}
		clash := false
		for i := range names {
			if seen[names[i]] > 1 && suffix[i] > 0 {
				if id, _, _ := prompt(i); suffix[i] < len(id) {
					suffix[i] += 4
					clash = true
				}
			}
		}
		if !clash || round > 64 {
			break
		}
	}
	return names
}

// Departure is a prompt that leaves a set NameEach named: deleted, or retitled to another slug.
type Departure struct{ Name, Title string }

// NamesAfter names the prompts that arrive in a set NameEach named, when NameEach would give
// exactly that: every prompt that stays keeps its name, and each arrival takes its bare slug.
// That holds when no group of equal slugs changes but by a prompt alone in it, and no clash
// between suffixed names is made or undone, which NamesAfter checks conservatively through
// taken: whether the name of a prompt that stays starts with a prefix. A departure must bear
// its bare slug and no name that stays may start with it (a suffixed name of its group, or one
// lengthened by a clash with it); an arrival's slug must start no name that stays and differ
// from every other arrival's. A prompt whose slug did not change stays, under the name it had. ok is false
// when the set must be named again with NameEach: a server following a library of 100k
// prompts names one edit in microseconds instead of naming them all (~50 ms).
func NamesAfter(departed []Departure, arrivals []string, taken func(prefix string) bool) (names []string, ok bool) {
	for _, d := range departed {
		if d.Name != Slug(d.Title) || taken(d.Name) {
			return nil, false
		}
	}
	names = make([]string, len(arrivals))
	for i, title := range arrivals {
		names[i] = Slug(title)
		if taken(names[i]) {
			return nil, false
		}
		for _, other := range names[:i] {
			if other == names[i] {
				return nil, false
			}
		}
	}
	return names, true
}
