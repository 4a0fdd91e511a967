package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// Feed follows the records appended to a Store's debates by any process of
// its database, as they are committed: the database announces every record
// inserted with NOTIFY (the migration 0003_notify), on a channel of the
// store's schema, with the record's seq and debate ID; a Feed holds one
// connection that LISTENs to it and wakes the subscriptions of that debate.
// A page that shows a debate played by a worker on another machine follows
// it with one connection per process, not one query per viewer and second.
//
// A wake says only "read again": a [Subscription]'s channel holds at most
// one, so a subscriber that is slow blocks nobody and misses nothing — the
// wakes that came while it was busy are one, and it reads every record
// after the last it has ([Store.RecordsAfter]). When the connection drops,
// Run connects again (waiting 50 ms, doubling up to 2 s) and then wakes every
// subscription, which re-reads what it may have missed meanwhile.
//
// Run must be running for subscriptions to wake. A Feed is safe for
// concurrent use.
type Feed struct {
	st *Store
	// Logger is told when the connection drops and comes back (nil:
	// nothing). Set it before Run.
	Logger *slog.Logger

	mu   sync.Mutex
	subs map[string]map[*Subscription]struct{}
}

// Subscription is one subscriber's wake-ups for a debate's appends.
type Subscription struct {
	f  *Feed
	id string
	c  chan struct{}
}

// The bounds of Run's wait before it connects again.
const (
	feedRetryMin = 50 * time.Millisecond
	feedRetryMax = 2 * time.Second
	// feedPing is how long the connection may stay silent before Run
	// checks that it is alive (a network that drops packets ends no read).
	feedPing = 15 * time.Second
)

// NewFeed returns a Feed of st's database; Run it.
func NewFeed(st *Store) *Feed {
	return &Feed{st: st, subs: map[string]map[*Subscription]struct{}{}}
}

// channelSQL computes the NOTIFY channel of the records of the schema the current
// session uses (current_schema()), as SQL computes it.
const channelSQL = `SELECT 'duelogic_records_' || md5(current_schema())`

// Run listens for appends until ctx ends, connecting again whenever the
// connection drops, and returns nil when ctx ends.
func (f *Feed) Run(ctx context.Context) error {
	delay := feedRetryMin
	for {
		connected, err := f.listen(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if connected {
			delay = feedRetryMin
		}
		f.log("pgstore: feed: the connection to the database dropped; connecting again", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(2*delay, feedRetryMax)
	}
}

func (f *Feed) log(msg string, args ...any) {
	if f.Logger != nil {
		f.Logger.Warn(msg, args...)
	}
}

// listen holds one connection: LISTEN, wake every subscription, then wake
// the subscriptions of each debate announced, until the connection fails
// (its error) or ctx ends. It reports whether it got as far as LISTEN.
func (f *Feed) listen(ctx context.Context) (bool, error) {
	cfg := f.st.cfg.ConnConfig.Copy()
	// A wait that times out leaves the connection usable (the default
	// handler would send the server a cancel request).
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("pgstore: feed: connect: %w", err)
	}
	defer closeConn(conn)
	var channel string
	if err := conn.QueryRow(ctx, channelSQL).Scan(&channel); err != nil {
		return false, fmt.Errorf("pgstore: feed: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return false, fmt.Errorf("pgstore: feed: listen: %w", err)
	}
	// Appends committed before LISTEN were not announced to it.
	f.wakeAll()
	for {
		wctx, cancel := context.WithTimeout(ctx, feedPing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return true, ctx.Err()
		case err != nil && wctx.Err() != nil:
			// Silent for feedPing: is the connection alive?
			if err := conn.Ping(ctx); err != nil {
				return true, fmt.Errorf("pgstore: feed: %w", err)
			}
			continue
		case err != nil:
			return true, fmt.Errorf("pgstore: feed: %w", err)
		}
		if _, id, ok := parseNotice(n.Payload); ok {
			f.wake(id)
		}
	}
}

// parseNotice reads a notification's payload: seq, a colon, the debate ID.
func parseNotice(payload string) (int64, string, bool) {
	num, id, ok := strings.Cut(payload, ":")
	seq, err := strconv.ParseInt(num, 10, 64)
	return seq, id, ok && err == nil && id != ""
}

// wake wakes the subscriptions of debate id, waiting for none.
func (f *Feed) wake(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs[id] {
		s.wake()
	}
}

// wakeAll wakes every subscription.
func (f *Feed) wakeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, subs := range f.subs {
		for s := range subs {
			s.wake()
		}
	}
}

func (s *Subscription) wake() {
	select {
	case s.c <- struct{}{}:
	default: // a wake is pending: it covers this one
	}
}

// Subscribe starts waking the returned subscription whenever records of
// debate id are appended (and after the Feed connects again). Subscribe
// before reading the debate's records, so that no append after the read
// goes unnoticed. Close it when done.
func (f *Feed) Subscribe(id string) *Subscription {
	s := &Subscription{f: f, id: id, c: make(chan struct{}, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs[id] == nil {
		f.subs[id] = map[*Subscription]struct{}{}
	}
	f.subs[id][s] = struct{}{}
	return s
}

// C receives a value when the debate has records to read again.
func (s *Subscription) C() <-chan struct{} { return s.c }

// Close ends the subscription. It may be called more than once.
func (s *Subscription) Close() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if subs := s.f.subs[s.id]; subs != nil {
		delete(subs, s)
		if len(subs) == 0 {
			delete(s.f.subs, s.id)
		}
	}
}

// Follow calls fn with the records of debate id after seq after, in
// order, as they are committed — at once with those stored already, then
// with each batch the Feed announces — until ctx ends (its error) or fn
// or a read fails (that error). fn runs on Follow's goroutine; while it
// runs, appends are not lost, they come in the next batch.
func (f *Feed) Follow(ctx context.Context, id string, after int64, fn func([]store.Record) error) error {
	sub := f.Subscribe(id)
	defer sub.Close()
	for {
		recs, err := f.st.RecordsAfter(ctx, id, after)
		if err != nil {
			return err
		}
		if n := len(recs); n > 0 {
			if err := fn(recs); err != nil {
				return err
			}
			after = recs[n-1].Seq
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-sub.C():
		}
	}
}

// RecordsAfter returns the records of debate id whose Seq is after after,
// in Seq order: none (and no error) when there are none, whether the
// debate exists or not.
func (s *Store) RecordsAfter(ctx context.Context, id string, after int64) ([]store.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, type, time, data::text FROM records WHERE debate_id = $1 AND seq > $2 ORDER BY seq`, id, after)
	if err != nil {
		return nil, readError(ctx, id, err)
	}
	var recs []store.Record
	for rows.Next() {
		var (
			r        = store.Record{DebateID: id}
			at, data string
		)
		if err := rows.Scan(&r.Seq, &r.Type, &at, &data); err != nil {
			rows.Close()
			return nil, readError(ctx, id, err)
		}
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("pgstore: debate %q seq %d: stored time %q: %w", id, r.Seq, at, err)
		}
		r.Time, r.Data = t, json.RawMessage(data)
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(ctx, id, err)
	}
	return recs, nil
}
