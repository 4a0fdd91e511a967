package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// podcastConfig is the podcast of the debate tests: short, with
// interruptions (which cut streamed turns) and strict evaluations.
func podcastConfig() duelogic.Config {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.CooldownSeconds = 0
	cfg.Interruptions.Aggressiveness = 5
	cfg.Arbiter.AccountabilityLevel = duelogic.Strict
	return cfg
}

// pinned is the clock of every play, so that plays on two stores compare.
func pinned() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// stubClient is the model of every play: the stub with a seed whose
// podcast has interruptions.
func stubClient() llm.Client { return llm.NewStub(3) }

// playPodcast plays (or with resume, resumes with engine.ResumeStored) the
// test podcast id on st.
func playPodcast(ctx context.Context, st store.Store, id string, resume bool) (*engine.Result[engine.Outcome], error) {
	opts := []engine.Option{engine.WithStore(st), engine.WithClock(pinned)}
	if resume {
		return engine.ResumeStored(ctx, stubClient(), id, opts...)
	}
	f, err := duelogic.NewPodcast(podcastConfig())
	if err != nil {
		return nil, err
	}
	res, err := engine.Run(ctx, stubClient(), engine.Erase(f), engine.Debate{ID: id, Proposition: "Should cities ban private cars?"}, opts...)
	return res, err
}

// killingProjection is the projection of a child that plays a debate: it
// kills its own process (SIGKILL) inside the transaction that appends
// record SQLITESTORE_AT, after its insert, when SQLITESTORE_PHASE is "mid".
func killingProjection() projector {
	p := projection
	at, _ := strconv.ParseInt(os.Getenv("SQLITESTORE_AT"), 10, 64)
	if os.Getenv("SQLITESTORE_PHASE") == "mid" {
		p.project = func(_ context.Context, _ *sql.Tx, rec store.Record) error {
			if rec.Seq == at {
				die()
			}
			return nil
		}
	}
	return p
}

// die kills this process with SIGKILL, as kill -9 does.
func die() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// killer kills its process when record at is appended: before the append
// ("before") or after it returned ("after"); "mid" is killingProjection's.
type killer struct {
	*Store
	at    int64
	phase string
}

func (k killer) Append(ctx context.Context, rec store.Record) error {
	if rec.Seq == k.at && k.phase == "before" {
		die()
	}
	err := k.Store.Append(ctx, rec)
	if rec.Seq == k.at && k.phase == "after" {
		die()
	}
	return err
}

// playUntilKilled plays the test podcast SQLITESTORE_ID on st, killing
// itself at record SQLITESTORE_AT (see killer); it exits 0 only if the
// debate ends first.
func playUntilKilled(ctx context.Context, st *Store) int {
	at, _ := strconv.ParseInt(os.Getenv("SQLITESTORE_AT"), 10, 64)
	k := killer{Store: st, at: at, phase: os.Getenv("SQLITESTORE_PHASE")}
	if _, err := playPodcast(ctx, k, os.Getenv("SQLITESTORE_ID"), false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// kill -9 mid-debate, 20 trials: a child process plays a podcast into the
// file and is killed with SIGKILL at a random record — before its append,
// inside its transaction after the insert, or after its commit. The store
// holds exactly the records committed before the kill, the debate's lock
// is free, and engine.ResumeStored finishes the debate with the log and
// transcript of an uninterrupted run.
func TestKillMidDebate(t *testing.T) {
	const trials = 20
	ctx := t.Context()
	mem := store.NewMemory()
	want, err := playPodcast(ctx, mem, "killed", false)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := logOf(t, mem, "killed")
	n := len(wantLog)

	st := openTest(t)
	rng := rand.New(rand.NewPCG(26, 2))
	phases := []string{"before", "mid", "after"}
	for trial := range trials {
		id := "killed" // the same ID: formats write it into what they say
		db := fmt.Sprintf("%s.%02d", st.Path(), trial)
		at := 1 + rng.Int64N(int64(n))
		phase := phases[rng.IntN(len(phases))]
		what := fmt.Sprintf("trial %d: killed %s record %d of %d", trial, phase, at, n)
		cmd, _, _ := startChild(t, "play", db, "SQLITESTORE_ID="+id,
			"SQLITESTORE_AT="+strconv.FormatInt(at, 10), "SQLITESTORE_PHASE="+phase)
		killed(t, cmd)

		s := openAt(t, db)
		kept := at - 1
		if phase == "after" {
			kept = at
		}
		recs, err := s.Records(ctx, id)
		switch {
		case kept == 0 && errors.Is(err, store.ErrNotFound):
		case err != nil:
			t.Fatalf("%s: Records: %v", what, err)
		case int64(len(recs)) != kept:
			t.Fatalf("%s: %d records stored, want the %d committed", what, len(recs), kept)
		}
		if kept > 0 {
			if diff := cmp.Diff(wantLog[:kept], logOf(t, s, id)); diff != "" {
				t.Fatalf("%s: the records stored differ from the uninterrupted run's (-want +got):\n%s", what, diff)
			}
		}
		// engine.ResumeStored takes the debate's lock: the dead child's
		// is free.
		got, err := playPodcast(ctx, s, id, kept > 0)
		if err != nil {
			t.Fatalf("%s: finishing the debate: %v", what, err)
		}
		if diff := cmp.Diff(said(want.Transcript), said(got.Transcript)); diff != "" {
			t.Fatalf("%s: the transcript differs from an uninterrupted run (-want +got):\n%s", what, diff)
		}
		if diff := cmp.Diff(wantLog, logOf(t, s, id)); diff != "" {
			t.Fatalf("%s: the log differs from an uninterrupted run (-want +got):\n%s", what, diff)
		}
		t.Log(what + ": resumed to the uninterrupted run")
	}
}

// said is a transcript as comparable lines: each utterance without its
// Seq and ReplyTo, sorted.
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
// and data, in log order; records stored beside the main flow ("side")
// sorted after the others, with Seq references masked (see pgstore's
// tests).
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
