package sqlite

import (
	"context"
	"database/sql"
	"hash/fnv"
	"math"
	"sync"
)

// maxCachedResources bounds the writer's resource-id cache; it starts over
// when full.
const maxCachedResources = 10000

// resourceCache maps encoded resource attribute sets to their row id, so
// that the writer looks each set up once.
type resourceCache struct {
	mu  sync.Mutex
	ids map[string]int64
}

// resourceTx resolves resource ids within one write transaction; ids it
// creates reach the shared cache only when the transaction commits.
type resourceTx struct {
	cache *resourceCache
	fresh map[string]int64
}

func (c *resourceCache) begin() *resourceTx {
	return &resourceTx{cache: c, fresh: map[string]int64{}}
}

func (c *resourceCache) get(key string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.ids[key]
	return id, ok
}

// id returns the row id of the encoded attribute set attrs, inserting it
// when new.
func (r *resourceTx) id(ctx context.Context, tx *sql.Tx, attrs string) (int64, error) {
	if id, ok := r.fresh[attrs]; ok {
		return id, nil
	}
	if id, ok := r.cache.get(attrs); ok {
		return id, nil
	}
	h := fnv.New64a()
	h.Write([]byte(attrs))
	hash := int64(h.Sum64() & math.MaxInt64)
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM resources WHERE hash = ? AND attributes = ?`, hash, attrs).Scan(&id)
	if err == sql.ErrNoRows {
		var res sql.Result
		if res, err = tx.ExecContext(ctx, `INSERT INTO resources (hash, attributes) VALUES (?, ?)`, hash, attrs); err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		return 0, err
	}
	r.fresh[attrs] = id
	return id, nil
}

// commit publishes the ids of a committed transaction.
func (r *resourceTx) commit() {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	if r.cache.ids == nil || len(r.cache.ids)+len(r.fresh) > maxCachedResources {
		r.cache.ids = make(map[string]int64, len(r.fresh))
	}
	for k, v := range r.fresh {
		r.cache.ids[k] = v
	}
}
