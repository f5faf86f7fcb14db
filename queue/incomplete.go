package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"time"
)

// A hand-written operation file may be written in pieces (open, write, flush, write more),
// and the processor, woken by its creation, can read it before the last piece: the change would
// be failed as "not valid JSON". A file that ends mid-JSON and was modified within
// incompleteGrace is left in processing/, where its writer's open file still reaches it, and
// read again at each rescan: for at most incompleteLimit, so that a file someone keeps
// touching is still failed in the end.
const (
	incompleteGrace = 5 * time.Second
	incompleteLimit = time.Minute
)

// errIncomplete leaves a claimed file in processing/ for the next rescan.
var errIncomplete = errors.New("queue: the operation file is incomplete")

// incompleteOp is a claimed file that was incomplete when read.
type incompleteOp struct {
	id    string
	since time.Time // when it was first found incomplete
}

// endsMidJSON reports whether data is JSON cut short (empty, or a value that stops before its
// end), as opposed to JSON that is malformed: only the first can be a file still being written.
func endsMidJSON(data []byte) bool {
	var v any
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&v)
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// waitIncomplete reports whether the incomplete file at path should be read again later: it
// was modified within incompleteGrace and has not been waited for incompleteLimit already.
func (p *Processor) waitIncomplete(id, path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		delete(p.incomplete, path)
		return false
	}
	now := p.Now()
	e, seen := p.incomplete[path]
	if !seen {
		e = incompleteOp{id: id, since: now}
	}
	if now.Sub(fi.ModTime()) > incompleteGrace || now.Sub(e.since) > incompleteLimit {
		delete(p.incomplete, path)
		return false
	}
	p.incomplete[path] = e
	return true
}

// retryIncomplete reads again, once each, the files left in processing/ because they were
// incomplete.
func (p *Processor) retryIncomplete(ctx context.Context) {
	for _, path := range slices.Sorted(maps.Keys(p.incomplete)) {
		if ctx.Err() != nil || p.replaced != nil {
			return
		}
		e := p.incomplete[path]
		if !exists(path) { // recovered meanwhile, or taken away by hand
			delete(p.incomplete, path)
			continue
		}
		p.handle(ctx, e.id, path)
	}
}
