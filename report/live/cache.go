package live

import (
	"container/list"
	"sync"
)

// cache keeps rendered answers by key, the newest maxEntries of them.
// One answer is computed per key at a time: concurrent asks for a key
// being computed wait for it (so ten tabs on one page cost one read of
// the store).
type cache struct {
	mu       sync.Mutex // guards everything below
	max      int
	entries  map[string]*list.Element // of *entry
	order    *list.List               // most recently used first
	inflight map[string]*call
}

type entry struct {
	key string
	val any
}

type call struct {
	done chan struct{}
	val  any
	err  error
}

func newCache(max int) *cache {
	return &cache{max: max, entries: map[string]*list.Element{}, order: list.New(), inflight: map[string]*call{}}
}

// get returns the value kept for key, or computes it with fn (once, for
// every caller asking meanwhile) and keeps it if fn succeeds.
func (c *cache) get(key string, fn func() (any, error)) (any, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*entry).val, nil
	}
	if cl, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		<-cl.done
		return cl.val, cl.err
	}
	cl := &call{done: make(chan struct{})}
	c.inflight[key] = cl
	c.mu.Unlock()

	cl.val, cl.err = fn()

	c.mu.Lock()
	delete(c.inflight, key)
	if cl.err == nil {
		c.entries[key] = c.order.PushFront(&entry{key, cl.val})
		for c.order.Len() > c.max {
			old := c.order.Back()
			c.order.Remove(old)
			delete(c.entries, old.Value.(*entry).key)
		}
	}
	c.mu.Unlock()
	close(cl.done)
	return cl.val, cl.err
}
