package clickhouse

import (
	"slices"
	"testing"
	"time"
)

func TestSupportsTTL(t *testing.T) {
	for v, want := range map[string]bool{"18.16.1": false, "19.5.3.8": false, "19.6.2.11": true, "20.3.1": true,
		"24.8.4.13": true, "": false, "x.y": false, "19": false} {
		if got := supportsTTL(v); got != want {
			t.Errorf("supportsTTL(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestExpiredWeeks(t *testing.T) {
	parts := map[int64]int64{2900: 10, 2901: 20, 2902: 5, 2903: 1, 2904: 7, 2905: 3, 2906: 9, 0: 1}
	// The bound is the last millisecond of week 2903: 2903 is not wholly
	// before it, 2902 is.
	bound := 2904*int64(weekMs) - 1
	if got, want := expiredWeeks(parts, bound, 0), []int64{0, 2900, 2901, 2902}; !slices.Equal(got, want) {
		t.Errorf("expiredWeeks = %v, want %v", got, want)
	}
	if got := expiredWeeks(parts, bound+1, 0); !slices.Contains(got, 0) || len(got) != maxDropsPerRun {
		t.Errorf("bound at week 2904's start: %v, want at most %d weeks from the oldest", got, maxDropsPerRun)
	}
	if got, want := expiredWeeks(map[int64]int64{2901: 1, 2902: 1, 2903: 1}, 2904*int64(weekMs), 1), []int64{2901, 2902}; !slices.Equal(got, want) {
		t.Errorf("one week of lag: %v, want %v", got, want)
	}
	if got := expiredWeeks(parts, -5, 0); len(got) != 0 {
		t.Errorf("negative bound: %v", got)
	}
}

func TestTTLStatement(t *testing.T) {
	s := &Store{schema: newSchema("db", "")}
	if got, want := s.ttlStatement(prunedTable{name: "spans", timeCol: "timestamp"}, 30*24*time.Hour),
		"ALTER TABLE `db`.spans MODIFY TTL toDateTime(intDiv(timestamp, 1000)) + INTERVAL 2592000 SECOND"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	s = &Store{schema: newSchema("db", "c1")}
	if got, want := s.ttlStatement(prunedTable{name: "span_traces", timeCol: "min_ts", lagWeeks: 1}, 24*time.Hour),
		"ALTER TABLE `db`.span_traces_local ON CLUSTER c1 MODIFY TTL toDateTime(intDiv(min_ts, 1000)) + INTERVAL 691200 SECOND"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
