// Package episode is the episode layer: one episode described whole
// (Episode: the policies with their sources, the environment, the seats,
// the seed and the sandbox limits; its ID is a content address), its
// result as it travels between machines (Result), and the Executor that
// plays it — Local on this machine, in the sandbox's confined workers,
// or another elsewhere (package distrib, over NATS JetStream).
//
// It also resolves environments (Env) and holds the built-in policies
// (the baselines and stored Q-tables) that play in-process as trusted
// code. It imports the sandbox, the environments and the store, and
// nothing that writes policies: an evaluation worker links only this.
package episode
