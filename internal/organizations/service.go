package organizations

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Limits of the organization requests.
const (
	MaxNameBytes        = 256
	MaxEnvironments     = 32
	DefaultEnvironment  = "prd"
	DefaultProject      = "default"
	MaxRetentionHours   = 720
	DefaultRetentionHrs = 720
)

// slugPattern is what an environment slug may be: it becomes part of the
// tenant's environment name ("<org id>/<slug>").
var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// RequestError is a bad request naming the field at fault (HTTP 400).
type RequestError struct{ Field, Msg string }

func (e *RequestError) Error() string { return e.Field + ": " + e.Msg }

// Service creates and changes organizations, their environments and keys,
// and keeps the Cache of this collector in step at once (other collectors
// follow within their refresh interval, or at once on a lookup).
type Service struct {
	store warehouse.OrgStore
	cache *Cache
	now   func() time.Time
}

// NewService returns a service over store updating cache; now nil means
// time.Now.
func NewService(store warehouse.OrgStore, cache *Cache, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, cache: cache, now: func() time.Time { return now().UTC().Truncate(time.Second) }}
}

// CreateRequest is the body of POST /v2/organizations.
type CreateRequest struct {
	OrgName string   `json:"org_name"`
	Envs    []string `json:"envs"`
	// RetentionHours is Traceloop's field (1..720, default 720); stored
	// and reported, not enforced.
	RetentionHours *int `json:"retention_hours"`
}

// NewKey is a key as issued: the secret is shown this once.
type NewKey struct {
	Slug        string `json:"slug"`
	APIKey      string `json:"api_key"`
	KeyID       string `json:"key_id"`
	Environment string `json:"environment"`
}

// Created is the answer of POST /v2/organizations.
type Created struct {
	OrgID        string   `json:"org_id"`
	Environments []NewKey `json:"environments"`
}

// Validate checks a create request, filling in the defaults.
func (r *CreateRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.OrgName) == "":
		return &RequestError{"org_name", "is required"}
	case len(r.OrgName) > MaxNameBytes:
		return &RequestError{"org_name", fmt.Sprintf("is %d bytes long; the limit is %d bytes", len(r.OrgName), MaxNameBytes)}
	case !utf8.ValidString(r.OrgName) || strings.ContainsRune(r.OrgName, utf8.RuneError):
		// JSON decoding turns invalid bytes (and lone surrogate escapes)
		// into U+FFFD: a name holding it is not the name that was sent.
		return &RequestError{"org_name", "is not valid UTF-8 text (invalid bytes, or U+FFFD, what they decode to)"}
	case strings.IndexFunc(r.OrgName, unicode.IsControl) >= 0:
		return &RequestError{"org_name", "must not contain control characters"}
	}
	if len(r.Envs) == 0 {
		r.Envs = []string{DefaultEnvironment}
	}
	if len(r.Envs) > MaxEnvironments {
		return &RequestError{"envs", fmt.Sprintf("lists %d environments; the limit is %d", len(r.Envs), MaxEnvironments)}
	}
	seen := map[string]bool{}
	for i, e := range r.Envs {
		if err := validSlug(e); err != nil {
			return &RequestError{fmt.Sprintf("envs[%d]", i), err.Error()}
		}
		if seen[e] {
			return &RequestError{fmt.Sprintf("envs[%d]", i), fmt.Sprintf("%q is listed twice", e)}
		}
		seen[e] = true
	}
	if r.RetentionHours == nil {
		h := DefaultRetentionHrs
		r.RetentionHours = &h
	} else if *r.RetentionHours < 1 || *r.RetentionHours > MaxRetentionHours {
		return &RequestError{"retention_hours", fmt.Sprintf("must be between 1 and %d", MaxRetentionHours)}
	}
	return nil
}

func validSlug(s string) error {
	if !slugPattern.MatchString(s) {
		return fmt.Errorf("%q is not an environment slug: use 1 to 63 lower-case letters, digits, - and _, starting with a letter or digit", s)
	}
	return nil
}

// issue makes a key for environment env of org.
func (s *Service) issue(org warehouse.Organization, env warehouse.OrgEnvironment) (warehouse.APIKey, NewKey) {
	secret := newSecret()
	k := warehouse.APIKey{
		ID: newKeyID(), Digest: digestHex(DigestOf(secret)), OrgID: org.ID, EnvSlug: env.Slug,
		Environment: env.Environment, ProjectID: env.ProjectID, CreatedAt: s.now(),
	}
	return k, NewKey{Slug: env.Slug, APIKey: secret, KeyID: k.ID, Environment: env.Environment}
}

// valid makes stored keys valid in this collector at once.
func (s *Service) valid(keys ...warehouse.APIKey) {
	for _, k := range keys {
		if d, ok := parseDigest(k.Digest); ok {
			s.cache.add(d, k.OrgID, tenantOf(k))
		}
	}
}

// Create stores a new organization with one key per environment.
func (s *Service) Create(ctx context.Context, r CreateRequest) (Created, error) {
	if err := r.Validate(); err != nil {
		return Created{}, err
	}
	now := s.now()
	org := warehouse.Organization{ID: uuid.NewString(), Name: r.OrgName, RetentionHours: *r.RetentionHours, CreatedAt: now, Version: 1}
	out := Created{OrgID: org.ID, Environments: []NewKey{}}
	var keys []warehouse.APIKey
	for _, slug := range r.Envs {
		env := warehouse.OrgEnvironment{Slug: slug, Environment: org.ID + "/" + slug, ProjectID: DefaultProject, CreatedAt: now}
		org.Environments = append(org.Environments, env)
		k, nk := s.issue(org, env)
		keys = append(keys, k)
		out.Environments = append(out.Environments, nk)
	}
	if err := s.store.CreateOrganization(ctx, org, keys); err != nil {
		return Created{}, err
	}
	s.valid(keys...)
	return out, nil
}

// KeyView is a key in a listing: never its secret nor its digest.
type KeyView struct {
	KeyID     string     `json:"key_id"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// EnvironmentView is an environment in a listing.
type EnvironmentView struct {
	Slug        string    `json:"slug"`
	Environment string    `json:"environment"`
	ProjectID   string    `json:"project_id"`
	CreatedAt   time.Time `json:"created_at"`
	Keys        []KeyView `json:"keys"`
}

// OrganizationView is an organization in a listing.
type OrganizationView struct {
	OrgID          string            `json:"org_id"`
	OrgName        string            `json:"org_name"`
	RetentionHours int               `json:"retention_hours"`
	CreatedAt      time.Time         `json:"created_at"`
	Environments   []EnvironmentView `json:"environments"`
}

func view(o warehouse.Organization, keys []warehouse.APIKey) OrganizationView {
	v := OrganizationView{OrgID: o.ID, OrgName: o.Name, RetentionHours: o.RetentionHours, CreatedAt: o.CreatedAt, Environments: []EnvironmentView{}}
	for _, e := range o.Environments {
		ev := EnvironmentView{Slug: e.Slug, Environment: e.Environment, ProjectID: e.ProjectID, CreatedAt: e.CreatedAt, Keys: []KeyView{}}
		for _, k := range keys {
			if k.OrgID == o.ID && k.EnvSlug == e.Slug {
				ev.Keys = append(ev.Keys, KeyView{KeyID: k.ID, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt})
			}
		}
		v.Environments = append(v.Environments, ev)
	}
	return v
}

// List returns every organization with its environments and key ids.
func (s *Service) List(ctx context.Context) ([]OrganizationView, error) {
	orgs, err := s.store.ListOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := s.store.APIKeys(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]OrganizationView, len(orgs))
	for i, o := range orgs {
		out[i] = view(o, keys)
	}
	return out, nil
}

// Get returns one organization with its environments and key ids.
func (s *Service) Get(ctx context.Context, id string) (OrganizationView, error) {
	o, err := s.store.GetOrganization(ctx, id)
	if err != nil {
		return OrganizationView{}, err
	}
	keys, err := s.store.APIKeys(ctx, id)
	if err != nil {
		return OrganizationView{}, err
	}
	return view(o, keys), nil
}

// ErrEnvironmentExists is AddEnvironment's error for a slug the
// organization has (HTTP 409).
var ErrEnvironmentExists = errors.New("environment exists")

// AddEnvironment adds an environment to an organization and issues its
// first key.
func (s *Service) AddEnvironment(ctx context.Context, orgID, slug string) (NewKey, error) {
	if err := validSlug(slug); err != nil {
		return NewKey{}, &RequestError{"slug", err.Error()}
	}
	for {
		org, err := s.store.GetOrganization(ctx, orgID)
		if err != nil {
			return NewKey{}, err
		}
		for _, e := range org.Environments {
			if e.Slug == slug {
				return NewKey{}, fmt.Errorf("organization %s has environment %q: %w", orgID, slug, ErrEnvironmentExists)
			}
		}
		if len(org.Environments) >= MaxEnvironments {
			return NewKey{}, &RequestError{"slug", fmt.Sprintf("the organization has %d environments, the limit", MaxEnvironments)}
		}
		env := warehouse.OrgEnvironment{Slug: slug, Environment: org.ID + "/" + slug, ProjectID: DefaultProject, CreatedAt: s.now()}
		org.Environments = append(org.Environments, env)
		org.Version++
		err = s.store.UpdateOrganization(ctx, org)
		if errors.Is(err, warehouse.ErrConflict) {
			continue // changed meanwhile: read it again
		}
		if err != nil {
			return NewKey{}, err
		}
		k, nk := s.issue(org, env)
		if err := s.store.CreateAPIKey(ctx, k); err != nil {
			return NewKey{}, fmt.Errorf("environment %q added, but its key was not stored (issue one with POST .../environments/%s/keys): %w", slug, slug, err)
		}
		s.valid(k)
		return nk, nil
	}
}

// IssueKey issues one more key for an environment of an organization.
func (s *Service) IssueKey(ctx context.Context, orgID, slug string) (NewKey, error) {
	org, err := s.store.GetOrganization(ctx, orgID)
	if err != nil {
		return NewKey{}, err
	}
	for _, e := range org.Environments {
		if e.Slug == slug {
			k, nk := s.issue(org, e)
			if err := s.store.CreateAPIKey(ctx, k); err != nil {
				return NewKey{}, err
			}
			s.valid(k)
			return nk, nil
		}
	}
	return NewKey{}, fmt.Errorf("environment %q of organization %s: %w", slug, orgID, warehouse.ErrNotFound)
}

// findKey returns a key of an organization.
func (s *Service) findKey(ctx context.Context, orgID, keyID string) (warehouse.APIKey, error) {
	keys, err := s.store.APIKeys(ctx, orgID)
	if err != nil {
		return warehouse.APIKey{}, err
	}
	for _, k := range keys {
		if k.ID == keyID {
			return k, nil
		}
	}
	return warehouse.APIKey{}, fmt.Errorf("api key %q of organization %s: %w", keyID, orgID, warehouse.ErrNotFound)
}

// RevokeKey revokes a key: this collector refuses it at once, the others
// at their next refresh.
func (s *Service) RevokeKey(ctx context.Context, orgID, keyID string) error {
	k, err := s.findKey(ctx, orgID, keyID)
	if err != nil {
		return err
	}
	if err := s.store.RevokeAPIKey(ctx, orgID, keyID, s.now()); err != nil {
		return err
	}
	s.cache.forget(k.Digest)
	return nil
}

// RotateKey issues a new key for the environment of a key and revokes the
// old one.
func (s *Service) RotateKey(ctx context.Context, orgID, keyID string) (NewKey, error) {
	old, err := s.findKey(ctx, orgID, keyID)
	if err != nil {
		return NewKey{}, err
	}
	if old.RevokedAt != nil {
		return NewKey{}, &RequestError{"key_id", fmt.Sprintf("key %s is revoked; issue a new key for environment %q instead", keyID, old.EnvSlug)}
	}
	org, err := s.store.GetOrganization(ctx, orgID)
	if err != nil {
		return NewKey{}, err
	}
	env := warehouse.OrgEnvironment{Slug: old.EnvSlug, Environment: old.Environment, ProjectID: old.ProjectID}
	k, nk := s.issue(org, env)
	if err := s.store.CreateAPIKey(ctx, k); err != nil {
		return NewKey{}, err
	}
	s.valid(k)
	if err := s.RevokeKey(ctx, orgID, keyID); err != nil {
		return NewKey{}, fmt.Errorf("new key %s issued, but the old key %s is not revoked yet (revoke it again): %w", k.ID, keyID, err)
	}
	return nk, nil
}
