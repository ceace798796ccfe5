package main

import "sync/atomic"

// stopHook is what the first interrupt calls: a long job's Stop, which
// finishes the step in hand and saves the run. Nil when no such job runs.
var stopHook atomic.Pointer[func()]

// onInterrupt registers stop for the first interrupt until the returned
// function is called.
func onInterrupt(stop func()) (release func()) {
	stopHook.Store(&stop)
	return func() { stopHook.CompareAndSwap(&stop, nil) }
}

// softStop calls the registered hook, reporting whether there was one.
func softStop() bool {
	f := stopHook.Load()
	if f == nil {
		return false
	}
	(*f)()
	return true
}
