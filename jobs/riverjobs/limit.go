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

	"github.com/duelogic/duelogic/llm"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultLease is how long a slot of a [Limiter] is held without renewal:
// the longest a dead worker's slot stays taken.
const DefaultLease = 30 * time.Second

// Limiter keeps at most a number of model calls in flight per provider
// across every process of a database: each call takes a slot — a row of
// the table duelogic_provider_slots, claimed with SELECT ... FOR UPDATE
// SKIP LOCKED — for a lease that the call renews while it runs and gives
// back when it returns. The slot of a worker that died comes back when its
// lease runs out. A call that finds no slot free waits for one, and says so
// in the log.
type Limiter struct {
	pool   *pgxpool.Pool
	holder string
	lease  time.Duration
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
	// Logger receives the waits for a slot (nil: slog.Default()).
	Logger *slog.Logger
	// Clock times the waits it logs (nil: time.Now). The leases are
	// timed by the database's clock.
	Clock func() time.Time
}

// NewLimiter returns a Limiter on the database of pool, which Migrate has
// prepared.
func NewLimiter(pool *pgxpool.Pool, cfg LimiterConfig) *Limiter {
	var b [4]byte
	rand.Read(b[:])
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Limiter{pool: pool, holder: cfg.Holder + "/" + hex.EncodeToString(b[:]), lease: cfg.Lease, logger: cfg.Logger, now: cfg.Clock}
}

// Limit returns c with at most n of its calls, and of the calls of every
// client limited under the same provider name in any process of the
// database, in flight at once. n must be positive. (Processes that give one
// provider different limits each keep to their own.)
func (l *Limiter) Limit(provider string, n int, c llm.Client) llm.Client {
	return &limited{Client: c, l: l, provider: provider, n: n}
}

// limited is a client whose calls take a slot of its provider.
type limited struct {
	llm.Client
	l        *Limiter
	provider string
	n        int

	seeded atomic.Bool // the provider's slot rows exist
}

// Complete calls the model in a slot.
func (c *limited) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	var resp llm.Response
	err := c.inSlot(ctx, func(ctx context.Context) error {
		var err error
		resp, err = c.Client.Complete(ctx, req)
		return err
	})
	return resp, err
}

// Stream streams through the model, when it streams, in a slot.
func (c *limited) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	var resp llm.Response
	err := c.inSlot(ctx, func(ctx context.Context) error {
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

// inSlot runs call holding a slot, renewing its lease until call returns.
func (c *limited) inSlot(ctx context.Context, call func(context.Context) error) error {
	if c.n <= 0 {
		return fmt.Errorf("riverjobs: provider %s: a limit of %d calls", c.provider, c.n)
	}
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
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("riverjobs: waiting for a slot of provider %s: %w", c.provider, ctx.Err())
		case <-t.C:
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
