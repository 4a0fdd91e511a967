package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

func newJSONL(t testing.TB, dir string) *store.JSONL {
	t.Helper()
	s, err := store.OpenJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestMemory(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}

func TestMemoryZeroValue(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return new(store.Memory) })
}

func TestJSONL(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return newJSONL(t, t.TempDir()) })
}

// alternating spreads its calls over several stores, here JSONL values
// sharing one directory as separate processes would.
type alternating struct {
	stores []store.Store
	n      atomic.Uint64
}

func (a *alternating) next() store.Store {
	return a.stores[(a.n.Add(1)-1)%uint64(len(a.stores))]
}
func (a *alternating) Append(ctx context.Context, rec store.Record) error {
	return a.next().Append(ctx, rec)
}
func (a *alternating) Records(ctx context.Context, id string) ([]store.Record, error) {
	return a.next().Records(ctx, id)
}
func (a *alternating) Debates(ctx context.Context) ([]string, error) {
	return a.next().Debates(ctx)
}

func TestJSONLSharedDirectory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		dir := t.TempDir()
		return &alternating{stores: []store.Store{newJSONL(t, dir), newJSONL(t, dir), newJSONL(t, dir)}}
	})
}

// shipped returns the stores of this package, fresh, by name.
func shipped(t *testing.T) map[string]store.Store {
	return map[string]store.Store{"Memory": store.NewMemory(), "JSONL": newJSONL(t, t.TempDir())}
}

func TestInvalidID(t *testing.T) {
	ids := []string{
		"",
		"../x",
		"a/b",
		`a\b`,
		".hidden",
		".",
		"..",
		"x\x00",
		"a b",
		"é",
		"a:b",
		strings.Repeat("a", 129),
	}
	for name, s := range shipped(t) {
		for _, id := range ids {
			t.Run(fmt.Sprintf("%s/%q", name, id), func(t *testing.T) {
				ctx := t.Context()
				rec := store.Record{DebateID: id, Seq: 1, Type: "t", Data: json.RawMessage(`{}`)}
				if err := s.Append(ctx, rec); !errors.Is(err, store.ErrInvalidID) {
					t.Errorf("Append: got error %v, want ErrInvalidID", err)
				}
				if _, err := s.Records(ctx, id); !errors.Is(err, store.ErrInvalidID) {
					t.Errorf("Records: got error %v, want ErrInvalidID", err)
				}
				if ids, err := s.Debates(ctx); err != nil || len(ids) != 0 {
					t.Errorf("Debates = %q, %v; want none", ids, err)
				}
			})
		}
	}
}

func TestValidID(t *testing.T) {
	for name, s := range shipped(t) {
		for _, id := range []string{strings.Repeat("a", 128), "a.b_c-D9", "a..b", "x.", "-", "_"} {
			t.Run(fmt.Sprintf("%s/%q", name, id), func(t *testing.T) {
				rec := store.Record{DebateID: id, Seq: 1, Type: "t", Data: json.RawMessage(`{}`)}
				if err := s.Append(t.Context(), rec); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Records(t.Context(), id); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestInvalidRecord(t *testing.T) {
	good := store.Record{DebateID: "d", Seq: 1, Time: time.Unix(1, 0), Type: "t", Data: json.RawMessage(`{}`)}
	tests := []struct {
		name   string
		change func(*store.Record)
		want   error
	}{
		{"seq 0", func(r *store.Record) { r.Seq = 0 }, store.ErrConflict},
		{"seq -1", func(r *store.Record) { r.Seq = -1 }, store.ErrConflict},
		{"empty type", func(r *store.Record) { r.Type = "" }, store.ErrInvalidRecord},
		{"type not UTF-8", func(r *store.Record) { r.Type = "\xff" }, store.ErrInvalidRecord},
		{"nil data", func(r *store.Record) { r.Data = nil }, store.ErrInvalidRecord},
		{"empty data", func(r *store.Record) { r.Data = json.RawMessage{} }, store.ErrInvalidRecord},
		{"data not JSON", func(r *store.Record) { r.Data = json.RawMessage(`{"a":`) }, store.ErrInvalidRecord},
		{"two JSON values", func(r *store.Record) { r.Data = json.RawMessage(`1 2`) }, store.ErrInvalidRecord},
		{"data not UTF-8", func(r *store.Record) { r.Data = json.RawMessage("\"\xff\"") }, store.ErrInvalidRecord},
		{"year 10000", func(r *store.Record) { r.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, store.ErrInvalidRecord},
		{"year -1", func(r *store.Record) { r.Time = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }, store.ErrInvalidRecord},
		{"offset 24h", func(r *store.Record) { r.Time = r.Time.In(time.FixedZone("", 24*60*60)) }, store.ErrInvalidRecord},
	}
	for name, s := range shipped(t) {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				rec := good
				tc.change(&rec)
				err := s.Append(t.Context(), rec)
				if !errors.Is(err, tc.want) {
					t.Fatalf("Append: got error %v, want %v", err, tc.want)
				}
				if ids, err := s.Debates(t.Context()); err != nil || len(ids) != 0 {
					t.Errorf("Debates = %q, %v; want none", ids, err)
				}
			})
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	rec := store.Record{
		DebateID: "bench",
		Time:     time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		Type:     "utterance",
		Data:     json.RawMessage(`{"speaker":"chair-1","content":"` + strings.Repeat("word ", 200) + `"}`),
	}
	for _, bc := range []struct {
		name string
		new  func(b *testing.B) store.Store
	}{
		{"Memory", func(*testing.B) store.Store { return store.NewMemory() }},
		{"JSONL", func(b *testing.B) store.Store { return newJSONL(b, b.TempDir()) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := bc.new(b)
			ctx := b.Context()
			b.ReportAllocs()
			b.SetBytes(int64(len(rec.Data)))
			seq := int64(0)
			for b.Loop() {
				seq++
				rec.Seq = seq
				if err := s.Append(ctx, rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteFsync is the floor under BenchmarkAppend/JSONL: writing a
// line of the same size to a file and fsyncing it, without encoding, locking
// or reading.
func BenchmarkWriteFsync(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "f"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := []byte(`{"debateId":"bench","seq":1,"time":"2025-06-01T12:00:00Z","type":"utterance","data":{"speaker":"chair-1","content":"` + strings.Repeat("word ", 200) + "\"}}\n")
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckRecord: the exported check refuses what Memory refuses, with the
// same sentinels, whatever the store's rules for IDs.
func TestCheckRecord(t *testing.T) {
	ok := store.Record{DebateID: "d", Seq: 1, Type: "t", Data: []byte(`null`), Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name   string
		change func(*store.Record)
		want   error
	}{
		{"valid", func(*store.Record) {}, nil},
		{"seq 0", func(r *store.Record) { r.Seq = 0 }, store.ErrConflict},
		{"empty type", func(r *store.Record) { r.Type = "" }, store.ErrInvalidRecord},
		{"data not JSON", func(r *store.Record) { r.Data = []byte("{") }, store.ErrInvalidRecord},
		{"year 10000", func(r *store.Record) { r.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, store.ErrInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ok
			tt.change(&rec)
			if err := store.CheckRecord(rec); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("CheckRecord = %v; want %v", err, tt.want)
			}
			if err := store.NewMemory().Append(context.Background(), rec); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Memory.Append = %v; want %v", err, tt.want)
			}
		})
	}
}
