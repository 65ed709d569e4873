// Package tenantprocessor is the tenant processor: it files every OTLP
// request under the environment of the API key that authenticated it
// (through the evalapi authenticator), whatever environment the resource
// declares, and rejects spans whose trace or span id is all zero. Put it
// before any batch processor: batching drops the request's auth context.
package tenantprocessor

// Config is the configuration of the tenant processor. It has no fields:
// the environment comes from the authenticated API key.
type Config struct{}

// Validate checks the configuration.
func (c *Config) Validate() error { return nil }
