// Package sandbox turns untrusted policy source, written by an LLM or a
// person, into a running policy that can neither harm the host nor touch
// the game.
//
// # The policy contract
//
// A policy is one Go file:
//
//	package policy
//
//	import "ssd" // plus only: math, math/bits, sort, strings, strconv, errors, container/heap
//
//	func Policy(v *ssd.View, agent int) int
//
// Policy is called for every agent the policy plays, in id order, once per
// step, and returns that agent's action. Package-level variables may keep
// memory across the steps of one episode; every episode starts from the
// state a fresh process starts in (a reused worker resets it: see
// withReset), and the agents that play the same policy in an episode share
// one instance, as in the reference, where all agents call one function
// object.
//
// # Validation
//
// Validate parses the file and type-checks it against the ssd API, and
// refuses a wrong package or signature, imports outside the allow-list, dot
// imports, cgo, compiler directives (//go:linkname, //go:embed, …),
// goroutines, channels and select. Every problem comes with line, column and
// the offending line, in words meant to be fed back to the author.
//
// # Workers
//
// A policy never runs in the host process and never sees the live
// environment. A Program keeps a pool of worker processes that serve many
// episodes each, its start-up paid once; a policy with package-level state
// gets a generated reset so each episode starts as in a fresh process (or,
// without type information, a fresh worker per episode). Self-play
// (SelfPlay) runs inside the worker on its own replica of the game: it
// returns every step's actions and its replica's hash, and the host
// replays the actions through its own environment — the only source of
// rewards — chunk by chunk while the worker plays on, and checks the
// hashes (a mismatch is envs.ErrTampered). In
// mixed matches (Actor) each worker keeps a replica and receives only the
// joint actions of the step before. A crash costs only the episode in
// hand. See envs/ssd/worker for the protocol. Workers run with an empty
// environment, GOMAXPROCS=1, an address-space limit (RLIMIT_AS, 1 GiB by
// default), a CPU budget for the episode (Config.EpisodeCPU) behind a hard
// limit over the worker's life (RLIMIT_CPU), a goroutine stack limit,
// captured and capped output, a CPU limit on starting (package-level
// initialisation included), a per-step deadline (100 ms by default, for
// all of the worker's agents) enforced both by a watchdog inside the
// worker, which names the agent, and by the host, which kills; and they
// die with the host. A worker notes the step and agent it plays in a page
// shared with the host, so that a death is placed where it happened. Every failure is a *PolicyError whose Kind
// says what happened: ErrTimeout, ErrCPUBudget, ErrPanic (with the
// policy's line), ErrInvalidAction, ErrCrashed (out of memory, stack
// overflow), ErrOutputLimit, ErrProtocol. The host survives all of them
// and the next evaluation runs normally.
//
// # Backends
//
// Native (the default when a Go toolchain is on PATH) compiles the policy,
// with the embedded ssd and worker sources, into a worker binary, cached
// in the user cache directory by a hash of source, API and Go version.
// Yaegi interprets the policy in a worker that is policyevolve's own binary
// (this package's init serves as the worker when the host asks), with a
// fresh interpreter that can reach only the allowed packages and no source
// files. It runs a declared subset of Go (subsetRows, allowList): every
// construct falls under a row of the table, allowed because differential
// tests cover it, or refused naming the row; inside it, Go that yaegi
// v0.16.1 mishandles is rewritten first, line numbers kept (see
// rewriteForYaegi). What Go leaves to the implementation (float-to-integer
// conversions out of range, NaN bits, fused multiply-add, math functions
// with per-architecture assembly) gets one meaning on both backends and
// every architecture, or is refused everywhere (definedOps, buildFlags).
//
// # Admission
//
// Compile validates and prepares a source in a child process under
// memory, CPU and wall-clock bounds (see analyse): the host analyses no
// untrusted source itself, and a source whose analysis passes a bound is
// refused. Every stage is guarded there too: a panic refuses the policy
// (see refusePanic). The native backend then builds it under memory, CPU
// and file-size bounds of its own (see toolimits.go).
//
// Check = Compile + Smoke: the paper's 50-step test of self-play on the
// game's default map, run twice from the same seed (one the policy
// cannot predict: see admissionSeed) with fresh instances;
// differing actions are ErrNondeterministic ("policy is not deterministic
// (step k, agent i: 3 vs 5) — e.g. ranging over a map"). Then a whole
// episode of evaluation length (Config.AdmissionSteps) is played twice,
// in a fresh worker and in the same worker after other episodes, with
// the same check over every step, and, when both backends are
// available (a Go toolchain is present), on the other backend: a policy
// whose actions differ there, or that fails on one backend only, is
// refused with ErrDisagree naming the step and agent (see crossCheck and
// Config.SkipCrossCheck): whatever the two backends would score
// differently never enters a pool.
package sandbox
