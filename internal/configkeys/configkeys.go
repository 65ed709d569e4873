// Package configkeys rejects unknown keys in component configs that squash
// a struct with its own Unmarshal method (such as confighttp.ServerConfig).
// The collector's confmap then decodes with unused keys ignored, so a typo
// would pass silently; Check restores the error.
package configkeys

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// Check returns an error naming every top-level key of conf that is not a
// mapstructure key of cfg's type (following ",squash" fields).
func Check(conf *confmap.Conf, cfg any) error {
	known := map[string]bool{}
	collect(reflect.TypeOf(cfg), known)
	var unknown []string
	for k := range conf.ToStringMap() {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown field(s) %s (valid fields: %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
}

func collect(t reflect.Type, known map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("mapstructure")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",squash,") {
			collect(f.Type, known)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		known[name] = true
	}
}
