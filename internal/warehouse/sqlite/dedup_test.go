package sqlite

import (
	"context"
	"github.com/evalcol/evalcol/internal/warehouse"
	"hash/fnv"
	"path/filepath"
	"slices"
	"testing"
)

// TestDedupKeyIsFNV1aOfZeroEndedParts pins the key format: keys already
// stored in a warehouse file must come out the same, or a retried write
// after an upgrade would be stored twice.
func TestDedupKeyIsFNV1aOfZeroEndedParts(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
	}{
		{"none", nil},
		{"one empty", []string{""}},
		{"span", []string{"production", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"}},
		{"non-ASCII", []string{"prod", "ümlaut", "\x00\xff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fnv.New64a()
			for _, p := range tt.parts {
				h.Write([]byte(p))
				h.Write([]byte{0})
			}
			if got, want := dedupKey(tt.parts...), int64(h.Sum64()); got != want {
				t.Errorf("dedupKey(%q) = %d, want %d", tt.parts, got, want)
			}
		})
	}
	if dedupKey("ab", "c") == dedupKey("a", "bc") {
		t.Error(`dedupKey("ab", "c") == dedupKey("a", "bc"): part boundaries are lost`)
	}
}

// TestPointKeyIsStable checks pointKey against its definition: the
// point's fields, then "labels" and "attributes" each followed by the
// map's keys and values in key order, every part 0-ended.
func TestPointKeyIsStable(t *testing.T) {
	v, yes, enum := 0.25, true, "safe"
	base := warehouse.MetricPoint{Environment: "prod", OrganizationID: "org", MetricName: "toxicity-detector.score",
		Source: warehouse.SourceEvaluator, EventTime: 1_790_000_000_123, TraceID: "t1", SpanID: "s1",
		Labels: map[string]string{"monitor_id": "m", "evaluator_name": "toxicity-detector"}, Attributes: map[string]string{"b": "2", "a": "1"}}
	numeric, boolean, enumerated, bare := base, base, base, base
	numeric.NumericValue, boolean.BoolValue, enumerated.EnumValue = &v, &yes, &enum
	bare.Labels, bare.Attributes = nil, map[string]string{}
	tests := []struct {
		name  string
		p     warehouse.MetricPoint
		value []string
	}{
		{"numeric", numeric, []string{"n", "3fd0000000000000"}},
		{"bool", boolean, []string{"b", "true"}},
		{"enum", enumerated, []string{"e", "safe"}},
		{"no value, empty maps", bare, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			parts := append([]string{p.Environment, p.OrganizationID, p.MetricName, p.Source, "1790000000123", p.TraceID, p.SpanID}, tt.value...)
			parts = append(parts, "labels")
			if p.Labels != nil {
				parts = append(parts, "evaluator_name", "toxicity-detector", "monitor_id", "m")
			}
			parts = append(parts, "attributes")
			if len(p.Attributes) > 0 {
				parts = append(parts, "a", "1", "b", "2")
			}
			var le, ae lastEncoding
			if got, want := pointKey(&p, le.encode(p.Labels), ae.encode(p.Attributes)), dedupKey(parts...); got != want {
				t.Errorf("pointKey = %d, want dedupKey(%q) = %d", got, parts, want)
			}
		})
	}
}

// TestLastEncodingReusesOnlyTheSameMap checks that an equal but distinct
// map, or the same map after a change of size, is encoded afresh.
func TestLastEncodingReusesOnlyTheSameMap(t *testing.T) {
	var c lastEncoding
	m := map[string]string{"b": "2", "a": "1"}
	if got := c.encode(m).json; got != `{"a":"1","b":"2"}` {
		t.Fatalf("encode = %s", got)
	}
	if got := c.encode(map[string]string{"a": "x"}).json; got != `{"a":"x"}` {
		t.Errorf("encode of another map = %s, want its own encoding", got)
	}
	m["c"] = "3"
	if got := c.encode(m).json; got != `{"a":"1","b":"2","c":"3"}` {
		t.Errorf("encode after a change = %s", got)
	}
}

// TestInsertKeysReportsFreshKeys checks insertKeys against a real file:
// keys stored by an earlier call, repeated within one call, the same key at
// another time (another key), and more keys than one INSERT carries.
func TestInsertKeysReportsFreshKeys(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "warehouse.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	insert := func(keys ...timedKey) []bool {
		t.Helper()
		tx, err := st.writer.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		fresh, err := insertKeys(ctx, tx, st.stmts, spanKeysTable, keys, make([]int64, len(keys)))
		if err != nil {
			t.Fatalf("insertKeys: %v", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return fresh
	}
	if got, want := insert(timedKey{10, 1}, timedKey{10, 2}, timedKey{10, 2}, timedKey{11, -3}), []bool{true, true, false, true}; !slices.Equal(got, want) {
		t.Errorf("first call: fresh = %v, want %v", got, want)
	}
	if got, want := insert(timedKey{12, 4}, timedKey{10, 1}, timedKey{11, -3}, timedKey{12, 4}, timedKey{12, 5}, timedKey{99, 1}),
		[]bool{true, false, false, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("second call: fresh = %v, want %v", got, want)
	}
	many := make([]timedKey, 2*pairsPerInsert+7)
	for i := range many {
		many[i] = timedKey{12, int64(i) + 3} // 4 and 5 are stored already
	}
	fresh := insert(many...)
	for i, f := range fresh {
		if want := many[i].key != 4 && many[i].key != 5; f != want {
			t.Errorf("key %d of %d: fresh = %v, want %v", many[i].key, len(many), f, want)
		}
	}
	var n int
	if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM span_keys_by_time`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if want := 6 + len(many) - 2; n != want {
		t.Errorf("span_keys_by_time holds %d keys, want %d", n, want)
	}
}
