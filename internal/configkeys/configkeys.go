// Package configkeys rejects unknown keys in component configs that squash
// a struct with its own Unmarshal method (such as confighttp.ServerConfig).
// The collector's confmap then decodes with unused keys ignored, so a typo
// would pass silently; Check restores the error, at the top level and in
// the nested structs, lists of structs and maps of structs of this
// module's own types (api_keys[0].enviroment and
// judge.providers.local.base_ur are named as such).
package configkeys

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// ownModule is the import path prefix of the types whose nested keys are
// checked; the collector's own types check theirs.
const ownModule = "github.com/evalcol/evalcol/"

// Check returns an error naming every key of conf that is not a
// mapstructure key of cfg's type (following ",squash" fields), and every
// unknown key of a nested struct or list of structs of this module.
func Check(conf *confmap.Conf, cfg any) error {
	return check(conf.ToStringMap(), reflect.TypeOf(cfg), "")
}

func check(m map[string]any, t reflect.Type, path string) error {
	fields := map[string]reflect.Type{}
	collect(t, fields)
	var unknown []string
	for k := range m {
		if _, ok := fields[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, 0, len(fields))
		for k := range fields {
			names = append(names, k)
		}
		sort.Strings(names)
		prefix := ""
		if path != "" {
			prefix = path + ": "
		}
		return fmt.Errorf("%sunknown field(s) %s (valid fields: %s)", prefix, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ft := deref(fields[k])
		sub := join(path, k)
		switch v := m[k].(type) {
		case map[string]any:
			if ownStruct(ft) {
				if err := check(v, ft, sub); err != nil {
					return err
				}
				continue
			}
			// A map of structs of this module (judge.providers.<name>).
			if ft == nil || ft.Kind() != reflect.Map || !ownStruct(deref(ft.Elem())) {
				continue
			}
			names := make([]string, 0, len(v))
			for name := range v {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if im, ok := v[name].(map[string]any); ok {
					if err := check(im, deref(ft.Elem()), join(sub, name)); err != nil {
						return err
					}
				}
			}
		case []any:
			if ft.Kind() != reflect.Slice || !ownStruct(deref(ft.Elem())) {
				continue
			}
			for i, item := range v {
				if im, ok := item.(map[string]any); ok {
					if err := check(im, deref(ft.Elem()), fmt.Sprintf("%s[%d]", sub, i)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func ownStruct(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.Struct && strings.HasPrefix(t.PkgPath(), ownModule)
}

// collect maps every mapstructure key of t (following ",squash" fields)
// to its field's type.
func collect(t reflect.Type, known map[string]reflect.Type) {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
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
		known[name] = f.Type
	}
}
