// Package distrib plays a search's episodes on evaluation workers beyond
// one machine, fed by a NATS JetStream work queue.
//
// The coordinator (the evolve process, the only writer of the store) sets
// a Remote as its Arena's episode.Executor: each episode, self-contained
// (policy sources, environment, seats, seed, sandbox limits; see
// episode.Episode), becomes a job on JobsStream under its content address.
// Workers ("policyevolve worker") pull jobs from a durable consumer per
// sandbox backend, play them with episode.Local — the same validation,
// limits and OS confinement as on the coordinator — publish the result on
// ResultsStream under the same address and acknowledge the job. Since
// the same episode always gives the same result, a job sent twice,
// redelivered after a worker died, or played twice, is harmless, and a
// remote run's records are bit for bit a local run's.
//
// Failures: a worker that dies stops acknowledging progress and its job
// is redelivered after AckWait; a job that fails for a reason of the
// system is handed back, and after MaxDeliver deliveries answered as
// episode.ErrJobFailed (by the worker of its last delivery, or, when every
// worker died on it, by the coordinator reading the server's advisory in
// DeadStream). A restarted server is found again by every client; the
// coordinator recreates what the server lost and sends again the jobs
// that were lost with it.
//
// Security: clients authenticate with NATS's own means (Auth: token, NKey
// or credentials file, TLS); no credential is stored in the store or
// logged. An embedded server on an interface beyond loopback refuses to
// start without a way to check its clients; a coordinator given no
// credentials generates a token (LoadOrCreateToken, beside its store). A
// worker trusts nothing in a job beyond its sandbox: the job is checked
// for shape and content address, the sources are validated, compiled and
// confined as locally. The coordinator takes a worker's result as
// evidence, not truth: workers sign their results with a key of their
// own, and Remote replays a sample of every key's results (VerifyConfig),
// quarantining a key whose result is not its episode's and replaying its
// earlier ones (ErrForged when one was used); a result that is invalid
// (episode.Result.Check and more) is played by the coordinator itself,
// never a reason to stop.
//
// Observability: each worker keeps its statistics in WorkersBucket
// (ListWorkers); Queues and Remote.Stats report the queues' depth.
package distrib
