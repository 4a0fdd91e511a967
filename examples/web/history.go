package main

import (
	"cmp"
	"container/heap"
	"context"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// maxListedFinished bounds how many finished debates' history items the
// server keeps (a few hundred bytes each), so that GET /api/debates does
// not read their records again: a finished debate's log never changes.
// Only these small summaries are kept, never a run or a transcript; the
// debates beyond the bound, the oldest, are read on every listing.
const maxListedFinished = 4096

// listReaders bounds how many debates one listing reads at a time.
const listReaders = 8

// finishedItems is the history items of finished debates, at most max
// (maxListedFinished when 0): it keeps the most recently started ones, so
// that a history larger than the bound does not churn through it on every
// listing. The zero value is ready to use; it is safe for concurrent use.
type finishedItems struct {
	mu   sync.Mutex
	max  int
	byID map[string]debateItem
	// oldest is byID's items as a heap whose root is the item the history
	// lists last (started first): the one to evict.
	oldest itemHeap
}

// get returns the item of finished debate id, if kept.
func (c *finishedItems) get(id string) (debateItem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.byID[id]
	return it, ok
}

// add keeps it, the item of a finished debate as its records say, unless
// the cache is full of debates started later.
func (c *finishedItems) add(it debateItem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[it.ID]; ok {
		return
	}
	if c.byID == nil {
		c.byID = map[string]debateItem{}
	}
	limit := c.max
	if limit <= 0 {
		limit = maxListedFinished
	}
	if len(c.oldest) < limit {
		c.byID[it.ID] = it
		heap.Push(&c.oldest, it)
		return
	}
	if !listedBefore(it, c.oldest[0]) {
		return
	}
	delete(c.byID, c.oldest[0].ID)
	c.byID[it.ID] = it
	c.oldest[0] = it
	heap.Fix(&c.oldest, 0)
}

// len returns how many items are kept.
func (c *finishedItems) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID)
}

// compareListed orders items as the history lists them: newest first,
// then by ID.
func compareListed(a, b debateItem) int {
	return cmp.Or(b.Started.Compare(a.Started), strings.Compare(a.ID, b.ID))
}

// listedBefore reports whether the history lists a before b.
func listedBefore(a, b debateItem) bool { return compareListed(a, b) < 0 }

// itemHeap is a container/heap of items whose root is listed last.
type itemHeap []debateItem

func (h itemHeap) Len() int           { return len(h) }
func (h itemHeap) Less(i, j int) bool { return listedBefore(h[j], h[i]) }
func (h itemHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)        { *h = append(*h, x.(debateItem)) }
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// listItems returns the history items of debates ids, in ids' order, as
// their records say (a debate running here is not marked running): the
// finished ones it keeps from earlier listings, the others read from the
// store, listReaders at a time. A debate that cannot be read is left out
// with a warning. It fails only with ctx's error.
func (s *server) listItems(ctx context.Context, ids []string) ([]debateItem, error) {
	items := make([]debateItem, len(ids))
	read := make([]bool, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(listReaders)
	for i, id := range ids {
		if it, ok := s.finished.get(id); ok {
			items[i], read[i] = it, true
			continue
		}
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			it, ok, err := s.readItem(gctx, id)
			if err != nil {
				return err
			}
			items[i], read[i] = it, ok
			if ok && it.Status == statusFinished {
				s.finished.add(it)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := items[:0]
	for i, it := range items {
		if read[i] {
			out = append(out, it)
		}
	}
	return out, nil
}

// readItem reads debate id's history item from the store; ok is false,
// with a warning logged, when the debate cannot be read. It fails only with
// ctx's error.
func (s *server) readItem(ctx context.Context, id string) (it debateItem, ok bool, err error) {
	recs, err := s.store.Records(ctx, id)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return debateItem{}, false, cerr
		}
		s.logger.Warn("list debates: read a debate", "debate", id, "err", err)
		return debateItem{}, false, nil
	}
	st, err := readState(recs)
	if err != nil {
		s.logger.Warn("list debates: unreadable debate", "debate", id, "err", err)
		return debateItem{}, false, nil
	}
	return debateItem{ID: id, Format: st.sum.Format, Status: st.status, Proposition: st.sum.Debate.Proposition,
		Started: st.sum.Started, Updated: st.sum.Updated, Utterances: st.sum.Utterances}, true, nil
}
