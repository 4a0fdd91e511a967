package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// encodeLine and decodeLine round-trip every record checkRecord accepts, in
// exactly one line.
func FuzzLine(f *testing.F) {
	f.Add([]byte(`{"a":1}`), "utterance", int64(0), 0)
	f.Add([]byte("{\n \"a\": 1\n}\n"), "t", int64(1e18), 330)
	f.Add([]byte(` "x" `), "<&>", int64(-1e18), -1)
	f.Add([]byte(`"\u2028\r"`), "\u2028", int64(123456789), 59)
	f.Add([]byte("\t[1,\r2]"), "é", int64(5), -600)
	f.Fuzz(func(t *testing.T, data []byte, typ string, nsec int64, offSeconds int) {
		rec := Record{
			DebateID: "d-1",
			Seq:      7,
			Time:     time.Unix(0, nsec).In(time.FixedZone("", offSeconds%(24*60*60))),
			Type:     typ,
			Data:     data,
		}
		if checkRecord(rec) != nil {
			return
		}
		line, err := encodeLine(rec)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.IndexAny(line, "\n\r"); i != len(line)-1 {
			t.Fatalf("line break at %d of %q", i, line)
		}
		got, err := decodeLine(line[:len(line)-1])
		if err != nil {
			t.Fatalf("decode %q: %v", line, err)
		}
		if got.DebateID != rec.DebateID || got.Seq != rec.Seq || got.Type != rec.Type ||
			!bytes.Equal(got.Data, rec.Data) || !got.Time.Equal(rec.Time) {
			t.Fatalf("line %q\ndecoded as %+v\nwant %+v", line, got, rec)
		}
	})
}

// scanTail never panics, and what it keeps ends in a record whose Seq it
// returns.
func FuzzScanTail(f *testing.F) {
	line := func(seq int) string {
		l, err := encodeLine(Record{DebateID: "d", Seq: int64(seq), Type: "t", Data: json.RawMessage(`{}`)})
		if err != nil {
			f.Fatal(err)
		}
		return string(l)
	}
	f.Add([]byte(""))
	f.Add([]byte(line(1) + line(2)))
	f.Add([]byte(line(1) + line(2)[:10]))
	f.Add([]byte(line(1) + "x\n"))
	f.Add([]byte(line(1) + "x\ny"))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		last, keep, err := scanTail(bytes.NewReader(content), int64(len(content)), "d")
		if err != nil {
			return
		}
		kept := content[:keep]
		if keep == 0 {
			if last != 0 {
				t.Fatalf("nothing kept, last = %d", last)
			}
			return
		}
		if kept[len(kept)-1] != '\n' {
			t.Fatalf("kept %q: no final newline", kept)
		}
		i := bytes.LastIndexByte(kept[:len(kept)-1], '\n') + 1
		rec, err := decodeLine(kept[i : len(kept)-1])
		if err != nil || rec.Seq != last {
			t.Fatalf("kept %q: last line %v seq %d, want seq %d", kept, err, rec.Seq, last)
		}
		if cut := bytes.Count(content[keep:], []byte{'\n'}); cut > 1 {
			t.Fatalf("cut %d lines off %q", cut, content)
		}
	})
}

// Long lines make readTail read further back.
func TestScanTailLongLines(t *testing.T) {
	var content []byte
	for seq := int64(1); seq <= 3; seq++ {
		l, err := encodeLine(Record{DebateID: "d", Seq: seq, Type: "t", Data: json.RawMessage(`"` + string(bytes.Repeat([]byte("x"), 40<<10)) + `"`)})
		if err != nil {
			t.Fatal(err)
		}
		content = append(content, l...)
	}
	full := int64(len(content))
	content = append(content, "garbage\n"...)
	last, keep, err := scanTail(bytes.NewReader(content), int64(len(content)), "d")
	if err != nil || last != 3 || keep != full {
		t.Errorf("scanTail = %d, %d, %v; want 3, %d, nil", last, keep, err, full)
	}
}

// An Append waiting for another goroutine of this process to finish with the
// debate's file gives up when its ctx is done.
func TestJSONLWaitHonoursContext(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		s, err := OpenJSONL(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		d := &debateFile{sem: make(chan struct{}, 1)}
		d.sem <- struct{}{} // busy
		s.debates["d"] = d

		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		rec := Record{DebateID: "d", Seq: 1, Type: "t", Data: json.RawMessage(`{}`)}
		start := time.Now()
		if err := s.Append(ctx, rec); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Append: got error %v, want context.DeadlineExceeded", err)
		}
		if waited := time.Since(start); waited != time.Minute {
			t.Errorf("Append waited %v, want the 1m timeout", waited)
		}
		<-d.sem // not busy any more
		if err := s.Append(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	})
}
