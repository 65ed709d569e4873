// Package tenant maps API keys to tenants (environment, organization and
// project) and carries the authenticated tenant through a request or an
// OTLP export: in a context.Context for HTTP handlers and in the collector's
// client.Info auth data for pipelines.
package tenant

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strconv"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/collector/client"
)

// Tenant is what an API key grants access to.
type Tenant struct {
	Environment    string
	OrganizationID string
	ProjectID      string
	// EnvironmentSlug is the environment's name within its organization
	// for the environments of runtime organizations ("prd" of
	// "<org id>/prd"); empty for YAML keys, whose Environment is the name.
	EnvironmentSlug string
	// Admin keys may also manage organizations and their keys.
	Admin bool
}

// ProjectScope is the warehouse document scope of what a tenant's
// organization and project share across their environments (annotation
// tasks, custom evaluators, datasets, experiments).
func (t Tenant) ProjectScope() string {
	return strconv.Quote(t.OrganizationID) + "/" + strconv.Quote(t.ProjectID)
}

// Resolver resolves the SHA-256 digests of keys a Keyring does not hold
// itself (the runtime API keys). It must be safe for concurrent use.
type Resolver interface {
	Resolve(digest [sha256.Size]byte) (Tenant, bool)
}

// Key is one configured API key and its tenant.
type Key struct {
	Secret string
	Tenant Tenant
}

// Keyring authenticates API keys: its own (configured) keys in constant
// time, then, optionally, a Resolver's.
type Keyring struct {
	entries  []entry
	resolver atomic.Pointer[Resolver]
}

type entry struct {
	digest [sha256.Size]byte
	tenant Tenant
}

// NewKeyring returns a keyring of keys. Secrets are kept only as SHA-256
// digests.
func NewKeyring(keys []Key) *Keyring {
	k := &Keyring{entries: make([]entry, len(keys))}
	for i, key := range keys {
		k.entries[i] = entry{digest: sha256.Sum256([]byte(key.Secret)), tenant: key.Tenant}
	}
	return k
}

// Lookup returns the tenant of secret. Every configured key is compared, in
// constant time, so timing reveals neither which key matched nor how much of
// it; a secret none of them matches goes to the resolver, by digest.
func (k *Keyring) Lookup(secret string) (Tenant, bool) {
	if secret == "" {
		return Tenant{}, false
	}
	return k.LookupDigest(sha256.Sum256([]byte(secret)))
}

// LookupDigest is Lookup by the SHA-256 digest of the secret: the console
// checks with it, on every request, that the key a session was opened with
// is still valid.
func (k *Keyring) LookupDigest(d [sha256.Size]byte) (Tenant, bool) {
	var found Tenant
	ok := 0
	for i := range k.entries {
		if subtle.ConstantTimeCompare(d[:], k.entries[i].digest[:]) == 1 {
			found = k.entries[i].tenant
			ok = 1
		}
	}
	if ok == 1 {
		return found, true
	}
	if r := k.resolver.Load(); r != nil {
		return (*r).Resolve(d)
	}
	return Tenant{}, false
}

// SetResolver makes Lookup ask r about keys the keyring does not hold.
func (k *Keyring) SetResolver(r Resolver) { k.resolver.Store(&r) }

// Environments returns the distinct environments of the keyring.
func (k *Keyring) Environments() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range k.entries {
		if !seen[e.tenant.Environment] {
			seen[e.tenant.Environment] = true
			out = append(out, e.tenant.Environment)
		}
	}
	return out
}

// SecretFromAuthorization extracts the API key from an Authorization header
// value: "Bearer <key>" (scheme case-insensitive) or the bare key.
func SecretFromAuthorization(header string) string {
	h := strings.TrimSpace(header)
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return h
}

type contextKey struct{}

// NewContext returns ctx carrying t.
func NewContext(ctx context.Context, t Tenant) context.Context {
	return context.WithValue(ctx, contextKey{}, t)
}

// FromContext returns the tenant in ctx, set by NewContext or by the
// collector's client.Info auth data of an authenticated OTLP request.
func FromContext(ctx context.Context) (Tenant, bool) {
	if t, ok := ctx.Value(contextKey{}).(Tenant); ok {
		return t, true
	}
	if a := client.FromContext(ctx).Auth; a != nil {
		if t, ok := a.GetAttribute(authAttribute).(Tenant); ok {
			return t, true
		}
	}
	return Tenant{}, false
}

// authAttribute is the client.AuthData attribute holding the Tenant.
const authAttribute = "evalcol.tenant"

// AuthData is the collector client.AuthData of an authenticated OTLP request.
type AuthData struct{ Tenant Tenant }

// GetAttribute returns the tenant for "evalcol.tenant" and the environment
// for "environment".
func (a AuthData) GetAttribute(name string) any {
	switch name {
	case authAttribute:
		return a.Tenant
	case "environment":
		return a.Tenant.Environment
	}
	return nil
}

// GetAttributeNames lists the attributes of GetAttribute.
func (a AuthData) GetAttributeNames() []string { return []string{authAttribute, "environment"} }

// NewClientContext returns ctx with client.Info auth data of t, as the OTLP
// receivers' authenticator hands it to the pipeline.
func NewClientContext(ctx context.Context, t Tenant) context.Context {
	info := client.FromContext(ctx)
	info.Auth = AuthData{Tenant: t}
	return client.NewContext(ctx, info)
}
