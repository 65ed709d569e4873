package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Organizations live in a ReplacingMergeTree keyed by id, one JSON body per
// version (reads take the latest row_ver of each id, as for setups);
// API keys in one keyed by key id, a revocation being a second row of the
// key with revoked_at set. Like setups, the compare-and-set of
// UpdateOrganization reads, then inserts (see setups.go).

func (s *Store) insertOrganization(ctx context.Context, o warehouse.Organization, createdSeq int64) error {
	body, err := warehouse.EncodeOrganization(o)
	if err != nil {
		return err
	}
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("organizations")+" (id, row_ver, created_seq, version, body)")
	if err != nil {
		return mapErr(err)
	}
	rowVer := s.clock.next(1)[0]
	if createdSeq == 0 {
		createdSeq = rowVer
	}
	if err := batch.Append(o.ID, rowVer, createdSeq, o.Version, body); err != nil {
		batch.Abort()
		return mapErr(err)
	}
	return mapErr(batch.Send())
}

type orgRow struct {
	org        warehouse.Organization
	createdSeq int64
	rowVer     int64
}

// latestOrganizations returns the latest row of every organization (of
// id when id is not empty), in creation order.
func (s *Store) latestOrganizations(ctx context.Context, id string) ([]orgRow, error) {
	var w sqlfilter.Where
	if id != "" {
		w.Add("id = ?", id)
	}
	rows, err := s.conn.Query(ctx, "SELECT id, row_ver, created_seq, version, body FROM "+s.schema.table("organizations")+
		" WHERE "+w.SQL()+" ORDER BY id, row_ver DESC LIMIT 1 BY id", w.Args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []orgRow
	for rows.Next() {
		var (
			r       orgRow
			orgID   string
			version int64
			body    string
		)
		if err := rows.Scan(&orgID, &r.rowVer, &r.createdSeq, &version, &body); err != nil {
			return nil, mapErr(err)
		}
		org, err := warehouse.DecodeOrganization(body, version)
		if err != nil {
			return nil, fmt.Errorf("organization %s: %w", orgID, err)
		}
		r.org = org
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	// Creation order; the sort key is the id.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].createdSeq < out[j-1].createdSeq; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// CreateOrganization stores an organization, then its keys.
func (s *Store) CreateOrganization(ctx context.Context, o warehouse.Organization, keys []warehouse.APIKey) error {
	if err := s.ready(ctx, "create organization"); err != nil {
		return err
	}
	existing, err := s.latestOrganizations(ctx, o.ID)
	if err != nil {
		return fmt.Errorf("create organization: %w", err)
	}
	if len(existing) > 0 {
		return fmt.Errorf("create organization %q: %w", o.ID, warehouse.ErrConflict)
	}
	if err := s.insertOrganization(ctx, o, 0); err != nil {
		return fmt.Errorf("create organization: %w", err)
	}
	if len(keys) > 0 {
		if err := s.insertKeys(ctx, keys); err != nil {
			return fmt.Errorf("create organization: keys: %w", err)
		}
	}
	return nil
}

// GetOrganization returns one organization.
func (s *Store) GetOrganization(ctx context.Context, id string) (warehouse.Organization, error) {
	if err := s.ready(ctx, "get organization"); err != nil {
		return warehouse.Organization{}, err
	}
	rows, err := s.latestOrganizations(ctx, id)
	if err != nil {
		return warehouse.Organization{}, fmt.Errorf("get organization: %w", err)
	}
	if len(rows) == 0 {
		return warehouse.Organization{}, fmt.Errorf("organization %q: %w", id, warehouse.ErrNotFound)
	}
	return rows[0].org, nil
}

// ListOrganizations returns every organization in creation order.
func (s *Store) ListOrganizations(ctx context.Context) ([]warehouse.Organization, error) {
	if err := s.ready(ctx, "list organizations"); err != nil {
		return nil, err
	}
	rows, err := s.latestOrganizations(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list organizations: %w", err)
	}
	out := make([]warehouse.Organization, len(rows))
	for i, r := range rows {
		out[i] = r.org
	}
	return out, nil
}

// UpdateOrganization replaces an organization whose stored version is
// o.Version-1 (compare-and-set, best effort as for setups).
func (s *Store) UpdateOrganization(ctx context.Context, o warehouse.Organization) error {
	if err := s.ready(ctx, "update organization"); err != nil {
		return err
	}
	rows, err := s.latestOrganizations(ctx, o.ID)
	if err != nil {
		return fmt.Errorf("update organization: %w", err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("update organization %q: %w", o.ID, warehouse.ErrNotFound)
	}
	if rows[0].org.Version != o.Version-1 {
		return fmt.Errorf("update organization %q: stored version %d, expected %d: %w", o.ID, rows[0].org.Version, o.Version-1, warehouse.ErrConflict)
	}
	s.clock.observe(rows[0].rowVer) // the new row sorts after the one read
	if err := s.insertOrganization(ctx, o, rows[0].createdSeq); err != nil {
		return fmt.Errorf("update organization: %w", err)
	}
	return nil
}

const keyInsertColumns = "id, row_ver, digest, org_id, env_slug, environment, project_id, created_at, revoked_at"

func (s *Store) insertKeys(ctx context.Context, keys []warehouse.APIKey) error {
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("api_keys")+" ("+keyInsertColumns+")")
	if err != nil {
		return mapErr(err)
	}
	vers := s.clock.next(len(keys))
	for i, k := range keys {
		var revoked int64
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.UnixMilli()
		}
		if err := batch.Append(k.ID, vers[i], k.Digest, k.OrgID, k.EnvSlug, k.Environment, k.ProjectID, k.CreatedAt.UnixMilli(), revoked); err != nil {
			batch.Abort()
			return mapErr(err)
		}
	}
	return mapErr(batch.Send())
}

// CreateAPIKey stores a new key.
func (s *Store) CreateAPIKey(ctx context.Context, k warehouse.APIKey) error {
	if err := s.ready(ctx, "create api key"); err != nil {
		return err
	}
	if err := s.insertKeys(ctx, []warehouse.APIKey{k}); err != nil {
		return fmt.Errorf("create api key: %w", err)
	}
	return nil
}

// keys returns the keys matching w, one row each (max(revoked_at): a
// revocation is final), in creation order.
func (s *Store) keys(ctx context.Context, w sqlfilter.Where) ([]warehouse.APIKey, error) {
	rows, err := s.conn.Query(ctx, "SELECT id, any(digest), any(org_id), any(env_slug), any(environment), any(project_id), min(created_at), max(revoked_at), min(row_ver) AS first FROM "+
		s.schema.table("api_keys")+" WHERE "+w.SQL()+" GROUP BY id ORDER BY first", w.Args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := []warehouse.APIKey{}
	for rows.Next() {
		var (
			k                warehouse.APIKey
			created, revoked int64
			first            int64
		)
		if err := rows.Scan(&k.ID, &k.Digest, &k.OrgID, &k.EnvSlug, &k.Environment, &k.ProjectID, &created, &revoked, &first); err != nil {
			return nil, mapErr(err)
		}
		k.CreatedAt = time.UnixMilli(created).UTC()
		if revoked != 0 {
			t := time.UnixMilli(revoked).UTC()
			k.RevokedAt = &t
		}
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}

// RevokeAPIKey revokes a key of an organization; a revoked key keeps its
// first revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, orgID, keyID string, at time.Time) error {
	if err := s.ready(ctx, "revoke api key"); err != nil {
		return err
	}
	var w sqlfilter.Where
	w.Add("id = ?", keyID)
	w.Add("org_id = ?", orgID)
	ks, err := s.keys(ctx, w)
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	if len(ks) == 0 {
		return fmt.Errorf("api key %q of organization %q: %w", keyID, orgID, warehouse.ErrNotFound)
	}
	k := ks[0]
	if k.RevokedAt != nil {
		return nil
	}
	k.RevokedAt = &at
	if err := s.insertKeys(ctx, []warehouse.APIKey{k}); err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	return nil
}

// APIKeys returns the keys of an organization (all when orgID is empty).
func (s *Store) APIKeys(ctx context.Context, orgID string) ([]warehouse.APIKey, error) {
	if err := s.ready(ctx, "list api keys"); err != nil {
		return nil, err
	}
	var w sqlfilter.Where
	if orgID != "" {
		w.Add("org_id = ?", orgID)
	}
	ks, err := s.keys(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return ks, nil
}

// APIKeyByDigest returns the key with that digest.
func (s *Store) APIKeyByDigest(ctx context.Context, digest string) (warehouse.APIKey, error) {
	if err := s.ready(ctx, "look up api key"); err != nil {
		return warehouse.APIKey{}, err
	}
	var w sqlfilter.Where
	w.Add("digest = ?", digest)
	ks, err := s.keys(ctx, w)
	if err != nil {
		return warehouse.APIKey{}, fmt.Errorf("look up api key: %w", err)
	}
	if len(ks) == 0 {
		return warehouse.APIKey{}, fmt.Errorf("api key: %w", warehouse.ErrNotFound)
	}
	return ks[0], nil
}

// APIKeysVersion is "<keys>-<revoked keys>" over the keys' merged state:
// keys are never deleted and revocation is final, so the pair changes with
// every change, whichever collector made it.
func (s *Store) APIKeysVersion(ctx context.Context) (string, error) {
	if err := s.ready(ctx, "api keys version"); err != nil {
		return "", err
	}
	var n, revoked uint64
	if err := s.conn.QueryRow(ctx, "SELECT count(), countIf(r != 0) FROM (SELECT max(revoked_at) AS r FROM "+
		s.schema.table("api_keys")+" GROUP BY id)").Scan(&n, &revoked); err != nil {
		return "", fmt.Errorf("api keys version: %w", mapErr(err))
	}
	return strconv.FormatUint(n, 10) + "-" + strconv.FormatUint(revoked, 10), nil
}
