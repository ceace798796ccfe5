//go:build !amd64

package main

import "os"

// crash has no foreign calling convention to use here: it exits.
func crash() { os.Exit(99) }
