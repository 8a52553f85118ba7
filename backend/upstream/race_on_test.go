//go:build race

package upstream

// raceDetector: under it sync.Pool drops items at random, so allocation
// counts (json.Valid takes its scanner from a pool) are not exact.
const raceDetector = true
