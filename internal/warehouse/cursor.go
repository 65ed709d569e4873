package warehouse

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// SpanCursor is the decoded state of a span query cursor: keyset
// pagination on (sort value, Seq) within the snapshot Seq <= Snapshot taken
// by the first page, so pages never repeat or skip a span while new spans
// arrive, and Total (counted once, on the first page) stays exact.
type SpanCursor struct {
	Snapshot int64  // highest insertion sequence number visible to the pagination
	Total    int64  // total_results, counted on the first page
	Seq      int64  // insertion sequence number of the last span returned
	Num      int64  // last sort value, for numeric sort keys
	Str      string // last sort value, for text sort keys
}

// spanCursorWire is the JSON inside the opaque cursor string.
type spanCursorWire struct {
	V    int    `json:"v"`
	Hash string `json:"h"`
	Snap int64  `json:"s"`
	Tot  int64  `json:"t"`
	Seq  int64  `json:"q"`
	Num  int64  `json:"n,omitempty"`
	// Str is the text sort value as bytes (base64 in JSON), so that text
	// which is not valid UTF-8 survives the round trip exactly.
	Str []byte `json:"b,omitempty"`
}

const spanCursorVersion = 2

// Fingerprint is a short hash of everything that shapes the result of q
// except the page size and the cursor: environments (in any order), time
// range, filters, search text, sort. A cursor only continues the query it was made for.
func (q SpanQuery) Fingerprint() string {
	envs := slices.Clone(q.Environments)
	slices.Sort(envs)
	b, _ := json.Marshal(struct {
		E        []string
		From, To int64
		F        []Filter
		S        SortKey
		D        bool
		T        string `json:",omitempty"`
	}{envs, q.FromMs, q.ToMs, q.Filters, q.SortBy, q.Desc, q.Text})
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// EncodeSpanCursor returns the opaque cursor string continuing q after c.
func EncodeSpanCursor(q SpanQuery, c SpanCursor) string {
	b, _ := json.Marshal(spanCursorWire{V: spanCursorVersion, Hash: q.Fingerprint(),
		Snap: c.Snapshot, Tot: c.Total, Seq: c.Seq, Num: c.Num, Str: []byte(c.Str)})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeSpanCursor decodes q.Cursor; ok is false when q has no cursor. A
// cursor that is malformed or was made for another query (other parameters
// or environments) is a *QueryError on "cursor".
func DecodeSpanCursor(q SpanQuery) (c SpanCursor, ok bool, err error) {
	if q.Cursor == "" {
		return c, false, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	var w spanCursorWire
	if err == nil {
		err = json.Unmarshal(b, &w)
	}
	if err != nil || w.V != spanCursorVersion || w.Snap < 0 || w.Tot < 0 || w.Seq < 0 {
		return c, false, queryErrorf("cursor", "malformed cursor")
	}
	if w.Hash != q.Fingerprint() {
		return c, false, queryErrorf("cursor", "cursor belongs to a different query; keep the other parameters the same on every page")
	}
	return SpanCursor{Snapshot: w.Snap, Total: w.Tot, Seq: w.Seq, Num: w.Num, Str: string(w.Str)}, true, nil
}

// The metric cursor is an integer: the snapshot sequence number taken by
// the first page (the highest point sequence number then visible) times
// 2^metricOffsetBits plus the offset of the next page within that snapshot.
// Points arriving later have higher sequence numbers and stay out of the
// pagination, so every point is returned exactly once and the order (sort
// key, then sequence number) cannot shift. While the snapshot stays below
// 2^31 the cursor stays below 2^53, exact in JavaScript numbers.
const (
	metricOffsetBits = 22
	// MaxMetricOffset is the deepest offset a metric cursor can carry.
	MaxMetricOffset = 1<<metricOffsetBits - 1
)

// EncodeMetricCursor packs a snapshot and an offset into a metric cursor.
func EncodeMetricCursor(snapshot, offset int64) (int64, error) {
	if offset < 1 || offset > MaxMetricOffset {
		return 0, fmt.Errorf("metric cursor offset %d out of range 1..%d", offset, MaxMetricOffset)
	}
	if snapshot < 0 || snapshot > math.MaxInt64>>metricOffsetBits {
		return 0, fmt.Errorf("metric cursor snapshot %d out of range", snapshot)
	}
	return snapshot<<metricOffsetBits | offset, nil
}

// DecodeMetricCursor unpacks a metric cursor; 0 means the first page
// (ok false). A negative cursor or one with offset 0 is a *QueryError.
func DecodeMetricCursor(cursor int64) (snapshot, offset int64, ok bool, err error) {
	if cursor == 0 {
		return 0, 0, false, nil
	}
	offset = cursor & MaxMetricOffset
	if cursor < 0 || offset == 0 {
		return 0, 0, false, ForeignMetricCursor(cursor)
	}
	return cursor >> metricOffsetBits, offset, true, nil
}

// ForeignMetricCursor is the *QueryError of a metric cursor this API
// cannot have returned: negative, offset 0, or (backends check it) a
// snapshot later than any the store has taken.
func ForeignMetricCursor(cursor int64) error {
	return queryErrorf("cursor", "%d is not a cursor returned by this API", cursor)
}

// FormatMetricCursor renders a metric cursor as next_cursor ("" for none).
func FormatMetricCursor(cursor int64) string {
	if cursor == 0 {
		return ""
	}
	return strconv.FormatInt(cursor, 10)
}
