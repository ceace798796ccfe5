package envs

import "embed"

// SSDSource holds the source of envs/ssd and envs/ssd/worker (test files
// included; builders skip them). The sandbox compiles it, with a policy,
// into native worker binaries, so that an installed policyevolve needs no
// checkout to build them.
//
//go:embed ssd/*.go ssd/worker/*.go
var SSDSource embed.FS
