//go:build !linux

package worker

func openProgress() progress { return progress{} }
