package pgstore_test

import (
	"context"
	"encoding/json"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// podcastConfig is a short podcast whose stub debate (seed 1) has
// evaluations, interjections and interruptions.
func podcastConfig() duelogic.Config {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.CooldownSeconds = 0
	cfg.Interruptions.Aggressiveness = 5
	cfg.Arbiter.AccountabilityLevel = duelogic.Strict
	return cfg
}

// clock is a pinned clock that ticks a second a call.
func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func runPodcast(t *testing.T, st store.Store, d duelogic.Debate, opts ...duelogic.Option) *duelogic.Result {
	t.Helper()
	o, err := duelogic.New(podcastConfig(), stubClient(), append([]duelogic.Option{duelogic.WithStore(st), duelogic.WithClock(clock())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The rows of the projections, as the tests read them.
type (
	debateRow struct {
		ID, Mode, Proposition, Context, Status string
		Config                                 any
		Records                                int64
		Created, Updated                       time.Time
	}
	chairRow struct {
		Position, Framework, ModelID string
		DisplayName, Provider        *string
	}
	utteranceRow struct {
		Seq                    int64
		Speaker, Kind, Segment string
		Exchange               int
		Content                string
		Model                  *string
		Interrupted            bool
		InterruptedBy          *string
		ReplyTo                *int64
		Reason                 *string
	}
	evaluationRow struct {
		Seq, UtteranceSeq int64
		Speaker           string
		Adherence         int
		SteelAttempted    bool
		SteelQuality      string
		CritiqueAttempted bool
		CritiqueQuality   string
		Consistent        bool
		Data              engine.ResponseEvaluation
	}
	interruptionRow struct {
		Seq, UtteranceSeq       int64
		By, Of, Reason, Content string
		Urgency                 float64
		TimestampMS             int64
	}
	projections struct {
		Debate        debateRow
		Chairs        []chairRow
		Utterances    []utteranceRow
		Evaluations   []evaluationRow
		Interruptions []interruptionRow
	}
)

// readProjections reads the debate's rows of every projection.
func readProjections(t *testing.T, c *pgx.Conn, id string) projections {
	t.Helper()
	ctx := context.Background()
	var p projections
	var config []byte
	err := c.QueryRow(ctx, `SELECT id, debate_mode, proposition, context, status, config::text, records, created_at, updated_at
		FROM debates WHERE id = $1`, id).Scan(&p.Debate.ID, &p.Debate.Mode, &p.Debate.Proposition, &p.Debate.Context,
		&p.Debate.Status, &config, &p.Debate.Records, &p.Debate.Created, &p.Debate.Updated)
	if err != nil {
		t.Fatalf("debates row of %q: %v", id, err)
	}
	if err := json.Unmarshal(config, &p.Debate.Config); err != nil {
		t.Fatal(err)
	}
	p.Debate.Created, p.Debate.Updated = p.Debate.Created.UTC(), p.Debate.Updated.UTC()
	rows, _ := c.Query(ctx, `SELECT chair_position, framework, model_id, model_display_name, provider_name
		FROM debate_chairs WHERE debate_id = $1 ORDER BY chair_position`, id)
	p.Chairs = collect(t, rows, func(r pgx.Rows, x *chairRow) error {
		return r.Scan(&x.Position, &x.Framework, &x.ModelID, &x.DisplayName, &x.Provider)
	})
	rows, _ = c.Query(ctx, `SELECT seq, speaker, kind, segment, exchange, content, model, interrupted, interrupted_by,
		reply_to, reason FROM utterances WHERE debate_id = $1 ORDER BY seq`, id)
	p.Utterances = collect(t, rows, func(r pgx.Rows, x *utteranceRow) error {
		return r.Scan(&x.Seq, &x.Speaker, &x.Kind, &x.Segment, &x.Exchange, &x.Content, &x.Model, &x.Interrupted,
			&x.InterruptedBy, &x.ReplyTo, &x.Reason)
	})
	rows, _ = c.Query(ctx, `SELECT seq, utterance_seq, speaker, adherence_score, steel_manning_attempted,
		steel_manning_quality, self_critique_attempted, self_critique_quality, framework_consistent, evaluation_data::text
		FROM response_evaluations WHERE debate_id = $1 ORDER BY seq`, id)
	p.Evaluations = collect(t, rows, func(r pgx.Rows, x *evaluationRow) error {
		var data []byte
		if err := r.Scan(&x.Seq, &x.UtteranceSeq, &x.Speaker, &x.Adherence, &x.SteelAttempted, &x.SteelQuality,
			&x.CritiqueAttempted, &x.CritiqueQuality, &x.Consistent, &data); err != nil {
			return err
		}
		return json.Unmarshal(data, &x.Data)
	})
	rows, _ = c.Query(ctx, `SELECT seq, utterance_seq, interrupting_chair, interrupted_chair, trigger_reason,
		trigger_content, urgency::float8, timestamp_ms FROM chair_interruptions WHERE debate_id = $1 ORDER BY seq`, id)
	p.Interruptions = collect(t, rows, func(r pgx.Rows, x *interruptionRow) error {
		return r.Scan(&x.Seq, &x.UtteranceSeq, &x.By, &x.Of, &x.Reason, &x.Content, &x.Urgency, &x.TimestampMS)
	})
	return p
}

func collect[T any](t *testing.T, rows pgx.Rows, scan func(pgx.Rows, *T) error) []T {
	t.Helper()
	var out []T
	for rows.Next() {
		var x T
		if err := scan(rows, &x); err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func ptr[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// wantProjections derives from a podcast's result and record log what its
// projections must hold.
func wantProjections(t *testing.T, res *duelogic.Result, recs []store.Record) projections {
	t.Helper()
	sum, err := engine.Summarize(recs)
	if err != nil {
		t.Fatal(err)
	}
	var config any
	if err := json.Unmarshal(sum.Spec, &config); err != nil {
		t.Fatal(err)
	}
	p := projections{Debate: debateRow{
		ID: res.DebateID, Mode: duelogic.FormatName, Proposition: res.Debate.Proposition, Context: res.Debate.Context,
		Status: "finished", Config: config, Records: int64(len(recs)),
		Created: recs[0].Time.UTC(), Updated: recs[len(recs)-1].Time.UTC(),
	}}
	for _, c := range res.Detail.Config.Chairs {
		p.Chairs = append(p.Chairs, chairRow{c.Position, string(c.Framework), c.ModelID, ptr(c.ModelDisplayName), ptr(c.ProviderName)})
	}
	for _, u := range res.Transcript {
		p.Utterances = append(p.Utterances, utteranceRow{
			Seq: u.Seq, Speaker: u.Speaker, Kind: string(u.Kind), Segment: string(u.Segment), Exchange: u.Exchange,
			Content: u.Content, Model: ptr(u.Model), Interrupted: u.Interrupted, InterruptedBy: ptr(u.InterruptedBy),
			ReplyTo: ptr(u.ReplyTo), Reason: ptr(u.Reason),
		})
	}
	events, err := engine.Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		switch e.Type {
		case duelogic.EventEvaluation:
			// The evaluated utterance: the one of the transcript that
			// carries this evaluation.
			var of int64
			for _, u := range res.Transcript {
				if u.Evaluation != nil && u.Speaker == e.Speaker && u.Seq < e.Seq {
					of = u.Seq
				}
			}
			evp, ok := duelogic.EvaluationOf(e)
			if !ok {
				continue
			}
			ev := *evp
			p.Evaluations = append(p.Evaluations, evaluationRow{
				Seq: e.Seq, UtteranceSeq: of, Speaker: e.Speaker, Adherence: ev.AdherenceScore,
				SteelAttempted: ev.SteelManning.Attempted, SteelQuality: string(ev.SteelManning.Quality),
				CritiqueAttempted: ev.SelfCritique.Attempted, CritiqueQuality: string(ev.SelfCritique.Quality),
				Consistent: ev.FrameworkConsistency.Consistent, Data: ev,
			})
		case duelogic.EventInterruption:
			c, err := engine.DataAs[duelogic.InterruptCandidate](e)
			if err != nil {
				t.Fatal(err)
			}
			p.Interruptions = append(p.Interruptions, interruptionRow{
				Seq: e.Seq, UtteranceSeq: e.Utterance.Seq, By: c.InterruptingChair.Position, Of: c.InterruptedChair.Position,
				Reason: string(c.TriggerReason), Content: c.TriggerContent, Urgency: math.Round(c.Urgency*100) / 100,
				TimestampMS: e.Time.Sub(recs[0].Time).Milliseconds(),
			})
		}
	}
	return p
}

// The projections of a podcast debate with evaluations and interruptions
// match its record log and its result; Rebuild derives them again.
func TestPodcastProjections(t *testing.T) {
	dsn := schemaDSN(t)
	st := open(t, dsn)
	d := duelogic.Debate{ID: "podcast-1", Proposition: "Should cities ban private cars?", Context: "Air quality is poor."}
	res := runPodcast(t, st, d)
	recs, err := st.Records(t.Context(), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := wantProjections(t, res, recs)
	if len(want.Evaluations) == 0 || len(want.Interruptions) == 0 {
		t.Fatalf("the debate has %d evaluations and %d interruptions; the test needs both", len(want.Evaluations), len(want.Interruptions))
	}
	interrupted := 0
	for _, u := range want.Utterances {
		if u.Interrupted {
			interrupted++
		}
	}
	if interrupted == 0 {
		t.Fatal("no utterance is marked interrupted")
	}
	// The transcript's evaluations are the ones projected.
	for _, e := range want.Evaluations {
		if e.UtteranceSeq == 0 {
			t.Fatalf("evaluation seq %d has no utterance in the transcript", e.Seq)
		}
	}
	t.Logf("%d records: %d utterances (%d interrupted), %d evaluations, %d interruptions, %d chairs",
		len(recs), len(want.Utterances), interrupted, len(want.Evaluations), len(want.Interruptions), len(want.Chairs))
	c := connect(t, dsn)
	got := readProjections(t, c, d.ID)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("projections mismatch (-want +got):\n%s", diff)
	}
	unfinished, err := st.Unfinished(t.Context())
	if err != nil || len(unfinished) != 0 {
		t.Errorf("Unfinished = %q, %v; want none", unfinished, err)
	}

	// Rebuild: after damage, the projections are derived again.
	ctx := context.Background()
	for _, q := range []string{
		`DELETE FROM utterances WHERE debate_id = 'podcast-1' AND seq IN (SELECT seq FROM utterances ORDER BY seq DESC LIMIT 3)`,
		`DELETE FROM chair_interruptions`,
		`UPDATE debates SET status = 'running', proposition = 'damaged'`,
		`DELETE FROM debate_chairs`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Rebuild(t.Context(), d.ID); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, readProjections(t, c, d.ID)); diff != "" {
		t.Fatalf("projections after Rebuild mismatch (-want +got):\n%s", diff)
	}
	if err := st.Rebuild(t.Context(), "no-such-debate"); !errorsIs(err, store.ErrNotFound) {
		t.Errorf("Rebuild of an unknown debate: got error %v, want ErrNotFound", err)
	}
}

var _ = pgstore.Open
