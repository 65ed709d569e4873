//go:build race

package injection

// raceDetector: the race detector makes sync.Pool drop a share of what is
// put back, so a pooled buffer is sometimes allocated again.
const raceDetector = true
