package mcpserver

import (
	"slices"
	"sort"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// followNames names a build's prompts from the last table when a few changed
// (promptlib.NamesAfter: the others keep their names, the new ones take their slugs), and orders
// them by name and by id by merging the new ones into the last table's orders instead of
// sorting them all: following one edit of a library of 100k prompts, naming and sorting took
// ~150 ms. order is by name, places in seen; byID is by id, places in order. false when
// NameEach must name them all.
func followNames(seen []int32, fresh []servedPrompt, prev *promptTable) (names []string, order, byID []int32, ok bool) {
	const most = 256 // more changes than this are named whole
	n := prev.len()
	if len(fresh) > most || n == 0 {
		return nil, nil, nil, false
	}
	at := make([]int32, n) // per prompt of prev: 1+its place in seen, 0 when it leaves, -1 when it is renamed
	for k, i := range seen {
		if i >= 0 {
			at[i] = int32(k) + 1
		}
	}
	names = make([]string, len(seen))
	var departed []promptlib.Departure
	var arrivals []string
	var arriving []int32 // the arrivals' places in seen
	for k, i := range seen {
		if i >= 0 {
			names[k] = prev.nameAt(int(i))
			continue
		}
		f := &fresh[-i-1]
		if j, found := prev.indexByID(f.id); found {
			if at[j] != 0 {
				return nil, nil, nil, false // one id twice: NameEach decides
			}
			old := prev.at(j)
			if promptlib.Slug(old.title) == promptlib.Slug(f.title) {
				at[j], names[k] = int32(k)+1, old.name
				continue
			}
			at[j] = -1
			departed = append(departed, promptlib.Departure{Name: old.name, Title: old.title})
		}
		arrivals, arriving = append(arrivals, f.title), append(arriving, int32(k))
	}
	for j, a := range at {
		if a == 0 {
			if len(departed) >= most {
				return nil, nil, nil, false
			}
			p := prev.at(j)
			departed = append(departed, promptlib.Departure{Name: p.name, Title: p.title})
		}
	}
	// Names that start with a prefix lie together in name order; those that leave are at most
	// most of them.
	taken := func(prefix string) bool {
		for j := sort.Search(n, func(j int) bool { return prev.nameAt(j) >= prefix }); j < n && strings.HasPrefix(prev.nameAt(j), prefix); j++ {
			if at[j] > 0 {
				return true
			}
		}
		return false
	}
	arrived, ok := promptlib.NamesAfter(departed, arrivals, taken)
	if !ok {
		return nil, nil, nil, false
	}
	for a, k := range arriving {
		names[k] = arrived[a]
	}
	// The order by name: the last table's, with the arrivals merged in.
	byName := slices.Clone(arriving)
	slices.SortFunc(byName, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	order = make([]int32, 0, len(seen))
	placed := make([]int32, len(seen)) // per place in seen: its place in order
	put := func(k int32) {
		placed[k] = int32(len(order))
		order = append(order, k)
	}
	for j, a := range at {
		if a <= 0 {
			continue
		}
		for len(byName) > 0 && names[byName[0]] < prev.nameAt(j) {
			put(byName[0])
			byName = byName[1:]
		}
		put(a - 1)
	}
	for _, k := range byName {
		put(k)
	}
	// The order by id, likewise: the last table's, with the arrivals merged in.
	slices.SortFunc(arriving, func(a, b int32) int { return compareKeys(entryID(seen, fresh, prev, a), entryID(seen, fresh, prev, b)) })
	byID = make([]int32, 0, len(seen))
	for _, j := range prev.byID {
		a := at[j]
		if a <= 0 {
			continue
		}
		for len(arriving) > 0 && compareKeys(entryID(seen, fresh, prev, arriving[0]), prev.idAt(int(j))) < 0 {
			byID = append(byID, placed[arriving[0]])
			arriving = arriving[1:]
		}
		byID = append(byID, placed[a-1])
	}
	for _, k := range arriving {
		byID = append(byID, placed[k])
	}
	return names, order, byID, true
}

// entryID is the id of the k-th prompt a build reads: kept from prev, or fresh.
func entryID(seen []int32, fresh []servedPrompt, prev *promptTable, k int32) string {
	if i := seen[k]; i >= 0 {
		return prev.idAt(int(i))
	}
	return fresh[-seen[k]-1].id
}
