package riverjobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultLease is how long a slot of a [Limiter] is held without renewal:
// the longest a dead worker's slot stays taken.
const DefaultLease = 30 * time.Second

// DefaultRateWindow is the window of a [Limits.Rate]: a minute.
const DefaultRateWindow = time.Minute

// Limiter keeps at most a number of model calls in flight per provider
// across every process of a database: each call takes a slot — a row of
// the table duelogic_provider_slots, claimed with SELECT ... FOR UPDATE
// SKIP LOCKED — for a lease that the call renews while it runs and gives
// back when it returns. The slot of a worker that died comes back when its
// lease runs out. A call that finds no slot free waits for one, and says so
// in the log.
//
// A provider may also have a rate ([Limits.Rate]): at most M calls begin in
// any window (a minute by default) across every process. Each call that
// begins is a row of duelogic_provider_calls stamped with the database's
// clock; a call inserts its row, under a transaction-scoped advisory lock
// named after the provider, only when fewer than M rows of the provider lie
// within the window, pruning the older ones. A call waits for the rate in
// its slot, just before the model call, so that the stamp is the call's
// start; it waits as long as the oldest row in the window has left, and
// says so in the log. A worker that dies consumes the rate for no longer
// than the window: its rows age out like any others.
type Limiter struct {
	pool   *pgxpool.Pool
	holder string
	lease  time.Duration
	window time.Duration
	logger *slog.Logger
	now    func() time.Time
	n      atomic.Int64 // calls made, for their holder tokens
}

// LimiterConfig configures a [Limiter].
type LimiterConfig struct {
	// Holder names this process in the slots it holds (a random suffix
	// is added).
	Holder string
	// Lease is how long a slot is held without renewal (DefaultLease
	// when 0).
	Lease time.Duration
	// RateWindow is the window of the providers' rates
	// (DefaultRateWindow, a minute, when 0): at most Limits.Rate calls to
	// a provider begin in any RateWindow. Processes that share a provider
	// should give it the same window: each prunes the calls older than
	// its own.
	RateWindow time.Duration
	// Logger receives the waits for a slot or for the rate (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Clock times the waits it logs (nil: time.Now). The leases and the
	// rate's window are timed by the database's clock.
	Clock func() time.Time
}

// Limits are the limits of a provider's calls across every process of a
// database. A zero field is no limit.
type Limits struct {
	// InFlight is the most calls in flight at once.
	InFlight int
	// Rate is the most calls that begin in any window of
	// LimiterConfig.RateWindow (a minute by default).
	Rate int
}

// NewLimiter returns a Limiter on the database of pool, which Migrate has
// prepared.
func NewLimiter(pool *pgxpool.Pool, cfg LimiterConfig) *Limiter {
	var b [4]byte
	rand.Read(b[:])
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.RateWindow <= 0 {
		cfg.RateWindow = DefaultRateWindow
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Limiter{pool: pool, holder: cfg.Holder + "/" + hex.EncodeToString(b[:]), lease: cfg.Lease, window: cfg.RateWindow, logger: cfg.Logger, now: cfg.Clock}
}

// Limit returns c with at most n of its calls, and of the calls of every
// client limited under the same provider name in any process of the
// database, in flight at once. n must be positive. (Processes that give one
// provider different limits each keep to their own.)
func (l *Limiter) Limit(provider string, n int, c llm.Client) llm.Client {
	lc := &limited{Client: c, l: l, provider: provider, n: n}
	if n <= 0 {
		lc.err = fmt.Errorf("riverjobs: provider %s: a limit of %d calls", provider, n)
	}
	return lc
}

// LimitProvider returns c with its calls, and the calls of every client
// limited under the same provider name in any process of the database,
// kept within lim: a call takes a slot (when lim.InFlight is set), then
// waits for the rate (when lim.Rate is set), then calls the model. With
// no limit set it returns c; the calls of a client given a negative limit
// fail. A call of a worker's attempt that waits for a slot or the rate
// stops waiting when the worker stops ([Queue.Shutdown]): the debate
// snoozes at that step, as at any other.
func (l *Limiter) LimitProvider(provider string, lim Limits, c llm.Client) llm.Client {
	if lim.InFlight == 0 && lim.Rate == 0 {
		return c
	}
	lc := &limited{Client: c, l: l, provider: provider, n: lim.InFlight, rate: lim.Rate}
	if lim.InFlight < 0 || lim.Rate < 0 {
		lc.err = fmt.Errorf("riverjobs: provider %s: limits of %d calls in flight and %d calls per %v", provider, lim.InFlight, lim.Rate, l.window)
	}
	return lc
}

// limited is a client whose calls keep to its provider's limits.
type limited struct {
	llm.Client
	l        *Limiter
	provider string
	n        int   // calls in flight (0: no limit)
	rate     int   // calls begun per window (0: no limit)
	err      error // the limits are wrong

	seeded atomic.Bool // the provider's slot rows exist
}

// Complete calls the model within the limits.
func (c *limited) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	var resp llm.Response
	err := c.within(ctx, func(ctx context.Context) error {
		var err error
		resp, err = c.Client.Complete(ctx, req)
		return err
	})
	return resp, err
}

// Stream streams through the model, when it streams, within the limits.
func (c *limited) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	var resp llm.Response
	err := c.within(ctx, func(ctx context.Context) error {
		var err error
		resp, err = llm.Stream(ctx, c.Client, req, onDelta)
		return err
	})
	return resp, err
}

// Waits between tries for a slot: the first, and the longest.
const (
	firstWait = 5 * time.Millisecond
	maxWait   = 200 * time.Millisecond
)

// errNoSlot: every slot is taken.
var errNoSlot = errors.New("no slot free")

// within runs call within the limits: in a slot, then when the rate lets
// it begin (waiting for the rate in the slot keeps the stamp of its start
// the start of the call).
func (c *limited) within(ctx context.Context, call func(context.Context) error) error {
	if c.err != nil {
		return c.err
	}
	rated := call
	if c.rate > 0 {
		rated = func(ctx context.Context) error {
			if err := c.awaitRate(ctx); err != nil {
				return err
			}
			return call(ctx)
		}
	}
	if c.n == 0 {
		return rated(ctx)
	}
	return c.inSlot(ctx, rated)
}

// inSlot runs call holding a slot, renewing its lease until call returns.
func (c *limited) inSlot(ctx context.Context, call func(context.Context) error) error {
	token := c.l.holder + "/" + strconv.FormatInt(c.l.n.Add(1), 10)
	slot, err := c.acquire(ctx, token)
	if err != nil {
		return err
	}
	renewCtx, stopRenew := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.renew(renewCtx, slot, token)
	}()
	defer func() {
		stopRenew()
		wg.Wait()
		c.release(ctx, slot, token)
	}()
	return call(ctx)
}

// acquire waits for a free slot and takes it for token.
func (c *limited) acquire(ctx context.Context, token string) (int, error) {
	wait, waited, began := firstWait, false, c.l.now()
	over := func() {}
	defer func() { over() }()
	for {
		slot, err := c.take(ctx, token)
		if err == nil {
			if waited {
				c.l.logger.Info("riverjobs: got a slot of the provider", "provider", c.provider, "limit", c.n, "waited", c.l.now().Sub(began).Round(time.Millisecond))
			}
			return slot, nil
		}
		if !errors.Is(err, errNoSlot) {
			return 0, err
		}
		if !waited {
			waited = true
			c.l.logger.Info("riverjobs: waiting for a slot of the provider", "provider", c.provider, "limit", c.n)
			over = engine.AnnounceWait(ctx, "a slot of provider "+c.provider)
		}
		if err := c.sleep(ctx, wait, "a slot"); err != nil {
			return 0, err
		}
		wait = min(2*wait, maxWait)
	}
}

// takeSlot claims the lowest free slot: one without a holder, or whose
// lease has run out.
const takeSlot = `UPDATE duelogic_provider_slots s SET holder = $3, lease_until = now() + make_interval(secs => $4)
FROM (SELECT provider, slot FROM duelogic_provider_slots
	WHERE provider = $1 AND slot < $2 AND (holder IS NULL OR lease_until < now())
	ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED) f
WHERE s.provider = f.provider AND s.slot = f.slot
RETURNING s.slot`

// take claims a slot for token, or fails with errNoSlot.
func (c *limited) take(ctx context.Context, token string) (int, error) {
	if err := c.seed(ctx); err != nil {
		return 0, err
	}
	var slot int
	err := c.l.pool.QueryRow(ctx, takeSlot, c.provider, c.n, token, c.l.lease.Seconds()).Scan(&slot)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, errNoSlot
	case err != nil:
		if cerr := ctx.Err(); cerr != nil {
			return 0, cerr
		}
		return 0, fmt.Errorf("riverjobs: take a slot of provider %s: %w", c.provider, err)
	}
	return slot, nil
}

// seed makes the provider's n slot rows (once; calls that race make them
// twice, which changes nothing).
func (c *limited) seed(ctx context.Context) error {
	if c.seeded.Load() {
		return nil
	}
	_, err := c.l.pool.Exec(ctx, `INSERT INTO duelogic_provider_slots (provider, slot)
		SELECT $1, g FROM generate_series(0, $2 - 1) g ON CONFLICT DO NOTHING`, c.provider, c.n)
	if err != nil {
		return fmt.Errorf("riverjobs: the slots of provider %s: %w", c.provider, err)
	}
	c.seeded.Store(true)
	return nil
}

// renew extends the slot's lease every third of it until ctx ends.
func (c *limited) renew(ctx context.Context, slot int, token string) {
	t := time.NewTicker(c.l.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := c.l.pool.Exec(ctx, `UPDATE duelogic_provider_slots SET lease_until = now() + make_interval(secs => $4)
			WHERE provider = $1 AND slot = $2 AND holder = $3`, c.provider, slot, token, c.l.lease.Seconds())
		if err != nil && ctx.Err() == nil {
			c.l.logger.Warn("riverjobs: could not renew the lease of a provider slot", "provider", c.provider, "slot", slot, "err", err)
		}
	}
}

// release gives the slot back, if token still holds it.
func (c *limited) release(ctx context.Context, slot int, token string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := c.l.pool.Exec(ctx, `UPDATE duelogic_provider_slots SET holder = NULL, lease_until = '-infinity'
		WHERE provider = $1 AND slot = $2 AND holder = $3`, c.provider, slot, token)
	if err != nil {
		c.l.logger.Warn("riverjobs: could not give back a provider slot; its lease frees it", "provider", c.provider, "slot", slot, "err", err)
	}
}

// beginCall stamps the start of a call with the database's clock if fewer
// than $3 calls of provider $1 began in the window of $2 seconds, and prunes
// the calls older than the window. It runs under the provider's advisory
// lock, so the count and the stamp are one step across every process. It
// returns whether the call may begin and, when not, the seconds until the
// oldest call in the window leaves it.
const beginCall = `WITH t AS (SELECT clock_timestamp() AS now, make_interval(secs => $2) AS win),
gone AS (DELETE FROM duelogic_provider_calls d USING t WHERE d.provider = $1 AND d.started <= t.now - t.win),
w AS (SELECT count(*) AS n, min(c.started) AS oldest FROM duelogic_provider_calls c, t
	WHERE c.provider = $1 AND c.started > t.now - t.win),
ins AS (INSERT INTO duelogic_provider_calls (provider, started, holder) SELECT $1, t.now, $4 FROM t, w WHERE w.n < $3)
SELECT w.n < $3, COALESCE(EXTRACT(EPOCH FROM w.oldest + t.win - t.now), 0)::float8 FROM t, w`

// rateLock is the advisory lock of provider $1's rate, within the
// connection's schema.
const rateLock = `SELECT pg_advisory_xact_lock(hashtextextended('duelogic/riverjobs/rate/' || current_schema() || '/' || $1, 0))`

// awaitRate waits until the provider's rate lets a call begin, and stamps
// its start.
func (c *limited) awaitRate(ctx context.Context) error {
	waited, began := false, c.l.now()
	over := func() {}
	defer func() { over() }()
	for {
		wait, err := c.begin(ctx)
		if err != nil {
			return err
		}
		if wait == 0 {
			if waited {
				c.l.logger.Info("riverjobs: the rate of the provider lets a call begin", "provider", c.provider, "rate", c.rate, "window", c.l.window, "waited", c.l.now().Sub(began).Round(time.Millisecond))
			}
			return nil
		}
		if !waited {
			waited = true
			c.l.logger.Info("riverjobs: waiting for the rate of the provider", "provider", c.provider, "rate", c.rate, "window", c.l.window, "for", wait.Round(time.Millisecond))
			over = engine.AnnounceWait(ctx, "the rate of provider "+c.provider)
		}
		if err := c.sleep(ctx, min(max(wait, firstWait), c.l.window), "the rate"); err != nil {
			return err
		}
	}
}

// sleep waits d for what ("a slot", "the rate") of the provider; it
// returns early, with an error, when ctx ends or the attempt yields
// (yieldOf).
func (c *limited) sleep(ctx context.Context, d time.Duration, what string) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("riverjobs: waiting for %s of provider %s: %w", what, c.provider, ctx.Err())
	case <-yieldOf(ctx):
		return fmt.Errorf("riverjobs: waiting for %s of provider %s: %w", what, c.provider, errYield)
	case <-t.C:
		return nil
	}
}

// begin stamps a call's start if the rate lets it begin (and returns 0), or
// returns how long until it may.
func (c *limited) begin(ctx context.Context) (time.Duration, error) {
	var (
		ok   bool
		wait float64
	)
	err := pgx.BeginFunc(ctx, c.l.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, rateLock, c.provider); err != nil {
			return err
		}
		return tx.QueryRow(ctx, beginCall, c.provider, c.l.window.Seconds(), c.rate, c.l.holder).Scan(&ok, &wait)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return 0, fmt.Errorf("riverjobs: the rate of provider %s: %w", c.provider, cerr)
		}
		return 0, fmt.Errorf("riverjobs: the rate of provider %s: %w", c.provider, err)
	}
	if ok {
		return 0, nil
	}
	return max(time.Duration(wait*float64(time.Second)), time.Millisecond), nil
}
