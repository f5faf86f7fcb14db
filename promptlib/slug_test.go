package promptlib

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Security Review":          "security-review",
		"  Review -- the  Code!! ": "review-the-code",
		"Café crème":               "cafe-creme",
		"日本語":                      "prompt",
		"API v2 (draft)":           "api-v2-draft",
		"👨‍💻 Pair Programming":     "pair-programming",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamesResolveClashesByID(t *testing.T) {
	ps := []Prompt{
		{ID: "BBBB0000-0000-4000-8000-000000000000", Title: "Code Review"},
		{ID: "aaaa0000-0000-4000-8000-000000000000", Title: "code review"},
		{ID: "CCCC0000-0000-4000-8000-000000000000", Title: "Other"},
	}
	got := Names(ps)
	want := map[string]string{
		"aaaa0000-0000-4000-8000-000000000000": "code-review",
		"BBBB0000-0000-4000-8000-000000000000": "code-review-bbbb",
		"CCCC0000-0000-4000-8000-000000000000": "other",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("name of %s = %q, want %q", id, got[id], w)
		}
	}
	// Order must not matter.
	ps[0], ps[1] = ps[1], ps[0]
	if again := Names(ps); again["BBBB0000-0000-4000-8000-000000000000"] != "code-review-bbbb" {
		t.Errorf("names depend on order: %v", again)
	}
}

// TestNamesOldestKeepsBareSlug: a new prompt with an existing title never takes the existing
// one's name (its slash command, and the key of a project's priorities), whatever its random id.
// Ordered by id alone, a newcomer whose id sorted first took "security-review" and the original
// became "security-review-<its id>".
func TestNamesOldestKeepsBareSlug(t *testing.T) {
	t0 := Time{time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)}
	old := Prompt{ID: "FFFF0000-0000-4000-8000-000000000000", Title: "Security Review", CreatedAt: t0}
	for _, newID := range []string{"00000000-0000-4000-8000-000000000000", "ffff1111-0000-4000-8000-000000000000"} {
		newer := Prompt{ID: newID, Title: "security review", CreatedAt: Time{t0.Add(time.Millisecond)}}
		for _, ps := range [][]Prompt{{old, newer}, {newer, old}} {
			got := Names(ps)
			if got[old.ID] != "security-review" || got[newer.ID] != "security-review-"+strings.ToLower(newID[:4]) {
				t.Errorf("old %s and new %s are named %q and %q, want security-review and security-review-%s",
					old.ID, newID, got[old.ID], got[newer.ID], strings.ToLower(newID[:4]))
			}
		}
	}
	// Created in the same microsecond, or with no time at all: the id decides.
	for _, at := range []Time{t0, {}} {
		a := Prompt{ID: "aaaa0000-0000-4000-8000-000000000000", Title: "Review", CreatedAt: at}
		b := Prompt{ID: "BBBB0000-0000-4000-8000-000000000000", Title: "Review", CreatedAt: Time{at.Add(time.Nanosecond)}}
		if got := Names([]Prompt{b, a}); got[a.ID] != "review" || got[b.ID] != "review-bbbb" {
			t.Errorf("created %v: named %v, want review for %s", at, got, a.ID)
		}
	}
}

// Names are unique even when the four characters of id a clash adds are not: same titles with
// ids that start alike, and a title that reads like another's suffixed name.
func TestNamesUniqueWhenSuffixesClash(t *testing.T) {
	ps := []Prompt{
		{ID: "abcd0001-0000-4000-8000-000000000000", Title: "Untitled"},
		{ID: "abcd0002-0000-4000-8000-000000000000", Title: "Untitled"},
		{ID: "abcd0003-0000-4000-8000-000000000000", Title: "Untitled"},
		{ID: "ffff0000-0000-4000-8000-000000000000", Title: "Untitled abcd"},
	}
	names := Names(ps)
	seen := map[string]string{}
	for _, p := range ps {
		n := names[p.ID]
		if other, ok := seen[n]; ok {
			t.Errorf("%s and %s are both named %q", other, p.ID, n)
		}
		seen[n] = p.ID
	}
	if names[ps[0].ID] != "untitled" {
		t.Errorf("the first by id is %q, want the bare slug", names[ps[0].ID])
	}
}

// NamesAfter must give what NameEach gives for the changed set whenever it says ok. Titles and
// ids come from a tiny alphabet, so slugs clash, suffixes clash and titles read like suffixed
// names ("a abcd") far more often than in a library.
func TestNamesAfterAgreesWithNameEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	titles := []string{"a", "A", "a b", "b", "a abcd", "a abce", "ab", "a-b c", "abcd", "c"}
	newID := func() string {
		return fmt.Sprintf("%s%04d-0000-4000-8000-000000000000", []string{"abcd", "abce", "ffff", "0000"}[rng.IntN(4)], rng.IntN(10000))
	}
	oks := 0
	const trials = 4000
	for trial := range trials {
		type prompt struct {
			id, title string
			created   time.Time
		}
		// Few distinct creation times, so that some clashes are decided by id.
		at := func() time.Time { return time.Unix(int64(rng.IntN(3)), 0) }
		var before []prompt
		for range 1 + rng.IntN(12) {
			before = append(before, prompt{newID(), titles[rng.IntN(len(titles))], at()})
		}
		if !uniqueKeys(before, func(p prompt) string { return p.id }) {
			continue
		}
		name := func(ps []prompt) []string {
			return NameEach(len(ps), func(i int) (string, string, time.Time) { return ps[i].id, ps[i].title, ps[i].created })
		}
		names := name(before)
		// Each prompt is kept, retitled or deleted; a few arrive.
		var after []prompt
		var departed []Departure
		var arrivals []string
		stays := map[int]string{} // index in after → the name it keeps
		for i, p := range before {
			switch rng.IntN(6) {
			case 0:
				departed = append(departed, Departure{names[i], p.title})
			case 1:
				title := titles[rng.IntN(len(titles))]
				if Slug(title) == Slug(p.title) {
					stays[len(after)] = names[i]
				} else {
					departed = append(departed, Departure{names[i], p.title})
					arrivals = append(arrivals, title)
				}
				after = append(after, prompt{p.id, title, p.created})
			default:
				stays[len(after)] = names[i]
				after = append(after, p)
			}
		}
		for range rng.IntN(3) {
			title := titles[rng.IntN(len(titles))]
			arrivals = append(arrivals, title)
			after = append(after, prompt{newID(), title, at()})
		}
		if !uniqueKeys(after, func(p prompt) string { return p.id }) {
			continue
		}
		taken := func(prefix string) bool {
			for _, n := range stays {
				if strings.HasPrefix(n, prefix) {
					return true
				}
			}
			return false
		}
		got, ok := NamesAfter(departed, arrivals, taken)
		if !ok {
			continue
		}
		oks++
		want := name(after)
		a := 0
		for i := range after {
			n, stayed := stays[i]
			if !stayed {
				n, a = got[a], a+1
			}
			if n != want[i] {
				t.Fatalf("trial %d: %v after %v: NamesAfter names %q as %q, NameEach as %q", trial, after, before, after[i].title, n, want[i])
			}
		}
	}
	// The check above means something only if NamesAfter often says ok, and not always.
	t.Logf("NamesAfter said ok in %d of %d trials", oks, trials)
	if oks < trials/5 || oks == trials {
		t.Fatalf("NamesAfter said ok in %d of %d trials", oks, trials)
	}
}

func uniqueKeys[T any](xs []T, key func(T) string) bool {
	seen := map[string]bool{}
	for _, x := range xs {
		k := Key(key(x))
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}
