package organizations

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// CacheOptions tune a Cache; the zero value gives the defaults.
type CacheOptions struct {
	// NegativeSize bounds the remembered unknown digests (default 10 000):
	// a flood of made-up keys evicts its own oldest entries and cannot
	// grow the cache.
	NegativeSize int
	// MissLookups bounds the warehouse lookups of digests the cache does
	// not know, per second (default 20, with bursts of twice that): beyond
	// it an unknown key is refused without asking, until the next refresh.
	MissLookups float64
	// LookupTimeout bounds one such lookup (default 2s).
	LookupTimeout time.Duration
	Logger        *zap.Logger
}

func (o CacheOptions) withDefaults() CacheOptions {
	if o.NegativeSize <= 0 {
		o.NegativeSize = 10000
	}
	if o.MissLookups <= 0 {
		o.MissLookups = 20
	}
	if o.LookupTimeout <= 0 {
		o.LookupTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o
}

// Cache holds every live runtime API key in memory, by digest, so that
// authenticating a request does not touch the warehouse. Refresh (run every
// poll interval) reloads the keys when the warehouse's APIKeysVersion
// changed, which is one small aggregate otherwise. A digest the cache does
// not know is looked up in the warehouse (a key just made through another
// collector is valid at once), at most MissLookups times a second; unknown
// digests are remembered, a bounded number of them, until the keys change.
// It implements tenant.Resolver.
type Cache struct {
	store warehouse.OrgStore
	opts  CacheOptions

	mu      sync.RWMutex
	keys    map[[sha256.Size]byte]tenant.Tenant // live keys
	orgs    map[string]string                   // environment → organization id
	version string
	loaded  bool

	negMu    sync.Mutex
	negative map[[sha256.Size]byte]struct{}
	negRing  [][sha256.Size]byte // insertion order, for eviction
	negNext  int

	limiter *rate.Limiter
	lookups singleflight.Group
}

var _ tenant.Resolver = (*Cache)(nil)

// NewCache returns an empty cache over store; Refresh loads it.
func NewCache(store warehouse.OrgStore, opts CacheOptions) *Cache {
	opts = opts.withDefaults()
	return &Cache{
		store: store, opts: opts,
		keys: map[[sha256.Size]byte]tenant.Tenant{}, orgs: map[string]string{},
		negative: map[[sha256.Size]byte]struct{}{}, negRing: make([][sha256.Size]byte, 0, opts.NegativeSize),
		limiter: rate.NewLimiter(rate.Limit(opts.MissLookups), int(2*opts.MissLookups)),
	}
}

func tenantOf(k warehouse.APIKey) tenant.Tenant {
	return tenant.Tenant{Environment: k.Environment, OrganizationID: k.OrgID, ProjectID: k.ProjectID, EnvironmentSlug: k.EnvSlug}
}

// Refresh reloads the keys if they changed in the warehouse since the
// last refresh.
func (c *Cache) Refresh(ctx context.Context) error {
	v, err := c.store.APIKeysVersion(ctx)
	if err != nil {
		return fmt.Errorf("read api keys version: %w", err)
	}
	c.mu.RLock()
	same := c.loaded && v == c.version
	c.mu.RUnlock()
	if same {
		return nil
	}
	all, err := c.store.APIKeys(ctx, "")
	if err != nil {
		return fmt.Errorf("read api keys: %w", err)
	}
	keys := make(map[[sha256.Size]byte]tenant.Tenant, len(all))
	orgs := make(map[string]string, len(all))
	for _, k := range all {
		orgs[k.Environment] = k.OrgID
		if k.RevokedAt != nil {
			continue
		}
		d, ok := parseDigest(k.Digest)
		if !ok {
			c.opts.Logger.Warn("ignoring an api key with a malformed digest", zap.String("key_id", k.ID))
			continue
		}
		keys[d] = tenantOf(k)
	}
	c.mu.Lock()
	c.keys, c.orgs, c.version, c.loaded = keys, orgs, v, true
	c.mu.Unlock()
	c.negMu.Lock()
	clear(c.negative)
	c.negRing, c.negNext = c.negRing[:0], 0
	c.negMu.Unlock()
	return nil
}

// Run refreshes the cache every interval until ctx ends.
func (c *Cache) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := c.Refresh(ctx); err != nil && ctx.Err() == nil {
			c.opts.Logger.Warn("refreshing runtime api keys failed; keeping the ones known", zap.Error(err))
		}
	}
}

// Resolve returns the tenant of a live runtime key by the digest of its
// secret (tenant.Resolver).
func (c *Cache) Resolve(d [sha256.Size]byte) (tenant.Tenant, bool) {
	c.mu.RLock()
	t, ok := c.keys[d]
	c.mu.RUnlock()
	if ok {
		return t, true
	}
	c.negMu.Lock()
	_, known := c.negative[d]
	c.negMu.Unlock()
	if known || !c.limiter.Allow() {
		return tenant.Tenant{}, false
	}
	v, _, _ := c.lookups.Do(string(d[:]), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.LookupTimeout)
		defer cancel()
		k, err := c.store.APIKeyByDigest(ctx, digestHex(d))
		switch {
		case errors.Is(err, warehouse.ErrNotFound) || (err == nil && k.RevokedAt != nil):
			c.remember(d)
			return nil, nil
		case err != nil:
			c.opts.Logger.Warn("looking up an api key failed", zap.Error(err))
			return nil, nil
		}
		t := tenantOf(k)
		c.add(d, k.OrgID, t)
		return t, nil
	})
	if t, ok := v.(tenant.Tenant); ok {
		return t, true
	}
	return tenant.Tenant{}, false
}

// remember records an unknown digest, evicting the oldest when full.
func (c *Cache) remember(d [sha256.Size]byte) {
	c.negMu.Lock()
	defer c.negMu.Unlock()
	if _, ok := c.negative[d]; ok {
		return
	}
	if len(c.negRing) < c.opts.NegativeSize {
		c.negRing = append(c.negRing, d)
	} else {
		delete(c.negative, c.negRing[c.negNext])
		c.negRing[c.negNext] = d
		c.negNext = (c.negNext + 1) % c.opts.NegativeSize
	}
	c.negative[d] = struct{}{}
}

// negativeLen returns the number of remembered unknown digests (tests).
func (c *Cache) negativeLen() int {
	c.negMu.Lock()
	defer c.negMu.Unlock()
	return len(c.negative)
}

// add makes a key valid in this cache at once.
func (c *Cache) add(d [sha256.Size]byte, orgID string, t tenant.Tenant) {
	c.mu.Lock()
	c.keys[d] = t
	c.orgs[t.Environment] = orgID
	c.mu.Unlock()
	c.negMu.Lock()
	delete(c.negative, d)
	c.negMu.Unlock()
}

// forget refuses a key in this cache at once.
func (c *Cache) forget(digest string) {
	d, ok := parseDigest(digest)
	if !ok {
		return
	}
	c.mu.Lock()
	delete(c.keys, d)
	c.mu.Unlock()
}

// OrganizationOf returns the organization of a runtime environment.
func (c *Cache) OrganizationOf(env string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	org, ok := c.orgs[env]
	return org, ok
}
