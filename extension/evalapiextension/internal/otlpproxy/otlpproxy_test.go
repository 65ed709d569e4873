package otlpproxy

import (
	"testing"

	"go.opentelemetry.io/collector/confmap"
)

func TestReceiverLimit(t *testing.T) {
	conf := func(receivers map[string]any) *confmap.Conf {
		return confmap.NewFromStringMap(map[string]any{"receivers": receivers})
	}
	httpRecv := func(endpoint string, limit any) map[string]any {
		h := map[string]any{"endpoint": endpoint}
		if limit != nil {
			h["max_request_body_size"] = limit
		}
		return map[string]any{"protocols": map[string]any{"http": h}}
	}
	tests := []struct {
		name      string
		receivers map[string]any
		target    string
		want      int64
		wantOK    bool
	}{
		{"same address", map[string]any{"otlp": httpRecv("127.0.0.1:4318", 3<<20)}, "http://127.0.0.1:4318", 3 << 20, true},
		{"default limit", map[string]any{"otlp": httpRecv("127.0.0.1:4318", nil)}, "http://127.0.0.1:4318", 20 << 20, true},
		{"wildcard receiver", map[string]any{"otlp": httpRecv("0.0.0.0:4318", 5<<20)}, "http://127.0.0.1:4318", 5 << 20, true},
		{"localhost and 127.0.0.1", map[string]any{"otlp": httpRecv("localhost:4318", 6<<20)}, "http://127.0.0.1:4318", 6 << 20, true},
		{"default endpoint", map[string]any{"otlp": map[string]any{"protocols": map[string]any{"http": nil}}}, "http://localhost:4318", 20 << 20, true},
		{"other port", map[string]any{"otlp": httpRecv("127.0.0.1:4319", 3<<20)}, "http://127.0.0.1:4318", 0, false},
		{"grpc only", map[string]any{"otlp": map[string]any{"protocols": map[string]any{"grpc": map[string]any{"endpoint": "127.0.0.1:4318"}}}}, "http://127.0.0.1:4318", 0, false},
		{"named receivers, smallest wins", map[string]any{
			"otlp/a": httpRecv("127.0.0.1:4318", 8<<20), "otlp/b": httpRecv("[::1]:4318", 2<<20), "other": httpRecv("127.0.0.1:4318", 1),
		}, "http://127.0.0.1:4318", 2 << 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := receiverLimit(conf(tt.receivers), tt.target)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("receiverLimit = %d, %v; want %d, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
