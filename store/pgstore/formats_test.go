package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/storetest"
	"github.com/google/go-cmp/cmp"
)

// The engine's acceptance runs for every format, on pgstore: each format
// plays to the end with the stub model on PostgreSQL and says what it says
// on store.Memory; a store failure after a few numbers of records stops it
// with the store's error, and Resume on the database finishes it with the
// same transcript and log; the projections hold its transcript, and
// Unfinished lists it exactly while it is stopped. (Issue 15: "the engine's
// acceptance runs for every format on it".)
func TestEveryFormatOnPostgres(t *testing.T) {
	tests := []struct {
		name string
		play func(t *testing.T, dsn string)
	}{
		{"duelogic", func(t *testing.T, dsn string) {
			acceptOnPG(t, dsn, func() (engine.Format[*duelogic.Outcome], error) { return duelogic.NewPodcast(podcastConfig()) })
		}},
		{"formal", func(t *testing.T, dsn string) {
			acceptOnPG(t, dsn, func() (engine.Format[*formal.Outcome], error) { return formal.New(formal.DefaultConfig()) })
		}},
		{"scored", func(t *testing.T, dsn string) {
			acceptOnPG(t, dsn, func() (engine.Format[*scored.Outcome], error) { return scored.New(scored.DefaultConfig()) })
		}},
		{"moderated", func(t *testing.T, dsn string) {
			// No checkpointer: the debate runs to the end without pausing.
			acceptOnPG(t, dsn, func() (engine.Format[*moderated.Outcome], error) { return moderated.New(moderated.DefaultConfig()) })
		}},
		{"persuasion", func(t *testing.T, dsn string) {
			acceptOnPG(t, dsn, func() (engine.Format[*persuasion.Outcome], error) { return persuasion.New(persuasion.DefaultConfig()) })
		}},
	}
	dsn := schemaDSN(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.play(t, dsn) })
	}
}

// pinned is the clock of every run, so that runs on two stores compare.
func pinned() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// acceptOnPG plays the format newFormat returns on pgstore, then on
// pgstore failing after a few numbers of records, and compares each play
// with the same debate (the same ID: formats write it into what they say)
// played on store.Memory.
func acceptOnPG[R any](t *testing.T, dsn string, newFormat func() (engine.Format[R], error)) {
	ctx := context.Background()
	pg := open(t, dsn)
	play := func(st store.Store, id string, resume bool) (*engine.Result[R], error) {
		t.Helper()
		f, err := newFormat()
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		opts := []engine.Option{engine.WithStore(st), engine.WithClock(pinned)}
		if resume {
			return engine.Resume(ctx, stubClient(), f, id, opts...)
		}
		d := engine.Debate{ID: id, Proposition: "Cities should ban private cars from their centres."}
		return engine.Run(ctx, stubClient(), f, d, opts...)
	}
	// same fails t unless debate id on pgstore, played to the end, is the
	// one played uninterrupted on store.Memory; it returns the length of
	// its log.
	same := func(id string, got *engine.Result[R], how string) int {
		t.Helper()
		mem := store.NewMemory()
		want, err := play(mem, id, false)
		if err != nil {
			t.Fatalf("on store.Memory: %v", err)
		}
		if diff := cmp.Diff(said(want.Transcript), said(got.Transcript)); diff != "" {
			t.Fatalf("%s: the transcript on pgstore differs from an uninterrupted run on store.Memory (-memory +pgstore):\n%s", how, diff)
		}
		wantLog := logOf(t, mem, id)
		if diff := cmp.Diff(wantLog, logOf(t, pg, id)); diff != "" {
			t.Fatalf("%s: the log on pgstore differs from an uninterrupted run on store.Memory (-memory +pgstore):\n%s", how, diff)
		}
		if unfinished(t, pg, id) {
			t.Errorf("%s: Unfinished lists the debate after it finished", how)
		}
		projected(t, dsn, id, len(got.Transcript))
		return len(wantLog)
	}

	id := path.Base(t.Name()) // the format's name
	got, err := play(pg, id, false)
	if err != nil {
		t.Fatalf("on pgstore: %v", err)
	}
	n := same(id, got, "played through")

	boom := errors.New("pgstore test: injected store failure")
	for _, k := range failurePoints(n) {
		id := fmt.Sprintf("%s-fail-%03d", path.Base(t.Name()), k)
		how := fmt.Sprintf("store failed after %d records", k)
		if _, err := play(storetest.FailAfter(pg, k, boom), id, false); !errors.Is(err, boom) {
			t.Fatalf("%s: Run returned %v, want the store's error", how, err)
		}
		if got := unfinished(t, pg, id); got != (k > 0) {
			t.Errorf("%s: Unfinished lists the debate: %v, want %v", how, got, k > 0)
		}
		res, err := play(pg, id, k > 0) // nothing stored: run it again
		if err != nil {
			t.Fatalf("%s: finishing the debate on pgstore: %v", how, err)
		}
		same(id, res, how)
	}
	t.Logf("%d records, %d utterances; resumed after store failures at records %v", n, len(got.Transcript), failurePoints(n))
}

// failurePoints are the numbers of records a store takes before it fails:
// none, the debate record only, one in the middle, all but the last.
func failurePoints(n int) []int {
	ks := []int{0, 1, n / 2, n - 1}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// said is a transcript as comparable lines: each utterance without its
// Seq and ReplyTo, sorted. Formats that run turns side by side store them in
// an order that depends on timing; what was said does not.
func said(tr []engine.Utterance) []string {
	var lines []string
	for _, u := range tr {
		u.Seq, u.ReplyTo = 0, 0
		j, err := json.Marshal(u)
		if err != nil {
			panic(err)
		}
		lines = append(lines, string(j))
	}
	sort.Strings(lines)
	return lines
}

// logOf is a debate's log as comparable lines: each record's type, time
// and data, in log order. Records a format stores beside its main flow
// ("side": true, such as formal's verifications) land where timing puts
// them: they are sorted after the others, and since they shift the Seq of
// the records after them, numbers that refer to a record by its Seq are
// masked.
func logOf(t *testing.T, st store.Store, id string) []string {
	t.Helper()
	recs, err := st.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var main, side []string
	for i, r := range recs {
		if r.DebateID != id || r.Seq != int64(i+1) {
			t.Fatalf("record %d of %s: debate %q, Seq %d", i, id, r.DebateID, r.Seq)
		}
		var k struct {
			Side bool `json:"side"`
		}
		if err := json.Unmarshal(r.Data, &k); err != nil {
			t.Fatalf("record %d of %s: %v", r.Seq, id, err)
		}
		line := r.Type + " " + r.Time.UTC().Format(time.RFC3339Nano) + " " + string(r.Data)
		if k.Side {
			side = append(side, line)
		} else {
			main = append(main, line)
		}
	}
	if len(side) == 0 {
		return main
	}
	sort.Strings(side)
	lines := append(main, side...)
	for i, l := range lines {
		lines[i] = seqRef.ReplaceAllString(l, "$1:#")
	}
	return lines
}

// seqRef matches a JSON member that names a record by its Seq.
var seqRef = regexp.MustCompile(`("(?:seq|utteranceSeq|replyTo)"):\d+`)

// unfinished reports whether pgstore lists debate id as unfinished.
func unfinished(t *testing.T, st *pgstore.Store, id string) bool {
	t.Helper()
	ids, err := st.Unfinished(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(ids, id)
}

// projected checks the projections of a finished debate: its debates row
// says finished and the utterances table holds its transcript.
func projected(t *testing.T, dsn, id string, utterances int) {
	t.Helper()
	c := connect(t, dsn)
	var status string
	var n int
	err := c.QueryRow(context.Background(),
		`SELECT status, (SELECT count(*) FROM utterances WHERE debate_id = $1) FROM debates WHERE id = $1`, id).Scan(&status, &n)
	if err != nil {
		t.Fatalf("projections of %s: %v", id, err)
	}
	if status != "finished" || n != utterances {
		t.Errorf("projections of %s: status %q and %d utterances; want finished and %d", id, status, n, utterances)
	}
}
