package pool

import (
	"fmt"
	"math"
	"strings"
)

// An Objective is what a run selects for: what a game between two
// policies counts (and so what a rating in the pool means), who is
// promoted into the global pool, and who is crowned the run's champion.
// docs/objectives.md defines each and says why.
//
// Its value is its name, as runs, pools and comparisons store it; what
// it decides is asked of it (Game, Admit, InvasionTest, Rated, Champion,
// Rechecks, ScoreColumn, GamesCounted, Describe), and each answer comes
// from the objective's entry in rules, the one place an objective is
// defined. An empty name reads as Elo (Stored); a name no entry has
// answers as an objective that decides nothing: no game (Game returns
// 0), no one admitted, no champion.
type Objective string

// The objectives.
const (
	// Welfare: the group's welfare, the paper's efficiency U (mean
	// per-agent return per step) of a policy in self-play on the
	// evaluation seeds. A game of A against B on a seed compares their
	// self-play efficiencies on that seed, within the draw tolerance of a
	// match (elo.Outcome). The default of new runs, for both games: they
	// are social dilemmas, and the group's welfare is what a researcher
	// studying them wants.
	Welfare Objective = "welfare"
	// Elo: PolicyEvolve's competitive objective. A game is a mixed match
	// (half the agents each, sides swapped), won by the side with the
	// higher per-agent return; the champion is the top-rated of the run's
	// candidates in the global pool. Every run stored before objectives
	// existed ran under it.
	Elo Objective = "elo"
	// Robust: welfare among the policies that resist invasion — cooperation
	// that cannot be exploited, the seed paper's subject. A game is
	// welfare's; a candidate is promoted only if it also passes the
	// invasion test (Robust: no member of the pool, seated as one agent
	// among its own, out-earns them by more than the margin); the
	// champion is the best in self-play among the run's robust candidates,
	// or, when none is, the least invadable.
	Robust Objective = "robust"
	// Exploit: the best response to a fixed policy, the target. A
	// candidate is an invader: it is scored by its mean per-agent return
	// when K copies of it sit among residents running the target (n−K of
	// them) on the evaluation seeds; a game of A against B on a seed
	// compares their returns as invaders among the same residents; the
	// champion is the candidate with the highest invader return. The
	// target and K are the run's (evolve.JobConfig's Against and K).
	Exploit Objective = "exploit"
)

// DefaultObjective is the objective of a new run that names none
// (evolve.JobConfig.WithDefaults, and the --objective flags). It is not
// what a stored record without a name means: that is Stored's.
const DefaultObjective = Welfare

// Stored is the objective a stored record means by the name o. A run, a
// pool or a comparison stored before runs chose an objective names none
// (""), and ran under Elo: so "" is Elo here, and every other name is
// itself. This is the one place the empty name is read; every method of
// Objective asks it, so an Objective{""} (an arena or a report that names
// none) answers as Elo.
func Stored(o Objective) Objective {
	if o == "" {
		return Elo
	}
	return o
}

// ParseObjective reads an objective's name; an unknown name is an error
// that lists the valid ones.
func ParseObjective(s string) (Objective, error) {
	for _, o := range Objectives {
		if string(o) == s {
			return o, nil
		}
	}
	names := make([]string, len(Objectives))
	for i, o := range Objectives {
		names[i] = string(o)
	}
	return "", fmt.Errorf("unknown objective %q (want %s or %s)", s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// DefaultRobustMargin is the share of the residents' per-agent return an
// invader may gain before a policy counts as invadable: a match's relative
// draw tolerance (2%), so that an invader that only draws with the
// residents does not count.
const DefaultRobustMargin = 0.02

// Resists reports whether a policy resists invasion: the worst invader's
// gain over the residents (per-agent return) is at most margin times the
// residents' per-agent return, and never less than a match's absolute
// draw tolerance (a tenth of a unit of return), as elo.Outcome decides a
// draw.
func Resists(gain, residents, margin float64) bool {
	return gain <= math.Max(0.1, margin*math.Abs(residents))
}

// Entrant is a run's candidate as the champion rule sees it.
type Entrant struct {
	ID string
	// Member: the policy is in the objective's global pool; Elo is its
	// rating there (as the pool's games count them).
	Member bool
	Elo    float64
	// Welfare is the welfare objective's score: the mean self-play
	// efficiency on the evaluation seeds, or, for a candidate confirmed on
	// the selection seeds, on the evaluation and selection seeds together.
	Welfare float64
	// Under Robust: Resists says whether the candidate passed its invasion
	// test, and Invaded is its worst invader's gain as a share of the
	// residents' return (how far from passing it is).
	Resists bool
	Invaded float64
	// Under Exploit: Exploit is the candidate's mean per-agent return as
	// an invader among the run's target on the evaluation seeds (the
	// champion's score); -Inf when its invasion failed.
	Exploit float64
}
