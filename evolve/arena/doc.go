// Package arena evaluates, matches and rates policies on one environment
// and keeps every result in the store: self-play evaluations over the
// evaluation seeds, mixed matches and Elo ratings in a global pool,
// admission of hand-written policies and Q-tables, leagues, the critic's
// reflections on recorded episodes, invasion and transfer tests, drafts
// tried for the ReAct style, and the constant tuner. It plays episodes
// through an episode.Executor (this machine by default) and knows nothing
// of planners or language models.
package arena
