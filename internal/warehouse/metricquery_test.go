package warehouse

import (
	"testing"
)

func TestMetricCursor(t *testing.T) {
	for _, tc := range []struct {
		name             string
		snapshot, offset int64
	}{{"small", 1, 1}, {"typical", 123456, 50}, {"deepest offset", 7, MaxMetricOffset}, {"large snapshot", 1<<31 - 1, 1000}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := EncodeMetricCursor(tc.snapshot, tc.offset)
			if err != nil {
				t.Fatal(err)
			}
			if tc.snapshot < 1<<31 && c >= 1<<53 {
				t.Errorf("cursor %d is not exact in a JSON double", c)
			}
			s, o, ok, err := DecodeMetricCursor(c)
			if err != nil || !ok || s != tc.snapshot || o != tc.offset {
				t.Errorf("decode(%d) = %d, %d, %v, %v; want %d, %d", c, s, o, ok, err, tc.snapshot, tc.offset)
			}
		})
	}
	if _, err := EncodeMetricCursor(1, 0); err == nil {
		t.Error("offset 0 encoded without error")
	}
	if _, err := EncodeMetricCursor(1, MaxMetricOffset+1); err == nil {
		t.Error("offset past the maximum encoded without error")
	}
	if _, _, ok, err := DecodeMetricCursor(0); ok || err != nil {
		t.Errorf("cursor 0: ok %v, err %v; want first page", ok, err)
	}
	if got := FormatMetricCursor(0); got != "" {
		t.Errorf("FormatMetricCursor(0) = %q, want empty", got)
	}
}
