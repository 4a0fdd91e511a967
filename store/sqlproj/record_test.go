package sqlproj_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/sqlproj"
)

func TestCheckRecord(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	ok := store.Record{DebateID: "dl-1", Seq: 1, Type: "debate", Time: at, Data: []byte(`{}`)}
	for _, tc := range []struct {
		name string
		edit func(*store.Record)
		want error
	}{
		{"valid", func(*store.Record) {}, nil},
		{"quotes and SQL kept", func(r *store.Record) { r.DebateID = `'); DROP TABLE records; --` }, nil},
		{"longest ID", func(r *store.Record) { r.DebateID = strings.Repeat("a", sqlproj.MaxIDLen) }, nil},
		{"empty ID", func(r *store.Record) { r.DebateID = "" }, store.ErrInvalidID},
		{"ID too long", func(r *store.Record) { r.DebateID = strings.Repeat("a", sqlproj.MaxIDLen+1) }, store.ErrInvalidID},
		{"ID not UTF-8", func(r *store.Record) { r.DebateID = "bad\xff" }, store.ErrInvalidID},
		{"ID with NUL", func(r *store.Record) { r.DebateID = "a\x00b" }, store.ErrInvalidID},
		{"type with NUL", func(r *store.Record) { r.Type = "de\x00bate" }, store.ErrInvalidRecord},
		{"data not JSON", func(r *store.Record) { r.Data = []byte(`{`) }, store.ErrInvalidRecord},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := ok
			tc.edit(&rec)
			err := sqlproj.CheckRecord(rec)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("CheckRecord: %v, want %v", err, tc.want)
			}
		})
	}
}

// A stored time reads back to the same instant and offset; an offset with
// seconds, which RFC 3339 cannot write, is kept as UTC.
func TestEncodeTime(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2025, 6, 1, 12, 0, 0, 123456789, time.UTC),
		time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("", 5*3600+30*60)),
		time.Date(1900, 1, 1, 0, 0, 0, 0, time.FixedZone("LMT", -17762)),
	} {
		back, err := time.Parse(time.RFC3339Nano, sqlproj.EncodeTime(at))
		if err != nil || !back.Equal(at) {
			t.Errorf("EncodeTime(%v) reads back as %v (%v)", at, back, err)
		}
		if _, off := at.Zone(); off%60 == 0 {
			if _, got := back.Zone(); got != off {
				t.Errorf("EncodeTime(%v): offset %d, want %d", at, got, off)
			}
		}
	}
	if _, _, err := sqlproj.FirstRecord("dl-1", "debate", "yesterday", `{}`); err == nil || !strings.Contains(err.Error(), `"yesterday"`) {
		t.Errorf("FirstRecord of a bad stored time: %v", err)
	}
}
