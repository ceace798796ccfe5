//go:build !linux

// Package threads says how an interpreting worker reaches every thread of
// policyevolve, for the confinement layers that bind threads one by one.
package threads

import "policyevolve/envs/ssd/worker"

// All is the default: there is no confinement off Linux.
func All() worker.AllThreads { return worker.AllThreads{} }
