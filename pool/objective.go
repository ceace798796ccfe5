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
)

// Objectives lists the valid objectives, the default first.
var Objectives = []Objective{Welfare, Elo, Robust}

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

// Admit decides whether a candidate joins the objective's global pool:
// Promote's rule (a win rate strictly above the threshold in the
// objective's games, and a self-play that succeeded), and under Robust
// also the invasion test (resists: see Resists).
func Admit(o Objective, winRate float64, selfPlayOK, resists bool, threshold float64) bool {
	if o == Robust && !resists {
		return false
	}
	return Promote(winRate, selfPlayOK, threshold)
}

// DefaultObjective is the objective of a new run that names none.
const DefaultObjective = Welfare

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

// OrElo is o, or Elo when o is empty: the objective of an arena or a pool
// that names none, as every one did before objectives existed.
func (o Objective) OrElo() Objective {
	if o == "" {
		return Elo
	}
	return o
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
}

// Champion returns the index of the best entrant under the objective, -1
// when there is none. Entrants are in the order the run made them; a tie
// goes to the earlier one, except under Elo where it goes, as it always
// did, to the smaller id.
//
//   - Welfare: the highest Welfare.
//   - Elo: among the members, the highest rated (ties: the smaller id);
//     when none is a member, the highest Welfare.
//   - Robust: among those that resist invasion, the highest Welfare; when
//     none does, the least invaded (ties: the higher Welfare).
func Champion(o Objective, es []Entrant) int {
	best := -1
	switch o.OrElo() {
	case Robust:
		resists := false
		for i, e := range es {
			switch {
			case e.Resists && (!resists || e.Welfare > es[best].Welfare):
				best, resists = i, true
			case !resists && (best < 0 || e.Invaded < es[best].Invaded || (e.Invaded == es[best].Invaded && e.Welfare > es[best].Welfare)):
				best = i
			}
		}
	case Elo:
		inPool := false
		for i, e := range es {
			switch {
			case e.Member && (!inPool || e.Elo > es[best].Elo || (e.Elo == es[best].Elo && e.ID < es[best].ID)):
				best, inPool = i, true
			case !inPool && (best < 0 || e.Welfare > es[best].Welfare):
				best = i
			}
		}
	default:
		for i, e := range es {
			if best < 0 || e.Welfare > es[best].Welfare {
				best = i
			}
		}
	}
	return best
}
