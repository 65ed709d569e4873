package index

import (
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestKeys: the posting encoding's pure parts.
func TestKeys(t *testing.T) {
	for _, k := range []string{"http.method", "", "a\xffb"} {
		if KeyPostingHash(k) != PostingHash(KeyPostingPrefix+k, "") {
			t.Errorf("KeyPostingHash(%q) is not the hash of its posting key", k)
		}
	}
	if HourOf(-1) != -1 || HourOf(0) != 0 || HourOf(HourMs-1) != 0 || HourOf(-HourMs) != -1 || HourOf(-HourMs-1) != -2 {
		t.Error("HourOf: not the floor of the hour")
	}
	if got := string(AppendOffsets(nil, []int64{7, 9, 12}, 7)); got != "[0,2,5]" {
		t.Errorf("AppendOffsets: %s", got)
	}
	in := warehouse.Filter{Operator: warehouse.OpIn, Values: []string{"b", "a", "b"}}
	if v, ok := TextEqualityValues(in, 2); !ok || !slices.Equal(v, []string{"a", "b"}) {
		t.Errorf("TextEqualityValues: %q %v", v, ok)
	}
	if _, ok := TextEqualityValues(in, 1); ok {
		t.Error("TextEqualityValues: more values than allowed")
	}
	long := warehouse.Filter{Operator: warehouse.OpEquals, Value: string(make([]byte, MaxIndexedValue+1))}
	if _, ok := TextEqualityValues(long, 1); ok {
		t.Error("TextEqualityValues: a value too long to index")
	}
}
