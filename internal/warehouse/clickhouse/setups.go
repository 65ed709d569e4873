package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Monitor setups live in a ReplacingMergeTree keyed by (environment, id):
// every change inserts a new row with a higher row_ver (a sequence number),
// a delete inserts a tombstone (deleted = 1). Reads take the latest row of
// each id with ORDER BY ... LIMIT 1 BY id, so they never see an old
// version, merged or not. ClickHouse has no transactions: the
// compare-and-set of UpdateSetup and the external_id checks read, then
// insert. Two collectors changing the same setup (or claiming the same
// external_id) within that window of a few milliseconds can both succeed;
// the later row (higher row_ver) wins. See README.md.

const defaultSetupLimit = 100

// setupRow is the latest stored row of one setup.
type setupRow struct {
	setup      warehouse.MonitorSetup
	deleted    bool
	createdSeq int64
}

const setupColumns = "environment, id, row_ver, deleted, created_seq, external_id, project_id, entity_type, entity_value, status, version, body"

// latestSetups returns the latest row of every setup of env (every
// environment when env is nil), tombstones included, in creation order.
func (s *Store) latestSetups(ctx context.Context, env *string, id string) ([]setupRow, error) {
	var w sqlfilter.Where
	if env != nil {
		w.Add("environment = ?", *env)
	}
	if id != "" {
		w.Add("id = ?", id)
	}
	query := "SELECT environment, id, deleted, created_seq, version, body FROM (SELECT " + setupColumns +
		" FROM " + s.schema.table("monitor_setups") + " WHERE " + w.SQL() +
		" ORDER BY environment, id, row_ver DESC LIMIT 1 BY environment, id) ORDER BY created_seq, id"
	rows, err := s.conn.Query(ctx, query, w.Args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []setupRow
	for rows.Next() {
		var (
			r           setupRow
			environment string
			setupID     string
			deleted     uint8
			version     int64
			body        string
		)
		if err := rows.Scan(&environment, &setupID, &deleted, &r.createdSeq, &version, &body); err != nil {
			return nil, mapErr(err)
		}
		if err := json.Unmarshal([]byte(body), &r.setup); err != nil {
			return nil, fmt.Errorf("decode setup %s: %w", setupID, err)
		}
		r.setup.Environment, r.setup.Version, r.deleted = environment, version, deleted != 0
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}

// live returns the setups of rows that are not deleted.
func live(rows []setupRow) []setupRow {
	out := rows[:0:0]
	for _, r := range rows {
		if !r.deleted {
			out = append(out, r)
		}
	}
	return out
}

// insertSetup writes one row for m.
func (s *Store) insertSetup(ctx context.Context, m warehouse.MonitorSetup, deleted bool, createdSeq int64) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("monitor_setups")+" ("+setupColumns+")")
	if err != nil {
		return mapErr(err)
	}
	del := uint8(0)
	if deleted {
		del = 1
	}
	rowVer := s.clock.next(1)[0]
	if createdSeq == 0 {
		createdSeq = rowVer
	}
	if err := batch.Append(m.Environment, m.ID, rowVer, del, createdSeq, m.ExternalID, m.ProjectID, m.EntityType,
		m.EntityValue, m.Status, m.Version, string(body)); err != nil {
		batch.Abort()
		return mapErr(err)
	}
	return mapErr(batch.Send())
}

// externalIDTaken reports whether another live setup of m's environment
// and project holds m's external id.
func (s *Store) externalIDTaken(ctx context.Context, m warehouse.MonitorSetup) (bool, error) {
	if m.ExternalID == "" {
		return false, nil
	}
	rows, err := s.latestSetups(ctx, &m.Environment, "")
	if err != nil {
		return false, err
	}
	for _, r := range live(rows) {
		if r.setup.ID != m.ID && r.setup.ProjectID == m.ProjectID && r.setup.ExternalID == m.ExternalID {
			return true, nil
		}
	}
	return false, nil
}

// CreateSetup stores a new setup; ErrConflict when its id exists or its
// external id is taken in its environment and project.
func (s *Store) CreateSetup(ctx context.Context, m warehouse.MonitorSetup) error {
	if err := s.ready(ctx, "create setup"); err != nil {
		return err
	}
	existing, err := s.latestSetups(ctx, &m.Environment, m.ID)
	if err != nil {
		return fmt.Errorf("create setup: %w", err)
	}
	if len(live(existing)) > 0 {
		return fmt.Errorf("create setup: id %q exists: %w", m.ID, warehouse.ErrConflict)
	}
	taken, err := s.externalIDTaken(ctx, m)
	if err != nil {
		return fmt.Errorf("create setup: %w", err)
	}
	if taken {
		return fmt.Errorf("create setup: external_id %q: %w", m.ExternalID, warehouse.ErrConflict)
	}
	if err := s.insertSetup(ctx, m, false, 0); err != nil {
		return fmt.Errorf("create setup: %w", err)
	}
	return nil
}

// getLive returns the live setup env/id, ErrNotFound when there is none.
func (s *Store) getLive(ctx context.Context, env, id string) (setupRow, error) {
	rows, err := s.latestSetups(ctx, &env, id)
	if err != nil {
		return setupRow{}, err
	}
	if rows = live(rows); len(rows) == 0 {
		return setupRow{}, fmt.Errorf("setup %q: %w", id, warehouse.ErrNotFound)
	}
	return rows[0], nil
}

// GetSetup returns one of env's setups.
func (s *Store) GetSetup(ctx context.Context, env, id string) (warehouse.MonitorSetup, error) {
	if err := s.ready(ctx, "get setup"); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	r, err := s.getLive(ctx, env, id)
	if err != nil {
		return warehouse.MonitorSetup{}, fmt.Errorf("get setup: %w", err)
	}
	return r.setup, nil
}

// ListSetups returns a page of an environment's setups in creation order;
// the cursor is the creation sequence number of the last setup returned.
func (s *Store) ListSetups(ctx context.Context, q warehouse.SetupQuery) (warehouse.SetupPage, error) {
	var page warehouse.SetupPage
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSetupLimit
	}
	var after int64
	if q.Cursor != "" {
		n, err := strconv.ParseInt(q.Cursor, 10, 64)
		if err != nil || n < 0 {
			return page, &warehouse.QueryError{Field: "cursor", Msg: "malformed cursor"}
		}
		after = n
	}
	if err := s.ready(ctx, "list setups"); err != nil {
		return page, err
	}
	// The server picks the page: the latest version of each setup, live,
	// after the cursor, matching the filters, limit+1 of them; only those
	// bodies are read and decoded.
	var outer sqlfilter.Where
	outer.Add("deleted = 0")
	outer.Add("created_seq > ?", after)
	for col, v := range map[string]string{"entity_type": q.EntityType, "entity_value": q.EntityValue, "external_id": q.ExternalID, "status": q.Status} {
		if v != "" {
			outer.Add(col+" = ?", v)
		}
	}
	args := append([]any{q.Environment}, outer.Args...)
	rows, err := s.conn.Query(ctx, "SELECT environment, id, created_seq, version, body FROM (SELECT "+setupColumns+
		" FROM "+s.schema.table("monitor_setups")+" WHERE environment = ? ORDER BY environment, id, row_ver DESC LIMIT 1 BY environment, id) WHERE "+
		outer.SQL()+fmt.Sprintf(" ORDER BY created_seq, id LIMIT %d", limit+1), args...)
	if err != nil {
		return page, fmt.Errorf("list setups: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			env, id      string
			seq, version int64
			body         string
		)
		if err := rows.Scan(&env, &id, &seq, &version, &body); err != nil {
			return page, fmt.Errorf("list setups: %w", mapErr(err))
		}
		if len(page.Setups) == limit {
			page.NextCursor = strconv.FormatInt(after, 10)
			break
		}
		var m warehouse.MonitorSetup
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return page, fmt.Errorf("list setups: decode setup %s: %w", id, err)
		}
		m.Environment, m.Version = env, version
		page.Setups = append(page.Setups, m)
		page.Cursors = append(page.Cursors, strconv.FormatInt(seq, 10))
		after = seq
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("list setups: %w", mapErr(err))
	}
	return page, nil
}

// CountSetups returns the number of env's live setups.
func (s *Store) CountSetups(ctx context.Context, env string) (int, error) {
	if err := s.ready(ctx, "count setups"); err != nil {
		return 0, err
	}
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM (SELECT deleted FROM "+s.schema.table("monitor_setups")+
		" WHERE environment = ? ORDER BY environment, id, row_ver DESC LIMIT 1 BY environment, id) WHERE deleted = 0", env).Scan(&n); err != nil {
		return 0, fmt.Errorf("count setups: %w", mapErr(err))
	}
	return int(n), nil
}

// SetupBytes returns the bytes of env's live setup documents (the latest
// version of each), summed by the server.
func (s *Store) SetupBytes(ctx context.Context, env string) (int64, error) {
	if err := s.ready(ctx, "setup bytes"); err != nil {
		return 0, err
	}
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT sum(length(body)) FROM (SELECT deleted, body FROM "+s.schema.table("monitor_setups")+
		" WHERE environment = ? ORDER BY environment, id, row_ver DESC LIMIT 1 BY environment, id) WHERE deleted = 0", env).Scan(&n); err != nil {
		return 0, fmt.Errorf("setup bytes: %w", mapErr(err))
	}
	return int64(n), nil
}

// UpdateSetup replaces a setup whose stored version is m.Version-1
// (compare-and-set, best effort: see the comment at the top of this file).
func (s *Store) UpdateSetup(ctx context.Context, m warehouse.MonitorSetup) error {
	if err := s.ready(ctx, "update setup"); err != nil {
		return err
	}
	cur, err := s.getLive(ctx, m.Environment, m.ID)
	if err != nil {
		return fmt.Errorf("update setup: %w", err)
	}
	if cur.setup.Version != m.Version-1 {
		return fmt.Errorf("update setup %q: stored version %d, expected %d: %w", m.ID, cur.setup.Version, m.Version-1, warehouse.ErrConflict)
	}
	taken, err := s.externalIDTaken(ctx, m)
	if err != nil {
		return fmt.Errorf("update setup: %w", err)
	}
	if taken {
		return fmt.Errorf("update setup: external_id %q: %w", m.ExternalID, warehouse.ErrConflict)
	}
	if err := s.insertSetup(ctx, m, false, cur.createdSeq); err != nil {
		return fmt.Errorf("update setup: %w", err)
	}
	return nil
}

// DeleteSetup removes one of env's setups (a tombstone row).
func (s *Store) DeleteSetup(ctx context.Context, env, id string) error {
	if err := s.ready(ctx, "delete setup"); err != nil {
		return err
	}
	cur, err := s.getLive(ctx, env, id)
	if err != nil {
		return fmt.Errorf("delete setup: %w", err)
	}
	if err := s.insertSetup(ctx, cur.setup, true, cur.createdSeq); err != nil {
		return fmt.Errorf("delete setup: %w", err)
	}
	return nil
}

// AllSetups returns every live setup of every environment, in creation
// order.
func (s *Store) AllSetups(ctx context.Context) ([]warehouse.MonitorSetup, error) {
	if err := s.ready(ctx, "read setups"); err != nil {
		return nil, err
	}
	rows, err := s.latestSetups(ctx, nil, "")
	if err != nil {
		return nil, fmt.Errorf("read setups: %w", err)
	}
	out := []warehouse.MonitorSetup{}
	for _, r := range live(rows) {
		out = append(out, r.setup)
	}
	return out, nil
}
