// Package tenantprocessor is the tenant processor: it stamps the
// environment of the API key that authenticated an OTLP request (through
// the evalapi authenticator) on the request's resources as
// deployment.environment.name, unless the application set one. Put it
// before any batch processor: batching drops the request's auth context.
package tenantprocessor

// Config is the configuration of the tenant processor. It has no fields:
// the environment comes from the authenticated API key.
type Config struct{}

// Validate checks the configuration.
func (c *Config) Validate() error { return nil }
