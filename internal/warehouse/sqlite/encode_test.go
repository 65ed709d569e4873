package sqlite

import (
	"encoding/json"
	"testing"
)

func TestEncodeMapMatchesEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    map[string]string
	}{
		{"empty", map[string]string{}},
		{"plain", map[string]string{"b": "2", "a": "1"}},
		{"escapes", map[string]string{"q\"k": "back\\slash", "ctl": "a\nb\tc\r\x01\x1f"}},
		{"html kept", map[string]string{"html": "<b>&amp;</b>"}},
		{"unicode", map[string]string{"ключ": "значение 🚀", "sep": "a\u2028b\u2029c"}},
		{"invalid utf8", map[string]string{"bad": "a\xffb\xc3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := encodeMap(tc.m)
			var back map[string]string
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("encodeMap output %q is not JSON: %v", got, err)
			}
			var want map[string]string
			ref, _ := json.Marshal(tc.m)
			if err := json.Unmarshal(ref, &want); err != nil {
				t.Fatal(err)
			}
			if len(back) != len(want) {
				t.Fatalf("decoded %v, want %v", back, want)
			}
			for k, v := range want {
				if back[k] != v {
					t.Errorf("key %q: decoded %q, want %q", k, back[k], v)
				}
			}
		})
	}
}
