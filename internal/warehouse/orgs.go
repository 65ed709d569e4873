package warehouse

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Organization is a group of environments created at run time (POST
// /v2/organizations). Each of its environments is a tenant, as the
// environment of a YAML API key is, reached with the environment's runtime
// API keys.
type Organization struct {
	ID   string
	Name string
	// RetentionHours is what the creator asked for (Traceloop's field);
	// stored and reported, not enforced.
	RetentionHours int
	CreatedAt      time.Time
	Environments   []OrgEnvironment
	// Version grows with every change; updates are compare-and-set on it.
	Version int64
}

// OrgEnvironment is one environment of an organization.
type OrgEnvironment struct {
	// Slug is the environment's name within the organization ("prd").
	Slug string
	// Environment is the tenant: the environment its keys read and write,
	// unique across organizations ("<org id>/<slug>").
	Environment string
	ProjectID   string
	CreatedAt   time.Time
}

// APIKey is a runtime API key. Its secret is never stored: Digest is the
// hex SHA-256 of it, which is all a lookup needs (the secrets are random,
// 256 bits).
type APIKey struct {
	// ID names the key in listings and revocations; it is not secret.
	ID          string
	Digest      string
	OrgID       string
	EnvSlug     string
	Environment string
	ProjectID   string
	CreatedAt   time.Time
	// RevokedAt is set once the key is revoked; revocation is final.
	RevokedAt *time.Time
}

// OrgStore stores runtime organizations and API keys, shared by every
// collector of a warehouse.
type OrgStore interface {
	// CreateOrganization stores a new organization with the first keys of
	// its environments.
	CreateOrganization(ctx context.Context, org Organization, keys []APIKey) error
	// GetOrganization returns an organization; ErrNotFound when there is
	// none with id.
	GetOrganization(ctx context.Context, id string) (Organization, error)
	// ListOrganizations returns every organization in creation order.
	ListOrganizations(ctx context.Context) ([]Organization, error)
	// UpdateOrganization replaces an organization if its stored Version is
	// org.Version-1 (ErrConflict otherwise, ErrNotFound when there is none).
	UpdateOrganization(ctx context.Context, org Organization) error
	// CreateAPIKey stores a new key.
	CreateAPIKey(ctx context.Context, k APIKey) error
	// RevokeAPIKey revokes a key of organization orgID at time at;
	// ErrNotFound when the organization has no such key. Revoking a revoked
	// key keeps the first revocation.
	RevokeAPIKey(ctx context.Context, orgID, keyID string, at time.Time) error
	// APIKeys returns the keys of organization orgID, revoked ones
	// included, in creation order; every organization's when orgID is "".
	APIKeys(ctx context.Context, orgID string) ([]APIKey, error)
	// APIKeyByDigest returns the key whose secret has that digest;
	// ErrNotFound when there is none.
	APIKeyByDigest(ctx context.Context, digest string) (APIKey, error)
	// APIKeysVersion returns a token that changes whenever a key is added
	// or revoked, so that a cache of the keys knows when to reload. It is
	// cheap: one small aggregate.
	APIKeysVersion(ctx context.Context) (string, error)
}

// OrganizationDocument is the stored JSON form of an organization (its
// version is kept beside it).
type OrganizationDocument struct {
	ID             string                   `json:"id"`
	Name           string                   `json:"name"`
	RetentionHours int                      `json:"retention_hours"`
	CreatedAt      time.Time                `json:"created_at"`
	Environments   []OrgEnvironmentDocument `json:"environments"`
}

// OrgEnvironmentDocument is the stored form of an environment.
type OrgEnvironmentDocument struct {
	Slug        string    `json:"slug"`
	Environment string    `json:"environment"`
	ProjectID   string    `json:"project_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// EncodeOrganization returns the stored JSON form of o.
func EncodeOrganization(o Organization) (string, error) {
	d := OrganizationDocument{ID: o.ID, Name: o.Name, RetentionHours: o.RetentionHours, CreatedAt: o.CreatedAt, Environments: []OrgEnvironmentDocument{}}
	for _, e := range o.Environments {
		d.Environments = append(d.Environments, OrgEnvironmentDocument(e))
	}
	b, err := json.Marshal(d)
	if err != nil {
		return "", fmt.Errorf("encode organization %s: %w", o.ID, err)
	}
	return string(b), nil
}

// DecodeOrganization reads a stored organization of the given version.
func DecodeOrganization(doc string, version int64) (Organization, error) {
	var d OrganizationDocument
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return Organization{}, fmt.Errorf("decode organization document: %w", err)
	}
	o := Organization{ID: d.ID, Name: d.Name, RetentionHours: d.RetentionHours, CreatedAt: d.CreatedAt, Version: version}
	for _, e := range d.Environments {
		o.Environments = append(o.Environments, OrgEnvironment(e))
	}
	return o, nil
}
