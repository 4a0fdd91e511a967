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

// scanTail, which reads a file's end, agrees with parseLog, which reads it
// all: on the last Seq, on the torn line to cut (bytes after the last
// newline, never a newline), and on damage in the last complete line.
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
	f.Add([]byte(line(1) + line(2)[:len(line(2))-2] + "\n"))
	f.Add([]byte(line(1) + "x\n"))
	f.Add([]byte(line(1) + "x\ny"))
	f.Add([]byte(line(1) + line(3)))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		size := int64(len(content))
		last, keep, err := scanTail(bytes.NewReader(content), size, "d")
		recs, torn, perr := parseLog(content, "d")
		if err != nil {
			var le *lineError
			if !errors.As(err, &le) {
				t.Fatalf("scanTail: %v, not a *lineError", err)
			}
			if le.off < 0 || le.off > size || (le.off > 0 && content[le.off-1] != '\n') {
				t.Fatalf("scanTail: damage at %d, not at a line's start in %q", le.off, content)
			}
			if perr == nil {
				t.Fatalf("scanTail found damage at %d (%v), parseLog none in %q", le.off, err, content)
			}
			return
		}
		if keep < 0 || keep > size || bytes.IndexByte(content[keep:], '\n') >= 0 || (keep > 0 && content[keep-1] != '\n') {
			t.Fatalf("keep %d of %q: not the end of the last complete line", keep, content)
		}
		if perr != nil {
			var le *lineError
			if !errors.As(perr, &le) || le.line < 1 {
				t.Fatalf("parseLog: %v, not a *lineError with a line", perr)
			}
			return // damage before the last complete line, which Append does not read
		}
		if int64(len(recs)) != last || int64(torn) != size-keep {
			t.Fatalf("%q: scanTail says last %d, torn %d; parseLog %d records, torn %d", content, last, size-keep, len(recs), torn)
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
	torn := append(content[:full:full], `{"debateId":"d","seq":4,"data":"`+string(bytes.Repeat([]byte("x"), 40<<10))...)
	last, keep, err := scanTail(bytes.NewReader(torn), int64(len(torn)), "d")
	if err != nil || last != 3 || keep != full {
		t.Errorf("torn: scanTail = %d, %d, %v; want 3, %d, nil", last, keep, err, full)
	}
	damaged := append(content[:full:full], "garbage\n"...)
	_, _, err = scanTail(bytes.NewReader(damaged), int64(len(damaged)), "d")
	var le *lineError
	if !errors.As(err, &le) || le.off != full {
		t.Errorf("damaged: scanTail error %v; want a *lineError at %d", err, full)
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
