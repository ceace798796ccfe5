// Package envs holds the rules of the two Sequential Social Dilemmas,
// Gathering and Cleanup, reproduced bit for bit from the reference Python
// environments of Gallego (2026): ASCII maps (the reference maps are
// embedded), a numpy-compatible random generator (SeedSequence + PCG64),
// the environments, the social metrics and an episode runner.
//
// The golden traces in testdata/golden are the specification: every
// recorded episode replays step for step, field for field.
//
// envs imports only the standard library and its leaf envs/ssd, whose
// snapshot types (ssd.Layout, ssd.State) the environment writes and whose
// View policies read.
//
// A typical episode:
//
//	m, _ := envs.BuiltinMap(ssd.Gathering, "large")
//	env, _ := envs.New(envs.Config{Map: m, Agents: 10})
//	bfs, _ := envs.Builtin("bfs")
//	res, err := envs.Run(ctx, env, []envs.Seat{{Actor: &envs.PolicyActor{New: bfs},
//		Agents: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}}, envs.Options{Seed: 0})
package envs
