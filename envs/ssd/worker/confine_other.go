//go:build !linux

package worker

import "errors"

// AllThreads says how to reach every thread of the program (Linux only).
type AllThreads struct{}

// Confine reports every layer unavailable: they are Linux features.
func Confine(l Limits, _ AllThreads) Confinement {
	var c Confinement
	for _, layer := range (l.Confine & WorkerLayers).Layers() {
		c = append(c, LayerStatus{Layer: layer, Detail: errors.New("not on this system").Error()})
	}
	return c
}
