package dbread

import (
	"context"
	"errors"
)

// headRows is how many of the newest prompts the sidecar keeps in memory, brief: the first page
// at the default limit, which is what `list_prompts {}` (an assistant's first look at a
// library) asks for. At 100 rows it holds about 60 KB.
const headRows = DefaultLimit

// head is the first headRows brief rows of the unfiltered listing, as of one sync of the
// sidecar. Serving that page from memory saves the index query, about a third of what a
// list call costs the server (~250 µs of ~800 µs at 1k prompts); a page further on, or one
// filtered, is read from the index as before.
type head struct {
	version uint64 // the library Version the sidecar was synced to when it was read
	rows    []Listed
	total   int  // prompts in the library at that sync
	whole   bool // rows were read without error; else the page is read from the index each time
}

// serves reports whether h holds the unfiltered page at opts whole. Offset and Limit are the
// caller's, as large as an int goes: they are never added.
func (h *head) serves(opts ListOptions) bool {
	return h.whole && (opts.Limit <= len(h.rows) && opts.Offset <= len(h.rows)-opts.Limit || len(h.rows) == h.total)
}

// page returns opts' page of h. The rows are copies; the strings and pointers in them are
// shared, and no caller writes through them.
func (h *head) page(opts ListOptions) []Listed {
	lo := min(opts.Offset, len(h.rows))
	hi := lo + min(opts.Limit, len(h.rows)-lo)
	return append(make([]Listed, 0, hi-lo), h.rows[lo:hi]...)
}

// newest returns the head as of the sidecar's last sync, reading it again after a sync (nil if
// it cannot be read now; the caller queries the index instead). The version is taken before
// the read, so a sync that commits during it leaves the head labelled older than what it holds,
// and the next call reads it again: a head is never older than its label.
func (s *sidecar) newest(ctx context.Context) *head {
	s.mu.Lock()
	h, version, synced, total := s.head, s.synced, s.hasSynced, s.rows
	s.mu.Unlock()
	if !synced {
		return nil
	}
	if h != nil && h.version == version {
		return h
	}
	rows, _, err := s.listRows(ctx, briefColumns, ListOptions{Limit: headRows})
	if err != nil {
		return nil
	}
	defer rows.Close()
	h = &head{version: version, total: total, whole: true}
	sc := newBriefScanner()
	for rows.Next() {
		l, err := sc.scan(rows)
		if errors.Is(err, errTimestamp) {
			// A page that shows this row fails, and says why: the index is asked each time.
			h.rows, h.whole = nil, false
			break
		}
		if err != nil {
			return nil
		}
		h.rows = append(h.rows, l)
	}
	if rows.Err() != nil {
		return nil
	}
	s.mu.Lock()
	if s.head == nil || s.head.version <= version {
		s.head = h
	}
	s.mu.Unlock()
	return h
}
