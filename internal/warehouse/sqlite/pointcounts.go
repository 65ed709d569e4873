package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// maxCountedValues bounds the values point_counts counts of one label
// key in one hour of one environment; a key with more (an id, free text)
// is listed in point_uncounted_keys.
const maxCountedValues = 1024

// pointCountKey is a row of point_counts: key "" (and value "") counts
// every point of the hour, name and source; a label's or an attribute's
// row counts the points of one source and every name (metric_name "").
type pointCountKey struct {
	env, key, value, name, source string
	hour                          int64
}

// pointCounts accumulates the point_counts changes of one transaction.
type pointCounts struct {
	// limit is the Store's countedValues.
	limit int
	m     map[pointCountKey]int64
	// uncounted lists, per environment, the label keys point_counts
	// leaves out, as read in the transaction (uncountedKeys).
	uncounted map[string]map[string]bool
	// attrs are attributes not yet in m: the points of one evaluated
	// span share their attribute map, counted once with their number.
	attrs pendingAttributes
}

// pendingAttributes is an attribute map shared by n points of env in hour.
type pendingAttributes struct {
	env, source string
	hour        int64
	attrs       map[string]string
	n           int64
}

// add counts p (n = 1) or uncounts it (n = -1): its hour's total by name
// and source, and each of its labels and attributes by source (of every
// name together) but those of uncounted keys and labels whose keys
// start with a byte 0 or 1. Keys and values are counted as the JSON
// spells them.
func (c *pointCounts) add(p *warehouse.MetricPoint, n int64) {
	if c.m == nil {
		c.m = map[pointCountKey]int64{}
	}
	hour := index.HourOf(p.EventTime)
	c.m[pointCountKey{env: p.Environment, hour: hour, name: p.MetricName, source: p.Source}] += n
	skip := c.uncounted[p.Environment]
	for key, value := range p.Labels {
		if key == "" || index.ReservedLabelKey(key) {
			continue
		}
		if key = index.JSONKey(key); skip[key] {
			continue
		}
		c.m[pointCountKey{env: p.Environment, hour: hour, key: key, value: index.JSONKey(value), source: p.Source}] += n
	}
	if pa := &c.attrs; pa.n != 0 && pa.env == p.Environment && pa.source == p.Source && pa.hour == hour && sameMap(pa.attrs, p.Attributes) {
		pa.n += n
		return
	}
	c.flushAttributes()
	c.attrs = pendingAttributes{env: p.Environment, source: p.Source, hour: hour, attrs: p.Attributes, n: n}
}

// flushAttributes counts the pending attributes into m.
func (c *pointCounts) flushAttributes() {
	pa := c.attrs
	c.attrs = pendingAttributes{}
	if pa.n == 0 {
		return
	}
	skip := c.uncounted[pa.env]
	for key, value := range pa.attrs {
		if key == "" {
			continue
		}
		if key = index.AttributeCountKey(index.JSONKey(key)); skip[key] {
			continue
		}
		c.m[pointCountKey{env: pa.env, hour: pa.hour, key: key, value: index.JSONKey(value), source: pa.source}] += pa.n
	}
}

// countPointChanges counts (n = 1) or uncounts (n = -1) within tx the points
// of pts that fresh marks (every point when fresh is nil), leaving out
// the keys uncounted in their environments (as uncounted read them in tx;
// nil: read here); limit is the Store's countedValues.
func countPointChanges(ctx context.Context, tx *sql.Tx, stmts *stmtCache, limit int, pts []warehouse.MetricPoint, n int64,
	fresh []bool, uncounted *uncountedKeySets) error {
	if uncounted == nil {
		uncounted = &uncountedKeySets{q: tx}
	}
	c := pointCounts{limit: limit, uncounted: map[string]map[string]bool{}}
	for i := range pts {
		if fresh != nil && !fresh[i] {
			continue
		}
		env := pts[i].Environment
		if _, ok := c.uncounted[env]; !ok {
			keys, err := uncounted.of(ctx, env)
			if err != nil {
				return err
			}
			c.uncounted[env] = keys
		}
		c.add(&pts[i], n)
	}
	return c.write(ctx, tx, stmts)
}

// uncountedKeySets reads the keys point_counts leaves out
// (uncountedKeys) once per environment, within one transaction.
type uncountedKeySets struct {
	q    querier
	sets map[string]map[string]bool
}

// of returns the uncounted keys of env.
func (u *uncountedKeySets) of(ctx context.Context, env string) (map[string]bool, error) {
	if keys, ok := u.sets[env]; ok {
		return keys, nil
	}
	keys, err := uncountedKeys(ctx, u.q, env)
	if err != nil {
		return nil, err
	}
	if u.sets == nil {
		u.sets = map[string]map[string]bool{}
	}
	u.sets[env] = keys
	return keys, nil
}

// uncountedKeys returns the label keys of env that point_counts leaves
// out.
func uncountedKeys(ctx context.Context, q querier, env string) (map[string]bool, error) {
	list, err := queryColumn[string](ctx, q, `SELECT key FROM point_uncounted_keys WHERE environment = ?`, env)
	if err != nil {
		return nil, fmt.Errorf("uncounted keys: %w", err)
	}
	keys := make(map[string]bool, len(list))
	for _, k := range list {
		keys[k] = true
	}
	return keys, nil
}

// Statements of pointCounts.write, compiled once per writer.
const (
	upsertPointCountSQL = `INSERT INTO point_counts (environment, hour, key, value, metric_name, source, n)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (environment, hour, key, value, metric_name, source) DO UPDATE SET n = n + excluded.n RETURNING n`
	dropEmptyPointCountSQL = `DELETE FROM point_counts
		WHERE environment = ? AND hour = ? AND key = ? AND value = ? AND metric_name = ? AND source = ? AND n <= 0`
	// A key's values, not its rows (a value has a row per source).
	pointKeyValuesSQL = `SELECT count(DISTINCT value) FROM point_counts WHERE environment = ? AND hour = ? AND key = ?`
	markUncountedSQL  = `INSERT OR IGNORE INTO point_uncounted_keys (environment, key) VALUES (?, ?)`
)

// write applies the changes within tx, in key order; a row left at zero
// is dropped. A label key whose values of an hour pass c.limit is marked
// uncounted (its rows are no longer read).
func (c *pointCounts) write(ctx context.Context, tx *sql.Tx, stmts *stmtCache) error {
	c.flushAttributes()
	if len(c.m) == 0 {
		return nil
	}
	type change struct {
		pointCountKey
		n int64
	}
	changes := make([]change, 0, len(c.m))
	for k, n := range c.m {
		if n != 0 {
			changes = append(changes, change{k, n})
		}
	}
	slices.SortFunc(changes, func(a, b change) int {
		return cmp.Or(cmp.Compare(a.env, b.env), cmp.Compare(a.hour, b.hour), cmp.Compare(a.key, b.key),
			cmp.Compare(a.value, b.value), cmp.Compare(a.name, b.name), cmp.Compare(a.source, b.source))
	})
	upsert, err := stmts.in(ctx, tx, upsertPointCountSQL)
	if err != nil {
		return fmt.Errorf("point counts: %w", err)
	}
	// grown lists the (environment, hour, key) groups that got new rows.
	type group struct {
		env, key string
		hour     int64
	}
	var grown []group
	for _, ch := range changes {
		var n int64
		if err := upsert.QueryRowContext(ctx, ch.env, ch.hour, ch.key, ch.value, ch.name, ch.source, ch.n).Scan(&n); err != nil {
			return fmt.Errorf("point counts: %w", mapErr(err))
		}
		g := group{ch.env, ch.key, ch.hour}
		switch {
		case n <= 0:
			if _, err := tx.ExecContext(ctx, dropEmptyPointCountSQL, ch.env, ch.hour, ch.key, ch.value, ch.name, ch.source); err != nil {
				return fmt.Errorf("point counts: %w", mapErr(err))
			}
		case n == ch.n && ch.key != "" && (len(grown) == 0 || grown[len(grown)-1] != g):
			grown = append(grown, g)
		}
	}
	for _, g := range grown {
		var rows int
		if err := tx.QueryRowContext(ctx, pointKeyValuesSQL, g.env, g.hour, g.key).Scan(&rows); err != nil {
			return fmt.Errorf("point counts: %w", mapErr(err))
		}
		if rows <= c.limit {
			continue
		}
		if _, err := tx.ExecContext(ctx, markUncountedSQL, g.env, g.key); err != nil {
			return fmt.Errorf("point counts: mark %q uncounted: %w", g.key, mapErr(err))
		}
	}
	return nil
}
