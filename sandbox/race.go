//go:build race

package sandbox

// raceEnabled: this binary was built with the race detector. Its yaegi
// worker cannot start within a worker's address-space limit.
const raceEnabled = true
