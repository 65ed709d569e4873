package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// TestSortIndexesMatchTheirBuckets: the bucket expressions the reads use
// are those of the sort indexes of 00001_v0_1_0.sql (SQLite uses an index
// on an expression only for the same expression), so a bucket read seeks.
func TestSortIndexesMatchTheirBuckets(t *testing.T) {
	st := openTemp(t)
	defer st.Close()
	for key, idx := range index.SortIndexes() {
		if idx.Bucket == "" {
			continue
		}
		rows, err := st.reader.QueryContext(context.Background(), "EXPLAIN QUERY PLAN SELECT seq FROM spans INDEXED BY "+
			idx.Name+" WHERE environment = ? AND "+idx.Bucket+" = ? AND "+index.BucketHour+" >= ? / 3600000 AND "+index.BucketHour+
			" <= ? / 3600000", "e", 3, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if got := strings.Join(plan, "; "); !strings.Contains(got, "(environment=? AND <expr>=? AND <expr>>? AND <expr><?)") {
			t.Errorf("%s: plan %q, want a search of %s on (environment, bucket, hour)", key, got, idx.Name)
		}
	}
}
