// Package storetest checks that a [store.Store] implementation keeps the
// contract written in the store package, the way testing/fstest checks an
// fs.FS. A host application that persists debates in its own database runs
// the suite from one of its tests:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			return mydb.NewStore(t.Context(), newTestDB(t))
//		})
//	}
//
// Run the test with -race: several rules are about concurrent use.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// Run checks the store.Store contract, one subtest per rule. Each subtest
// calls newStore for an empty store of its own; newStore may use its t for
// cleanup (t.TempDir, t.Cleanup) and report setup failures with t.Fatal.
// When the store also implements store.Locker, Run checks that contract too
// (the subtests named Lock...): a held lock excludes every other Lock of the
// debate, in this process too, until unlocked.
//
// The suite uses debate IDs of letters, digits and '-' only, Types of ASCII
// letters, and Data that is valid JSON, including pretty-printed JSON with
// newlines, which must come back byte for byte.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			s := newStore(t)
			if s == nil {
				t.Fatal("newStore returned nil")
			}
			if err := r.check(t.Context(), s); err != nil {
				t.Error(err)
			}
		})
	}
	for _, r := range lockRules {
		t.Run(r.name, func(t *testing.T) {
			s := newStore(t)
			if s == nil {
				t.Fatal("newStore returned nil")
			}
			l, ok := s.(store.Locker)
			if !ok {
				t.Skip("the store is not a store.Locker")
			}
			if err := r.check(t.Context(), l); err != nil {
				t.Error(err)
			}
		})
	}
}

// A rule of the contract and how to check it on an empty store. A check
// returns every violation it finds, joined.
var rules = []struct {
	name  string
	check func(ctx context.Context, s store.Store) error
}{
	{"SeqFromOne", checkSeqFromOne},
	{"Conflict", checkConflict},
	{"NotFound", checkNotFound},
	{"RoundTrip", checkRoundTrip},
	{"PerDebate", checkPerDebate},
	{"DebatesSorted", checkDebatesSorted},
	{"ConcurrentDebates", checkConcurrentDebates},
	{"ConcurrentSameSeq", checkConcurrentSameSeq},
	{"NoAliasing", checkNoAliasing},
	{"Canceled", checkCanceled},
}

// when is a time with nanoseconds in a zone other than UTC and Local.
var when = time.Date(2025, 6, 1, 12, 30, 45, 123456789, time.FixedZone("UTC+5:30", 5*60*60+30*60))

// rec returns record seq of debate id, of type "t", with Data {"n":seq}.
func rec(id string, seq int64) store.Record {
	return store.Record{
		DebateID: id,
		Seq:      seq,
		Time:     when.Add(time.Duration(seq) * time.Second),
		Type:     "t",
		Data:     json.RawMessage(fmt.Sprintf(`{"n":%d}`, seq)),
	}
}

// appendAll appends recs in order, stopping at the first error.
func appendAll(ctx context.Context, s store.Store, recs ...store.Record) error {
	for _, r := range recs {
		if err := s.Append(ctx, r); err != nil {
			return fmt.Errorf("Append(debate %q, seq %d): %w", r.DebateID, r.Seq, err)
		}
	}
	return nil
}

// wantRecords checks that the debate holds exactly want.
func wantRecords(ctx context.Context, s store.Store, id string, want []store.Record) error {
	got, err := s.Records(ctx, id)
	if err != nil {
		return fmt.Errorf("Records(%q): %w", id, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("Records(%q) mismatch (-want +got):\n%s", id, diff)
	}
	return nil
}

// wantDebates checks that Debates returns want.
func wantDebates(ctx context.Context, s store.Store, want []string) error {
	got, err := s.Debates(ctx)
	if err != nil {
		return fmt.Errorf("Debates: %w", err)
	}
	if len(want) == 0 && len(got) == 0 {
		return nil // nil and empty alike
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("Debates mismatch (-want +got):\n%s", diff)
	}
	return nil
}

// Seq starts at 1 and goes up by 1; Records returns the records in Seq order.
func checkSeqFromOne(ctx context.Context, s store.Store) error {
	var want []store.Record
	for seq := int64(1); seq <= 5; seq++ {
		want = append(want, rec("seq", seq))
	}
	if err := appendAll(ctx, s, want...); err != nil {
		return err
	}
	return wantRecords(ctx, s, "seq", want)
}

// A Seq other than last+1 is ErrConflict, and nothing is stored.
func checkConflict(ctx context.Context, s store.Store) error {
	var errs []error
	// On a debate with no records, only 1 is right.
	for _, seq := range []int64{0, -1, 2, 3} {
		err := s.Append(ctx, rec("empty", seq))
		if !errors.Is(err, store.ErrConflict) {
			errs = append(errs, fmt.Errorf("Append seq %d to a debate with no records: got error %v, want ErrConflict", seq, err))
		}
	}
	if _, err := s.Records(ctx, "empty"); !errors.Is(err, store.ErrNotFound) {
		errs = append(errs, fmt.Errorf("Records of a debate whose appends all conflicted: got error %v, want ErrNotFound", err))
	}
	if err := wantDebates(ctx, s, nil); err != nil {
		errs = append(errs, fmt.Errorf("after conflicts only: %w", err))
	}

	want := []store.Record{rec("d", 1), rec("d", 2), rec("d", 3)}
	if err := appendAll(ctx, s, want...); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, tc := range []struct {
		what string
		seq  int64
	}{
		{"duplicate of the last", 3},
		{"duplicate of the first", 1},
		{"skipping one", 5},
		{"zero", 0},
		{"negative", -4},
	} {
		r := rec("d", tc.seq)
		r.Data = json.RawMessage(`"conflicting"`)
		err := s.Append(ctx, r)
		if !errors.Is(err, store.ErrConflict) {
			errs = append(errs, fmt.Errorf("Append seq %d (%s) after 3 records: got error %v, want ErrConflict", tc.seq, tc.what, err))
		}
	}
	if err := wantRecords(ctx, s, "d", want); err != nil {
		errs = append(errs, fmt.Errorf("after conflicting appends: %w", err))
	}
	// The log goes on from where it was.
	want = append(want, rec("d", 4))
	if err := appendAll(ctx, s, want[3]); err != nil {
		errs = append(errs, fmt.Errorf("after conflicting appends: %w", err))
	}
	return errors.Join(errs...)
}

// Records of a debate without records is ErrNotFound.
func checkNotFound(ctx context.Context, s store.Store) error {
	var errs []error
	if _, err := s.Records(ctx, "nothing"); !errors.Is(err, store.ErrNotFound) {
		errs = append(errs, fmt.Errorf("Records of an empty store: got error %v, want ErrNotFound", err))
	}
	if err := wantDebates(ctx, s, nil); err != nil {
		errs = append(errs, fmt.Errorf("empty store: %w", err))
	}
	if err := appendAll(ctx, s, rec("something", 1)); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if _, err := s.Records(ctx, "nothing"); !errors.Is(err, store.ErrNotFound) {
		errs = append(errs, fmt.Errorf("Records of an unknown debate: got error %v, want ErrNotFound", err))
	}
	return errors.Join(errs...)
}

// Records returns what was appended: DebateID, Seq, Type, Data byte for byte,
// and Time to the nanosecond (time.Time.Equal, whatever its zone).
func checkRoundTrip(ctx context.Context, s store.Store) error {
	zones := []*time.Location{time.UTC, time.FixedZone("", -(3*60*60 + 30*60)), time.Local}
	datas := []string{
		`{"n":1}`,
		`{ "spaced" : [1, 2.50, -0e3] , "nested": {"a": null} }`,
		"{\n  \"pretty\": [\n    1,\n    2\n  ]\n}",
		"{\"encoder\":true}\n",
		`"a string: \u00e9 \"quoted\" </script> & \\ \ud83d\ude00 ü"`,
		`-12.5e-7`,
		`null`,
		`true`,
		`[]`,
		`{}`,
	}
	var want []store.Record
	for i, data := range datas {
		want = append(want, store.Record{
			DebateID: "round-trip",
			Seq:      int64(i + 1),
			Time:     when.Add(time.Duration(i)*time.Hour + time.Duration(i)).In(zones[i%len(zones)]),
			Type:     []string{"debate", "utterance", "evaluation", "Interruption"}[i%4],
			Data:     json.RawMessage(data),
		})
	}
	want = append(want, store.Record{
		DebateID: "round-trip",
		Seq:      int64(len(want) + 1),
		Time:     time.Time{}, // the zero time, too
		Type:     "zero",
		Data:     json.RawMessage(`0`),
	})
	if err := appendAll(ctx, s, want...); err != nil {
		return err
	}
	return wantRecords(ctx, s, "round-trip", want)
}

// Each debate has its own sequence; Records returns only its own records.
func checkPerDebate(ctx context.Context, s store.Store) error {
	ids := []string{"alpha", "beta", "gamma"}
	want := make(map[string][]store.Record)
	for seq := int64(1); seq <= 3; seq++ {
		for _, id := range ids {
			r := rec(id, seq)
			r.Data = json.RawMessage(fmt.Sprintf(`{"debate":%q,"n":%d}`, id, seq))
			want[id] = append(want[id], r)
			if err := appendAll(ctx, s, r); err != nil {
				return err
			}
		}
	}
	var errs []error
	for _, id := range ids {
		if err := wantRecords(ctx, s, id, want[id]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Debates lists the debates with records, sorted.
func checkDebatesSorted(ctx context.Context, s store.Store) error {
	for _, id := range []string{"b", "a-b", "C", "a", "ab", "b2", "A1"} {
		if err := appendAll(ctx, s, rec(id, 1)); err != nil {
			return err
		}
	}
	return wantDebates(ctx, s, []string{"A1", "C", "a", "a-b", "ab", "b", "b2"})
}

// Appends to different debates may run concurrently.
func checkConcurrentDebates(ctx context.Context, s store.Store) error {
	const debates, records = 8, 10
	errc := make(chan error, debates)
	var wg sync.WaitGroup
	for d := range debates {
		wg.Go(func() {
			id := fmt.Sprintf("concurrent-%d", d)
			for seq := int64(1); seq <= records; seq++ {
				if err := appendAll(ctx, s, rec(id, seq)); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var ids []string
	for d := range debates {
		id := fmt.Sprintf("concurrent-%d", d)
		ids = append(ids, id)
		var want []store.Record
		for seq := int64(1); seq <= records; seq++ {
			want = append(want, rec(id, seq))
		}
		if err := wantRecords(ctx, s, id, want); err != nil {
			errs = append(errs, err)
		}
	}
	if err := wantDebates(ctx, s, ids); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Of concurrent appends of the same Seq to one debate, exactly one succeeds;
// the others get ErrConflict.
func checkConcurrentSameSeq(ctx context.Context, s store.Store) error {
	const writers, records = 6, 5
	var want []store.Record
	for seq := int64(1); seq <= records; seq++ {
		results := make([]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				r := rec("race", seq)
				r.Data = json.RawMessage(fmt.Sprintf(`{"writer":%d}`, w))
				results[w] = s.Append(ctx, r)
			})
		}
		wg.Wait()
		winner := -1
		for w, err := range results {
			switch {
			case err == nil && winner >= 0:
				return fmt.Errorf("seq %d: writers %d and %d both succeeded", seq, winner, w)
			case err == nil:
				winner = w
			case !errors.Is(err, store.ErrConflict):
				return fmt.Errorf("seq %d: writer %d: got error %v, want nil or ErrConflict", seq, w, err)
			}
		}
		if winner < 0 {
			return fmt.Errorf("seq %d: all %d writers got ErrConflict, want one to succeed", seq, writers)
		}
		r := rec("race", seq)
		r.Data = json.RawMessage(fmt.Sprintf(`{"writer":%d}`, winner))
		want = append(want, r)
	}
	return wantRecords(ctx, s, "race", want)
}

// Neither the Data given to Append nor the records Records returns share
// memory with what the store holds.
func checkNoAliasing(ctx context.Context, s store.Store) error {
	data := []byte(`{"n":1}`)
	r := rec("alias", 1)
	r.Data = data
	if err := appendAll(ctx, s, r); err != nil {
		return err
	}
	copy(data, `{"n":9}`)
	want := []store.Record{rec("alias", 1)}
	var errs []error
	if err := wantRecords(ctx, s, "alias", want); err != nil {
		errs = append(errs, fmt.Errorf("after changing the appended Data: %w", err))
	}

	got, err := s.Records(ctx, "alias")
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("Records: %w", err))...)
	}
	for i := range got {
		for j := range got[i].Data {
			got[i].Data[j] = 'x'
		}
		got[i].Type = "changed"
	}
	if len(got) > 0 {
		got[0].Seq = 99
	}
	if err := wantRecords(ctx, s, "alias", want); err != nil {
		errs = append(errs, fmt.Errorf("after changing the records Records returned: %w", err))
	}

	ids, err := s.Debates(ctx)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("Debates: %w", err))...)
	}
	for i := range ids {
		ids[i] = "changed"
	}
	if err := wantDebates(ctx, s, []string{"alias"}); err != nil {
		errs = append(errs, fmt.Errorf("after changing the IDs Debates returned: %w", err))
	}
	return errors.Join(errs...)
}

// A canceled ctx makes every method return ctx's error, and Append store
// nothing.
func checkCanceled(ctx context.Context, s store.Store) error {
	if err := appendAll(ctx, s, rec("before", 1)); err != nil {
		return err
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	var errs []error
	if err := s.Append(canceled, rec("before", 2)); !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("Append with a canceled context: got error %v, want context.Canceled", err))
	}
	if err := s.Append(canceled, rec("new", 1)); !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("Append to a new debate with a canceled context: got error %v, want context.Canceled", err))
	}
	if _, err := s.Records(canceled, "before"); !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("Records with a canceled context: got error %v, want context.Canceled", err))
	}
	if _, err := s.Debates(canceled); !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("Debates with a canceled context: got error %v, want context.Canceled", err))
	}
	if err := wantRecords(ctx, s, "before", []store.Record{rec("before", 1)}); err != nil {
		errs = append(errs, fmt.Errorf("after a canceled Append: %w", err))
	}
	if err := wantDebates(ctx, s, []string{"before"}); err != nil {
		errs = append(errs, fmt.Errorf("after a canceled Append: %w", err))
	}
	return errors.Join(errs...)
}
