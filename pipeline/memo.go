package pipeline

import (
	"container/list"
	"sync"
)

// memo is an in-process LRU of decoded cache entries, bounded by their text size, in front of
// the disk cache: a repeated request in one process skips reading and decoding a file.
type memo struct {
	mu    sync.Mutex
	cap   int
	size  int
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type memoItem struct {
	key  string
	e    entry
	size int
}

func newMemo(capBytes int) *memo {
	return &memo{cap: capBytes, order: list.New(), items: map[string]*list.Element{}}
}

func (m *memo) get(key string) (entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		return entry{}, false
	}
	m.order.MoveToFront(el)
	return el.Value.(*memoItem).e, true
}

func (m *memo) put(key string, e entry) {
	size := len(e.Text) + countAll(e.Sections)*64 + 64
	if e.Base != e.Text {
		size += len(e.Base)
	}
	if size > m.cap/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.order.MoveToFront(el)
		return
	}
	m.items[key] = m.order.PushFront(&memoItem{key, e, size})
	m.size += size
	for m.size > m.cap {
		last := m.order.Back()
		it := last.Value.(*memoItem)
		m.order.Remove(last)
		delete(m.items, it.key)
		m.size -= it.size
	}
}

func (m *memo) clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.order.Init()
	m.items = map[string]*list.Element{}
	m.size = 0
}
