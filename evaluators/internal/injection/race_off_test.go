//go:build !race

package injection

// raceDetector: see race_on_test.go.
const raceDetector = false
