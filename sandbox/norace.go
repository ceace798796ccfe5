//go:build !race

package sandbox

// raceEnabled: this binary was built with the race detector.
const raceEnabled = false
