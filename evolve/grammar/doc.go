// Package grammar is the offline planner's search space: a grammar of
// strategy modules with numeric parameters, genomes that pick one module
// of each family, and a genetic search over them with eaopt.
//
// The families and their kinds:
//
//   - harvesting: the nearest alive apple by BFS (optionally avoiding
//     apples a nearer agent is heading for); one's own Voronoi territory
//     first; column or row strips by agent id; compact zones of equal
//     counts (recursive bisection, optionally refined by balanced
//     k-means), given by id or to the nearest agent, cut once or again
//     whenever the active harvesters change, and optionally timed: going
//     where an own apple can be picked soonest, counting the regrowth of
//     the apples it saw picked, or walking the zone in a cycle (a tour,
//     waiting on spawns about to grow back); in the last three, with no
//     own apple alive, roaming to a near one or waiting on one's own
//     apple spawns; a zone's harvester may walk, of the shortest paths
//     to the apple it heads for, the one that passes most apples (Paths);
//     (Gathering only, whose regrowth is a fixed time) one
//     cycle through the spawns walked by all the agents, their places
//     evenly spaced along it, skipping the spawns it detours for most
//     to fit a period (Drop);
//   - aggression: never; opportunistic (any rival in reach); territorial
//     (rivals near the apples of one's territory); retaliation (agents
//     seen beaming one of ours); each may turn toward targets and hold
//     fire for a while after tagging someone;
//   - cleaning (Cleanup): nobody; a fixed number of cleaners; a number
//     that follows the waste density through two thresholds; cleaners
//     chosen by id or by distance to the river, with hysteresis, firing
//     from where they stand or after searching nearby cells and the four
//     orientations for the beam that clears most.
//
// One code, two ways to run it. The modules are plain Go in the lib_*.go
// files, written against the public ssd API and within what the sandbox
// allows. During a search a genome runs in process (Genome.Actor), as
// fast as a built-in policy; Render copies the declarations a genome uses
// into a readable, commented policy source, which the sandbox validates
// and runs like any other, and a conformance test checks that the two
// choose the same actions step for step on both sandbox backends. The
// rendered source carries its genome on a header line ("// genome: {…}"),
// from which Parse reads it back (and only from an exact rendering: a
// hand-edited or foreign source is ErrNotGenome).
//
// Random draws every kind and parameter uniformly from its range: no
// module defaults to a known-good answer. Search runs eaopt's GA (fitness
// is minus the in-process self-play efficiency on training seeds) with
// mutations that a Bias, read from the critic's diagnostics, may steer,
// and a crossover of whole modules that changes only its receiver (eaopt
// passes the mate by value). Everything random comes from the seeds given.
//
// The package imports envs, envs/ssd, critic and eaopt; the Planner
// adapter lives in evolve (GrammarPlanner).
package grammar
