//go:build !race

package gateway

const raceDetector = false
