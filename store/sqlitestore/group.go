package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"

	"github.com/duelogic/duelogic/store"
)

// maxBatch is the most records one transaction commits.
const maxBatch = 256

// group is the group commit of a Store's Appends. SQLite has one writer at
// a time and syncs the WAL at each commit, so Appends committed one by one
// would each wait for the sync of every one before. Instead, an Append
// queues its request; the caller whose request finds no batch being
// committed leads: it takes the queue (its own request and those that
// came meanwhile), commits them in one transaction, gives each its
// verdict, and hands the lead to the first request that queued since. No
// goroutine is started: every batch is committed by a caller of Append.
type group struct {
	mu    sync.Mutex
	queue []*request
	// leading: a caller is committing a batch, or has been told to lead
	// the next (its request's lead is closed).
	leading bool
	// batches counts the transactions of more than one record (tests).
	batches int
}

// request is one Append waiting for its verdict.
type request struct {
	ctx  context.Context
	rec  store.Record
	err  error
	done chan struct{} // closed when err is the verdict
	lead chan struct{} // closed when the caller is to lead the next batch
}

func (r *request) finish(err error) {
	r.err = err
	close(r.done)
}

// append queues rec and returns its verdict, leading a batch when it is
// its turn. A caller whose ctx ends while its request waits in the queue
// withdraws it and returns ctx's error; once a leader took the request,
// the caller waits for its verdict, which is what was stored.
func (g *group) append(ctx context.Context, s *Store, rec store.Record) error {
	r := &request{ctx: ctx, rec: rec, done: make(chan struct{}), lead: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, r)
	if !g.leading {
		g.leading = true
		close(r.lead)
	}
	g.mu.Unlock()
	canceled := ctx.Done()
	for {
		select {
		case <-r.done:
			return r.err
		case <-r.lead:
			g.commitNext(s)
			<-r.done // the batch held r: it was in the queue
			return r.err
		case <-canceled:
			g.mu.Lock()
			i := slices.Index(g.queue, r)
			if i >= 0 && !isClosed(r.lead) {
				g.queue = slices.Delete(g.queue, i, i+1)
				g.mu.Unlock()
				return ctx.Err()
			}
			g.mu.Unlock()
			canceled = nil // taken, or told to lead: see it through
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// commitNext commits the requests queued now (up to maxBatch) and hands
// the lead on to the first request left, if any.
func (g *group) commitNext(s *Store) {
	g.mu.Lock()
	n := min(len(g.queue), maxBatch)
	batch := slices.Clone(g.queue[:n])
	g.queue = slices.Clone(g.queue[n:])
	g.mu.Unlock()

	s.commitBatch(batch)

	g.mu.Lock()
	if len(g.queue) > 0 {
		close(g.queue[0].lead)
	} else {
		g.leading = false
	}
	g.mu.Unlock()
}

// commitBatch stores the records of batch in one transaction, each in a
// savepoint of its own: a record refused (ErrConflict, a failed
// projection) is rolled back to its savepoint alone, and the others
// commit. Any other failure (a full disk, an I/O error, a failed commit)
// rolls the whole batch back, and each record is then appended in a
// transaction of its own, so that each Append learns its own verdict and
// none is told its record failed when it was stored, or the reverse.
func (s *Store) commitBatch(batch []*request) {
	var live []*request
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.finish(err) // canceled before its turn: not stored
			continue
		}
		live = append(live, r)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		live[0].finish(s.appendOne(live[0].ctx, live[0].rec))
		return
	}
	// The batch is the callers', not the leader's: it is not canceled
	// with the leader's ctx. SQLite's busy timeout bounds its waits.
	ctx := context.WithoutCancel(live[0].ctx)
	verdicts := make([]error, len(live))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for i, r := range live {
			if _, err := tx.ExecContext(ctx, `SAVEPOINT record`); err != nil {
				return err
			}
			err := s.insert(ctx, tx, r.rec)
			var pe projectionError
			switch {
			case err == nil || errors.Is(err, store.ErrConflict):
			case errors.As(err, &pe):
				if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO record`); rerr != nil {
					return rerr
				}
			default:
				return err
			}
			if _, rerr := tx.ExecContext(ctx, `RELEASE record`); rerr != nil {
				return rerr
			}
			verdicts[i] = err
		}
		return nil
	})
	if err != nil {
		for _, r := range live {
			r.finish(s.appendOne(r.ctx, r.rec))
		}
		return
	}
	s.group.mu.Lock()
	s.group.batches++
	s.group.mu.Unlock()
	for i, r := range live {
		r.finish(s.appendError(ctx, r.rec, verdicts[i]))
	}
}
