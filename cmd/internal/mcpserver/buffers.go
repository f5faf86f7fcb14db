package mcpserver

import "bytes"

// Buffers for tool results and response lines are kept for reuse: a page of prompts is tens of
// KB, and a new buffer each call kept the collector busy. They are kept in a small free list
// rather than a sync.Pool, which the collector empties every other cycle (at GOGC 50, every few
// calls).
var (
	resultBuffers = newFreeList(keptBuffers, func() *bytes.Buffer { return new(bytes.Buffer) })
	lineBuffers   = newFreeList(keptBuffers, func() *[]byte { return new([]byte) })
)

const (
	// keptBuffers is how many of each kind are kept: as many as calls usually run at once.
	keptBuffers = 4
	// maxPooled is the largest buffer kept: a rare huge result is not held for ever.
	maxPooled = 1 << 20
)

// release returns a result buffer for reuse.
func release(b *bytes.Buffer) {
	if b != nil && b.Cap() <= maxPooled {
		resultBuffers.put(b)
	}
}

// freeList keeps up to its capacity of values for reuse.
type freeList[T any] struct {
	free  chan T
	fresh func() T
}

func newFreeList[T any](n int, fresh func() T) *freeList[T] {
	return &freeList[T]{free: make(chan T, n), fresh: fresh}
}

func (f *freeList[T]) get() T {
	select {
	case v := <-f.free:
		return v
	default:
		return f.fresh()
	}
}

func (f *freeList[T]) put(v T) {
	select {
	case f.free <- v:
	default: // enough are kept
	}
}
