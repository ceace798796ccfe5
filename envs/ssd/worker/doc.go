// Package worker is the policy side of the sandbox: the process that runs
// one untrusted policy for one episode. It reads a Hello (the game and the
// agents it plays) and then one state snapshot per step, and answers the
// actions of its agents; a panic is reported with the policy's line, and a
// watchdog reports and ends a step that runs too long.
//
// The package imports only the standard library and envs/ssd: its source
// is compiled, together with ssd's and the policy's, into native worker
// binaries, and it is linked into policyevolve itself for the interpreting
// (yaegi) worker. Its init applies the resource limits the host passes in
// EnvLimits before any policy code runs.
//
// The wire format: frames of a little-endian uint32 length, a type byte and
// a payload (see wire.go); requests arrive on file descriptor 3 and replies
// leave on 4, so that anything a policy prints cannot corrupt the protocol.
package worker
