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

type key struct {
	Key  string `mapstructure:"key"`
	Role string `mapstructure:"role"`
}

type store struct {
	Backend string `mapstructure:"backend"`
}

type nested struct {
	Keys  []key          `mapstructure:"keys"`
	Store store          `mapstructure:"store"`
	Ptrs  []*key         `mapstructure:"ptrs"`
	Named map[string]key `mapstructure:"named"`
}

// TestCheckNested: unknown keys inside this module's nested structs and
// lists and maps of structs are named with their path.
func TestCheckNested(t *testing.T) {
	tests := []struct {
		name    string
		conf    map[string]any
		wantErr string
	}{
		{"known nested keys", map[string]any{"keys": []any{map[string]any{"key": "k", "role": "admin"}}, "store": map[string]any{"backend": "x"}}, ""},
		{"typo in a list item", map[string]any{"keys": []any{map[string]any{"key": "k"}, map[string]any{"key": "k", "rol": "admin"}}},
			"keys[1]: unknown field(s) rol (valid fields: key, role)"},
		{"typo in a list of pointers", map[string]any{"ptrs": []any{map[string]any{"kee": "k"}}}, "ptrs[0]: unknown field(s) kee"},
		{"typo in a nested struct", map[string]any{"store": map[string]any{"bakend": "x"}}, "store: unknown field(s) bakend (valid fields: backend)"},
		{"known keys in a map of structs", map[string]any{"named": map[string]any{"a": map[string]any{"key": "k"}, "b": map[string]any{"role": "r"}}}, ""},
		{"typo in a map of structs", map[string]any{"named": map[string]any{"a": map[string]any{"key": "k"}, "b": map[string]any{"kye": "k"}}},
			"named.b: unknown field(s) kye (valid fields: key, role)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(confmap.NewFromStringMap(tt.conf), &nested{})
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
