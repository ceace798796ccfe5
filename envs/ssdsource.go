package envs

import "embed"

// SSDSource holds the source of envs, envs/ssd and envs/ssd/worker, and
// the built-in maps (test files included; builders skip them). The sandbox
// compiles it, with a policy, into native worker binaries (a worker plays
// episodes on its own replica of the game), so that an installed
// policyevolve needs no checkout to build them.
//
//go:embed *.go maps/*.txt ssd/*.go ssd/worker/*.go
var SSDSource embed.FS
