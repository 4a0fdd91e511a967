package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/jobs/riverjobs"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
)

// enqueueServer is a web server in enqueue mode on a new schema, and a
// worker of the same database in the test's process (as
// examples/worker runs it elsewhere) playing with model.
func enqueueServer(t *testing.T, model llm.Client) (*server, string, *pgstore.Store, *pgxpool.Pool) {
	t.Helper()
	return enqueueServerWith(t, model, nil)
}

// enqueueServerWith is enqueueServer whose worker adds opts' engine
// options to every debate it plays (riverjobs.Config.Options).
func enqueueServerWith(t *testing.T, model llm.Client, opts func(string) []engine.Option) (*server, string, *pgstore.Store, *pgxpool.Pool) {
	t.Helper()
	dsn := pgDSN(t)
	ctx := context.Background()
	pg, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	q, err := riverjobs.New(ctx, pool, riverjobs.Config{Store: pg, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	feed := pgstore.NewFeed(pg)
	fctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { feed.Run(fctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})

	w, err := riverjobs.New(ctx, pool, riverjobs.Config{Store: pg, Model: model, Concurrency: 2, Logger: quiet, ID: "test-worker", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Shutdown(10 * time.Second); err != nil {
			t.Error(err)
		}
	})

	// The web server plays nothing itself: a model that refuses every call
	// would fail a debate it played.
	s := newServer(refusing{}, pg, nil)
	s.enqueueTo(q, pg, feed)
	hs := serve(t, s)
	return s, hs.URL, pg, pool
}

// refusing is a model that refuses every call.
type refusing struct{}

func (refusing) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, io.ErrUnexpectedEOF
}

// sseEvent is an event read from a stream, and when it was read.
type sseEvent struct {
	typ string
	id  int64
	at  time.Time
}

// readTimed reads a debate's event stream to its end, timing each event.
func readTimed(t *testing.T, url string) []sseEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			cur.id, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			cur.typ, cur.at = v, time.Now()
		}
		if line == "" && cur.typ != "" {
			out = append(out, cur)
			cur = sseEvent{}
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the stream of %s did not end within a minute", url)
	}
	return out
}

// TestEnqueueMode: issue 25, item 3. A web server started with -enqueue
// plays nothing: a debate posted from the page is queued, a worker plays
// it, and the page's event stream follows it from the store — every event
// the records announce, up to debate_ended, each within a second of its
// commit. A moderated debate's questions pause it; each answer from the
// page queues it again, and the worker answers the question with it.
func TestEnqueueMode(t *testing.T) {
	stub := llm.NewStub(1)
	stub.TokenDelay = time.Millisecond
	_, base, pg, pool := enqueueServer(t, stub)
	ctx := context.Background()

	type step struct{ path, body, waiting string }
	tests := []struct {
		name, format, body string
		steps              []step // the answers, after each pause
	}{
		{"formal", "formal", `{"proposition": "Should cities ban private cars?"}`, nil},
		{"moderated with its person", "moderated", `{"proposition": "Redis or PostgreSQL?", "config": {"maxRounds": 2}}`, []step{
			{"clarification", `{"answer": "We already run PostgreSQL 16."}`, engine.QuestionClarification},
			{"checkpoint", `{"action": "end"}`, engine.QuestionCheckpoint},
			{"approval", `{"approve": true}`, engine.QuestionApproval},
		}},
	}
	var latencies []time.Duration
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := create(t, base, tt.format, tt.body)
			var got []sseEvent
			var last int64
			stream := func() []sseEvent {
				evs := readTimed(t, base+"/api/debates/"+id+"/events?after="+strconv.FormatInt(last, 10))
				for _, e := range evs {
					last = max(last, e.id)
				}
				return evs
			}
			for _, st := range tt.steps {
				evs := stream()
				if n := len(evs); n == 0 || evs[n-1].typ != "stopped" {
					t.Fatalf("before the %s: the stream ends with %v; want stopped (paused)", st.path, evs)
				}
				got = append(got, evs[:len(evs)-1]...)
				v := getView(t, base, id)
				if v.Status != statusPaused || v.Waiting != st.waiting {
					t.Fatalf("before the %s: status %s waiting %q; want paused waiting %q", st.path, v.Status, v.Waiting, st.waiting)
				}
				if code, e := post(t, base+"/api/debates/"+id+"/"+st.path, st.body); code != http.StatusAccepted {
					t.Fatalf("POST %s: %d %+v", st.path, code, e)
				}
				if v := getView(t, base, id); v.Status != statusRunning {
					t.Errorf("after the %s: status %s; want running (queued)", st.path, v.Status)
				}
				if code, _ := post(t, base+"/api/debates/"+id+"/"+st.path, st.body); code != http.StatusConflict {
					t.Errorf("POST %s again while queued: %d; want 409", st.path, code)
				}
			}
			got = append(got, stream()...)
			if n := len(got); n == 0 || got[n-1].typ != "debate_ended" {
				t.Fatalf("the stream ends with %v; want debate_ended", got[max(0, n-3):])
			}

			recs, err := pg.Records(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := engine.Replay(recs)
			if err != nil {
				t.Fatal(err)
			}
			var gotSeq, wantSeq []string
			for _, e := range got {
				gotSeq = append(gotSeq, e.typ+" "+strconv.FormatInt(e.id, 10))
			}
			for _, e := range want {
				wantSeq = append(wantSeq, string(e.Type)+" "+strconv.FormatInt(e.Seq, 10))
			}
			if !slices.Equal(gotSeq, wantSeq) {
				t.Errorf("streamed %q;\nwant the stored events %q", gotSeq, wantSeq)
			}
			if v := getView(t, base, id); v.Status != statusFinished {
				t.Errorf("status %s; want finished", v.Status)
			}

			// Each event's delay from its record's commit (stored_at is the
			// transaction's start: an upper bound).
			stored := map[int64]time.Time{}
			rows, err := pool.Query(ctx, `SELECT seq, stored_at FROM records WHERE debate_id = $1`, id)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var seq int64
				var at time.Time
				if err := rows.Scan(&seq, &at); err != nil {
					t.Fatal(err)
				}
				stored[seq] = at
			}
			for _, e := range got {
				d := e.at.Sub(stored[e.id])
				latencies = append(latencies, d)
				if d > time.Second {
					t.Errorf("%s %d reached the page %v after it was stored; want within a second", e.typ, e.id, d)
				}
			}
		})
	}
	if n := len(latencies); n > 0 {
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		t.Logf("append→SSE over %d events: median %v, p95 %v, max %v", n, latencies[n/2], latencies[n*95/100], latencies[n-1])
	}

	var list []debateItem
	call(t, "GET", base+"/api/debates", "", &list)
	for _, d := range list {
		if d.Status != statusFinished {
			t.Errorf("history: %s %s; want finished", d.ID, d.Status)
		}
	}
}
