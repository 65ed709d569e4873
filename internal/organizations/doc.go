// Package organizations manages the organizations, environments and API
// keys created at run time (POST /v2/organizations): it issues keys (random
// 256-bit secrets, shown once, stored only as SHA-256 digests in the
// warehouse), and resolves them for authentication through a Cache that
// every collector sharing a warehouse keeps in step with it, so that a key
// is valid at once everywhere and a revoked key is refused within one
// refresh interval.
package organizations
