package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/duelogic/duelogic/store"
)

func ExampleMemory() {
	ctx := context.Background()
	s := store.NewMemory()

	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for i, data := range []string{`{"proposition":"Cities should ban cars"}`, `{"speaker":"arbiter","content":"Welcome."}`} {
		rec := store.Record{
			DebateID: "debate-1",
			Seq:      int64(i + 1), // the debate's last Seq + 1
			Time:     start.Add(time.Duration(i) * time.Second),
			Type:     []string{"debate", "utterance"}[i],
			Data:     json.RawMessage(data),
		}
		if err := s.Append(ctx, rec); err != nil {
			log.Fatal(err)
		}
	}

	// Appending a Seq that is taken is a conflict: someone else got there first.
	err := s.Append(ctx, store.Record{DebateID: "debate-1", Seq: 2, Type: "utterance", Data: json.RawMessage(`{}`)})
	fmt.Println(errors.Is(err, store.ErrConflict))

	recs, err := s.Records(ctx, "debate-1")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range recs {
		fmt.Println(r.Seq, r.Type, string(r.Data))
	}
	// Output:
	// true
	// 1 debate {"proposition":"Cities should ban cars"}
	// 2 utterance {"speaker":"arbiter","content":"Welcome."}
}

func ExampleJSONL() {
	dir, err := os.MkdirTemp("", "debates")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	s, err := store.OpenJSONL(dir)
	if err != nil {
		log.Fatal(err)
	}
	rec := store.Record{
		DebateID: "debate-1",
		Seq:      1,
		Time:     time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		Type:     "debate",
		Data:     json.RawMessage(`{"proposition":"Cities should ban cars"}`),
	}
	if err := s.Append(ctx, rec); err != nil { // durable when it returns
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}

	b, err := os.ReadFile(filepath.Join(dir, "debate-1.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))

	// Another process, or a later run, reads the debate back to resume it.
	s, err = store.OpenJSONL(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ids, err := s.Debates(ctx)
	if err != nil {
		log.Fatal(err)
	}
	recs, err := s.Records(ctx, ids[0])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ids, len(recs), recs[0].Time.Equal(rec.Time))

	_, err = s.Records(ctx, "../etc/passwd")
	fmt.Println(err)
	// Output:
	// {"debateId":"debate-1","seq":1,"time":"2025-06-01T12:00:00Z","type":"debate","data":{"proposition":"Cities should ban cars"}}
	// [debate-1] 1 true
	// store: invalid debate ID "../etc/passwd": starts with '.'
}
