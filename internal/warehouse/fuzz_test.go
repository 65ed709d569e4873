package warehouse

import (
	"errors"
	"math"
	"testing"
)

// Fuzz targets of the cursors (the query parsers are fuzzed where they
// live, in extension/evalapiextension/internal/httpapi): whatever a caller
// sends as a cursor, decoding never panics and every error is a
// *QueryError (a 400, never a 500).

// maxFuzzInput caps fuzzed inputs so that one execution stays fast.
const maxFuzzInput = 8 << 10

// requireQueryError fails unless err is a *QueryError with a message.
func requireQueryError(t *testing.T, err error) {
	t.Helper()
	var qe *QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("error %v (%T) is not a *QueryError", err, err)
	}
	if qe.Msg == "" {
		t.Fatalf("QueryError %+v has no message", qe)
	}
}

func FuzzDecodeSpanCursor(f *testing.F) {
	query := SpanQuery{Environments: []string{"env-a"}, FromMs: 1000, SortBy: SortTimestamp, Limit: 10}
	valid := EncodeSpanCursor(query, SpanCursor{Snapshot: 10, Total: 4, Seq: 3, Num: 1700000000000})
	for _, seed := range []struct {
		cursor                  string
		snap, total, seq, num   int64
		str                     string
		otherEnv, otherSortDesc bool
	}{
		{valid, 10, 4, 3, 1700000000000, "", false, false},
		{valid, 10, 4, 3, 1700000000000, "", true, false},
		{valid, 10, 4, 3, 1700000000000, "", false, true},
		{"", 0, 0, 0, 0, "", false, false},
		{"abc", 1, 1, 1, math.MinInt64, "name", false, false},
		{"eyJ2IjoxfQ", 0, 0, 0, 0, "", false, false}, // {"v":1}
		{"eyJ2IjoxLCJzIjotMX0", 0, 0, 0, 0, "", false, false},
		{"!!!!", math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, "\u2603", false, false},
		{"", 1, 1, 1, 0, "a\xfe", false, false}, // invalid UTF-8 sort value
		{"", 1, 1, 1, 0, "\xff\xfe\x00", false, false},
		{"bnVsbA", 0, 0, 0, 0, "", false, false}, // null
		{"W10", 0, 0, 0, 0, "", false, false},    // []
	} {
		f.Add(seed.cursor, seed.snap, seed.total, seed.seq, seed.num, seed.str, seed.otherEnv, seed.otherSortDesc)
	}
	f.Fuzz(func(t *testing.T, cursor string, snap, total, seq, num int64, str string, otherEnv, otherSortDesc bool) {
		if len(cursor)+len(str) > maxFuzzInput {
			return
		}
		// Arbitrary cursor text: no panic, a *QueryError or a sane cursor.
		q := query
		q.Cursor = cursor
		c, ok, err := DecodeSpanCursor(q)
		switch {
		case err != nil:
			requireQueryError(t, err)
		case cursor == "" && ok:
			t.Fatalf("an empty cursor decoded as present")
		case ok && (c.Snapshot < 0 || c.Total < 0 || c.Seq < 0):
			t.Fatalf("decoded cursor %+v has negative counters", c)
		}

		// Encoded cursors round-trip for their own query only, whatever
		// bytes the text sort value holds (it was once carried as a JSON
		// string, which turned invalid UTF-8 into U+FFFD and moved the
		// keyset position).
		if snap < 0 || total < 0 || seq < 0 {
			return
		}
		want := SpanCursor{Snapshot: snap, Total: total, Seq: seq, Num: num, Str: str}
		q.Cursor = EncodeSpanCursor(query, want)
		got, ok, err := DecodeSpanCursor(q)
		if err != nil || !ok || got != want {
			t.Fatalf("round trip = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		other := q
		if otherEnv {
			other.Environments = []string{"env-b"}
		}
		if otherSortDesc {
			other.Desc = true
		}
		if otherEnv || otherSortDesc {
			if _, _, err := DecodeSpanCursor(other); err == nil {
				t.Fatalf("cursor accepted for another query (other env %v, desc %v)", otherEnv, otherSortDesc)
			} else {
				requireQueryError(t, err)
			}
		}
	})
}

func FuzzDecodeMetricCursor(f *testing.F) {
	for _, seed := range []int64{0, 1, -1, MaxMetricOffset, MaxMetricOffset + 1, 1 << metricOffsetBits,
		1<<metricOffsetBits | 5, math.MaxInt64, math.MinInt64} {
		f.Add(seed, seed>>metricOffsetBits, seed&MaxMetricOffset)
	}
	f.Fuzz(func(t *testing.T, cursor, snapshot, offset int64) {
		snap, off, ok, err := DecodeMetricCursor(cursor)
		switch {
		case err != nil:
			requireQueryError(t, err)
			if cursor >= 0 && cursor&MaxMetricOffset != 0 {
				t.Fatalf("cursor %d rejected: %v", cursor, err)
			}
		case cursor == 0:
			if ok || FormatMetricCursor(cursor) != "" {
				t.Fatalf("cursor 0 decoded as present")
			}
		default:
			if !ok || snap < 0 || off < 1 || off > MaxMetricOffset {
				t.Fatalf("cursor %d decoded to snapshot %d offset %d ok %v", cursor, snap, off, ok)
			}
			back, err := EncodeMetricCursor(snap, off)
			if err != nil || back != cursor {
				t.Fatalf("cursor %d re-encodes to %d, %v", cursor, back, err)
			}
		}

		// Encoding accepts exactly the representable pairs and round-trips.
		c, err := EncodeMetricCursor(snapshot, offset)
		representable := offset >= 1 && offset <= MaxMetricOffset && snapshot >= 0 && snapshot <= math.MaxInt64>>metricOffsetBits
		if (err == nil) != representable {
			t.Fatalf("EncodeMetricCursor(%d, %d) error %v, representable %v", snapshot, offset, err, representable)
		}
		if err != nil {
			return
		}
		s, o, ok, err := DecodeMetricCursor(c)
		if err != nil || !ok || s != snapshot || o != offset {
			t.Fatalf("DecodeMetricCursor(EncodeMetricCursor(%d, %d)) = %d, %d, %v, %v", snapshot, offset, s, o, ok, err)
		}
	})
}
