// Package configcheck finds, in a collector's effective configuration,
// the pipelines that would silently lose or mis-file what the warehouse
// exporter stores, so that the collector refuses to start with an error
// naming the fix instead:
//
//   - a batch processor in front of a warehouse exporter that has no
//     sending_queue: batch acknowledges each request before the exporter
//     stores it and drops the data when a write fails;
//   - a receiver that authenticates with an evalapi extension, and a
//     processor (batch, or any other that may not pass each request's
//     context on) or the exporter's sending_queue between it and the
//     warehouse exporter without a tenant processor before it: the API key
//     of each request is lost on the way, so every span would be filed
//     under the exporter's default_environment, invisible to the key that
//     sent it.
package configcheck

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// Component types the check knows.
const (
	typeWarehouse = "warehouse"
	typeEvalAPI   = "evalapi"
	typeTenant    = "tenant"
	typeBatch     = "batch"
)

// keepsContext are the processor types that hand each request, with its
// context, to the next consumer on the caller's goroutine.
var keepsContext = map[string]bool{"memory_limiter": true, "evaluator": true, typeTenant: true}

// Check returns one error per problem found in conf, the collector's
// effective configuration; nil when there is none.
func Check(conf *confmap.Conf) error {
	raw := conf.ToStringMap()
	service, _ := raw["service"].(map[string]any)
	pipelines, _ := service["pipelines"].(map[string]any)
	receivers, _ := raw["receivers"].(map[string]any)
	exporters, _ := raw["exporters"].(map[string]any)
	names := make([]string, 0, len(pipelines))
	for name := range pipelines {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		p, _ := pipelines[name].(map[string]any)
		if err := checkPipeline(name, p, receivers, exporters); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func checkPipeline(name string, p map[string]any, receivers, exporters map[string]any) error {
	var warehouses, queued []string // warehouse exporters; those with a sending_queue
	for _, id := range idList(p["exporters"]) {
		if typeOf(id) == typeWarehouse {
			warehouses = append(warehouses, id)
			if queueEnabled(exporters[id]) {
				queued = append(queued, id)
			}
		}
	}
	if len(warehouses) == 0 {
		return nil
	}
	processors := idList(p["processors"])
	where := "service::pipelines::" + name
	var errs []error
	if i := slices.IndexFunc(processors, func(id string) bool { return typeOf(id) == typeBatch }); i >= 0 {
		for _, w := range warehouses {
			if !slices.Contains(queued, w) {
				errs = append(errs, fmt.Errorf("%s: processor %q acknowledges each request before exporter %q has stored it, "+
					"and drops the data when a write fails (the exporter has no sending_queue): remove %q from the pipeline "+
					"(the warehouse exporter commits concurrent requests together, and answers only after the commit) "+
					"or enable exporters::%s::sending_queue", where, processors[i], w, processors[i], w))
			}
		}
	}
	receiver, authenticator := authenticatedReceiver(idList(p["receivers"]), receivers)
	if receiver == "" {
		return errors.Join(errs...)
	}
	tenant := slices.IndexFunc(processors, func(id string) bool { return typeOf(id) == typeTenant })
	loses := slices.IndexFunc(processors, func(id string) bool { return !keepsContext[typeOf(id)] })
	switch {
	case loses >= 0 && (tenant < 0 || tenant > loses):
		fix := fmt.Sprintf("put the tenant processor before %q (processors: [tenant, ...]; add tenant: {} under processors)", processors[loses])
		if tenant < 0 {
			fix = fmt.Sprintf("add the tenant processor before %q (processors: [tenant, ...] and tenant: {} under processors)", processors[loses])
		}
		errs = append(errs, fmt.Errorf("%s: receiver %q authenticates with %q, but processor %q may not pass each request's API key on, "+
			"so exporter %q would file every span and point under its default_environment, invisible to the key that sent it: %s",
			where, receiver, authenticator, processors[loses], warehouses[0], fix))
	case loses < 0 && tenant < 0 && len(queued) > 0:
		errs = append(errs, fmt.Errorf("%s: receiver %q authenticates with %q, but exporter %q has a sending_queue, "+
			"which may not keep each request's API key, so it would file every span and point under its default_environment: "+
			"add the tenant processor to the pipeline (processors: [tenant, ...] and tenant: {} under processors)",
			where, receiver, authenticator, queued[0]))
	}
	return errors.Join(errs...)
}

// authenticatedReceiver returns the first of ids whose configuration
// authenticates with an evalapi extension, and that extension's id.
func authenticatedReceiver(ids []string, receivers map[string]any) (receiver, authenticator string) {
	for _, id := range ids {
		if a := findAuthenticator(receivers[id]); a != "" {
			return id, a
		}
	}
	return "", ""
}

// findAuthenticator returns the evalapi authenticator named anywhere in a
// receiver's configuration (auth: {authenticator: evalapi} of any
// protocol).
func findAuthenticator(cfg any) string {
	switch v := cfg.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "auth" {
				if auth, ok := v[k].(map[string]any); ok {
					if a, ok := auth["authenticator"].(string); ok && typeOf(a) == typeEvalAPI {
						return a
					}
				}
			}
			if a := findAuthenticator(v[k]); a != "" {
				return a
			}
		}
	case []any:
		for _, e := range v {
			if a := findAuthenticator(e); a != "" {
				return a
			}
		}
	}
	return ""
}

// queueEnabled reports whether an exporter configuration enables its
// sending_queue (off by default): the key is set, not null and not
// {enabled: false}.
func queueEnabled(cfg any) bool {
	m, _ := cfg.(map[string]any)
	q := m["sending_queue"]
	if q == nil {
		return false
	}
	qm, _ := q.(map[string]any)
	if enabled, ok := qm["enabled"].(bool); ok {
		return enabled
	}
	return true
}

// idList reads a list of component ids.
func idList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// typeOf returns the type of a component id ("batch" of "batch/big").
func typeOf(id string) string {
	t, _, _ := strings.Cut(id, "/")
	return t
}
