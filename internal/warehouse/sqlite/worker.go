package sqlite

import "context"

// worker runs a job in the background each time it is poked (pokes while
// the job runs fold into one more run), until it is closed. The
// checkpointer and the merger of posting runs are workers.
type worker struct {
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
}

// startWorker starts a worker of job; job gets a channel closed when the
// worker is asked to stop.
func startWorker(job func(stop <-chan struct{})) *worker {
	w := &worker{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-w.wake:
			}
			job(w.stop)
		}
	}()
	return w
}

// poke asks for a run soon; it never blocks.
func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close stops the worker and waits for a run in progress.
func (w *worker) close() {
	close(w.stop)
	<-w.done
}

// stopContext returns a context canceled when stop closes (or when its
// cancel is called), for a worker's job.
func stopContext(stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
