package configkeys

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/confmap"
)

type inner struct {
	Endpoint string `mapstructure:"endpoint"`
	Timeout  int    `mapstructure:"timeout,omitempty"`
}

type outer struct {
	Inner  inner  `mapstructure:",squash"`
	Name   string `mapstructure:"name"`
	Hidden string `mapstructure:"-"`
	_      struct{}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		conf    map[string]any
		wantErr string
	}{
		{"own and squashed keys", map[string]any{"name": "a", "endpoint": "x", "timeout": 1}, ""},
		{"empty", map[string]any{}, ""},
		{"unknown key", map[string]any{"name": "a", "endpont": "x"}, "unknown field(s) endpont (valid fields: endpoint, name, timeout)"},
		{"ignored key is unknown", map[string]any{"hidden": "x"}, "unknown field(s) hidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(confmap.NewFromStringMap(tt.conf), &outer{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
