// Package ftsrank adds two SQL functions to every SQLite connection the process opens, for the
// search sidecar:
//
//   - mcpctl_rank(fts, broadAt, w0, w1, ...), an FTS5 auxiliary function: bm25(fts, w0, w1, ...),
//     score for score, that also counts the rows it ranks, and fails with "mcpctl: broad" once
//     it has ranked more than broadAt of them (when broadAt > 0);
//   - mcpctl_matches(), how many rows the connection's last mcpctl_rank query ranked.
//
// A search needs its ranked page and the number of matches. Counting them in a second query
// walked both words' doclists again: at 100k prompts, 0.3-0.6 ms of a 3 ms search. The ranking
// already visits every match, so it counts them, and stops at once when a query is too broad to
// rank.
package ftsrank

/*
#cgo linux LDFLAGS: -Wl,--unresolved-symbols=ignore-in-object-files
#cgo darwin LDFLAGS: -Wl,-undefined,dynamic_lookup
#cgo LDFLAGS: -lm
int mcpctl_register_rank(void);
*/
import "C"

import "strings"

func init() {
	// An automatic extension applies to connections opened after it; init runs before any. It
	// fails only out of memory; a search then reports "no such function: mcpctl_rank" in the log
	// and answers by scanning the library.
	C.mcpctl_register_rank()
}

// Broad reports whether err is mcpctl_rank stopping a query that matched more than broadAt rows.
func Broad(err error) bool { return err != nil && strings.Contains(err.Error(), "mcpctl: broad") }
