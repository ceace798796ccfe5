//go:build !linux

package store

import "errors"

// ErrNetworkFS: the store is on a network file system, where bbolt's
// file lock and its mapped pages do not hold (docs/store.md).
var ErrNetworkFS = errors.New("a store on a network file system is not supported")

// checkLocal cannot tell a network file system on this system: it allows
// every one (docs/store.md says what is not supported).
func checkLocal(path string) error { return nil }
