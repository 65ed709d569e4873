package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// checkpointInterval is the shortest time between two background
// checkpoints.
const checkpointInterval = 250 * time.Millisecond

// writerAutocheckpoint is the WAL size (pages) at which the writer
// checkpoints by itself: a safety net for when the background checkpoints
// fall behind (16 000 pages of 16 KiB: 256 MiB).
const writerAutocheckpoint = 16000

// checkpointer copies the WAL into the database file on its own connection
// (PRAGMA wal_checkpoint(PASSIVE), which runs beside the writer and the
// readers), so that the one writer, which every commit waits for, does not
// spend its time copying pages and syncing the file. The writer pokes it
// after its commits; it checkpoints at most every checkpointInterval.
type checkpointer struct {
	db *sql.DB
	*worker
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db}
	c.worker = startWorker(c.checkpoint)
	return c
}

// checkpoint copies the WAL into the file, then waits checkpointInterval
// (or until stop). A failed checkpoint (another one running, the file
// busy) is retried after the next commit; the writer's own autocheckpoint
// bounds the WAL meanwhile.
func (c *checkpointer) checkpoint(stop <-chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	_, _ = c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	cancel()
	select {
	case <-stop:
	case <-time.After(checkpointInterval):
	}
}

// close stops the checkpoints and closes the connection.
func (c *checkpointer) close() error {
	c.worker.close()
	return c.db.Close()
}
