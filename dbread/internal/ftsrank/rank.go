// Package ftsrank adds two SQL functions to every SQLite connection the process opens, for the
// search sidecar:
//
//   - mcpctl_rank(fts, broadAt, and, w0, w1, ...), an FTS5 auxiliary function: bm25(fts, w0,
//     w1, ...), score for score, that also counts the rows it ranks. With broadAt > 0 it stops a
//     query matching more than broadAt rows with the error "mcpctl: broad N" (see Broad): with
//     and set (the query is an AND of its phrases and nothing else narrows it) before ranking
//     any row, N the exact number of matches; otherwise after ranking broadAt + 1 rows.
//   - mcpctl_matches(), how many rows the connection's last mcpctl_rank query ranked.
//
// A search needs its ranked page and the number of matches. Counting them in a second query
// walked the words' doclists again: at 100k prompts, 0.3-0.6 ms of a 3 ms search. The ranking
// visits every match, so it counts them; and bm25's IDF already walks each word's doclist, so
// that walk also intersects them, which tells a query too broad to rank before it ranks a row.
package ftsrank

/*
#cgo linux LDFLAGS: -Wl,--unresolved-symbols=ignore-in-object-files
#cgo darwin LDFLAGS: -Wl,-undefined,dynamic_lookup
#cgo LDFLAGS: -lm
int mcpctl_register_rank(void);
*/
import "C"

import (
	"strconv"
	"strings"
)

func init() {
	// An automatic extension applies to connections opened after it; init runs before any. It
	// fails only out of memory; a search then reports "no such function: mcpctl_rank" in the log
	// and answers by scanning the library.
	C.mcpctl_register_rank()
}

// Broad reports whether err is mcpctl_rank stopping a query that matched more than broadAt
// rows, and how many it matched: -1 when it stopped counting.
func Broad(err error) (matches int, broad bool) {
	if err == nil {
		return 0, false
	}
	_, after, ok := strings.Cut(err.Error(), "mcpctl: broad ")
	if !ok {
		return 0, false
	}
	n, convErr := strconv.Atoi(strings.TrimSpace(after))
	if convErr != nil {
		return -1, true
	}
	return n, true
}
