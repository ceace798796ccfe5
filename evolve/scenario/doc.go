// Package scenario scores a focal policy against background populations:
// a Scenario seats a background policy (a built-in, a stored policy, a
// Q-table — any reference the caller can turn into an actor) with the
// focal policy in one of two modes, and a Suite is a named list of them,
// read from a TOML file or the game's default. Run plays a suite through
// the arena's invasion episodes (arena.Invade) and reports, per scenario,
// the focal per-capita return, its share of the focal policy's self-play
// return, the background's per-capita return and the group's efficiency.
//
// The package holds data and arithmetic only: it opens no store and no
// sandbox; the caller resolves background references (see Resolve).
package scenario
