package pool

import "fmt"

// A Game is what a game between two policies compares under an
// objective: what a rating in its pool counts and what promotion counts.
// The zero value is no game (a name no objective has).
type Game int

// The games.
const (
	// MixedMatch: the mixed match on one match seed (half the agents
	// each, sides swapped), won by the side with the higher per-agent
	// return.
	MixedMatch Game = iota + 1
	// SelfPlay: the two policies' self-play episodes on one evaluation
	// seed, compared by their mean per-agent returns within a match's
	// draw tolerance (elo.Outcome); a side whose self-play failed on the
	// seed loses.
	SelfPlay
	// Invasion: the two policies each seated as the run's K invaders
	// among the same residents (the exploit objective's target) on one
	// evaluation seed, compared by the invaders' mean per-agent returns
	// within a match's draw tolerance (elo.Outcome); a side whose invasion
	// failed on the seed loses.
	Invasion
)

// A rule is what one objective decides: the answers its methods give.
type rule struct {
	name Objective
	game Game
	// invasion: a candidate joins the pool only if it also passes the
	// invasion test (Resists, with the run's margin).
	invasion bool
	// exploit: the objective's score of a candidate is its return as an
	// invader among the run's target (Entrant.Exploit), not its
	// self-play.
	exploit bool
	// rated: the objective's score of a pool member is its rating in the
	// pool; otherwise its self-play efficiency.
	rated bool
	// champion picks the run's champion among its entrants (Champion).
	champion func(es []Entrant) int
	// describeChampion says who the champion is, given how the run names
	// its best in self-play (DescribeChampion).
	describeChampion func(best string) string
}

// rules holds every objective, the default first: the one place an
// objective is added (its name above, its rule here, its page in
// docs/objectives.md).
var rules = []rule{
	{name: Welfare, game: SelfPlay, champion: bestInSelfPlay,
		describeChampion: func(best string) string { return best }},
	{name: Elo, game: MixedMatch, rated: true, champion: topRated,
		describeChampion: func(string) string { return "its top-rated candidate in the pool" }},
	{name: Robust, game: SelfPlay, invasion: true, champion: bestResisting,
		describeChampion: func(best string) string { return best + " among those that resist invasion" }},
	{name: Exploit, game: Invasion, exploit: true, champion: bestInvader,
		describeChampion: func(string) string {
			return "the best invader: the highest per-agent return among the target's residents"
		}},
}

// Objectives lists the valid objectives, the default first.
var Objectives = func() []Objective {
	out := make([]Objective, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}()

// rule is o's rule (o read as Stored), or the zero rule, which decides
// nothing, for a name no objective has.
func (o Objective) rule() rule {
	o = Stored(o)
	for _, r := range rules {
		if r.name == o {
			return r
		}
	}
	return rule{}
}

// Game is what a game between two policies compares under o (0 for a
// name no objective has).
func (o Objective) Game() Game { return o.rule().game }

// InvasionTest reports whether a candidate must also pass the invasion
// test to join o's pool (Admit), each challenged candidate taking it
// before promotion; a run's robust margin is that test's margin and means
// nothing under another objective.
func (o Objective) InvasionTest() bool { return o.rule().invasion }

// Admit decides whether a candidate joins o's global pool: Promote's
// rule (a win rate strictly above the threshold in the objective's games,
// and a self-play that succeeded), and, when o has the invasion test
// (InvasionTest), that test passed (resists: see Resists). No one joins
// the pool of a name no objective has.
func (o Objective) Admit(winRate float64, selfPlayOK, resists bool, threshold float64) bool {
	r := o.rule()
	if r.name == "" || (r.invasion && !resists) {
		return false
	}
	return Promote(winRate, selfPlayOK, threshold)
}

// Rated reports whether o's score of a pool member is its rating in the
// pool (Elo); otherwise it is the member's self-play efficiency. A pool,
// a league or a run's parents listed best first by o are listed by it.
func (o Objective) Rated() bool { return o.rule().rated }

// Exploits reports whether o scores a candidate as an invader among the
// run's target (the run's Against, K copies seated among residents
// running it; Entrant.Exploit) rather than by its self-play: what a
// planner is told and what the champion is picked by.
func (o Objective) Exploits() bool { return o.rule().exploit }

// ScoreColumn names the column of a pool's table (pool ls, the report's
// pool page) that holds o's score: "elo" when it is Rated, else
// "efficiency". An objective that Exploits lists by "elo" too: a pool's
// table has no column of invader returns, and its ratings count the
// games that compare them (invasions of the target, seed by seed).
func (o Objective) ScoreColumn() string {
	if o.Rated() || o.Exploits() {
		return "elo"
	}
	return "efficiency"
}

// Champion returns the index of the best entrant under o, -1 when there
// is none (or o is a name no objective has). Entrants are in the order
// the run made them; a tie goes to the earlier one, except under Elo
// where it goes, as it always did, to the smaller id.
//
//   - Welfare: the highest Welfare.
//   - Elo: among the members, the highest rated (ties: the smaller id);
//     when none is a member, the highest Welfare.
//   - Robust: among those that resist invasion, the highest Welfare; when
//     none does, the least invaded (ties: the higher Welfare).
//   - Exploit: the highest Exploit (the invader's per-agent return among
//     the target's residents).
func (o Objective) Champion(es []Entrant) int {
	if r := o.rule(); r.champion != nil {
		return r.champion(es)
	}
	return -1
}

// Rechecks reports whether the entrant e, picked by Champion, was picked
// by a score on the evaluation seeds (Welfare, or Exploit), which a recheck on further seeds may
// change (search.Crown): not a member of a Rated objective's pool, which
// is picked by its rating. Under an objective that Exploits the pick is
// by its invader return, and its recheck replays the invasion on further
// seeds (Exploit becomes the score over both; search.Rechecker).
func (o Objective) Rechecks(e Entrant) bool { return !(o.Rated() && e.Member) }

// GamesCounted names, as a plural noun, the games o's pool counts: what
// its Elo means ("mixed matches"; "games of self-play compared seed by
// seed").
func (o Objective) GamesCounted() string {
	switch o.Game() {
	case MixedMatch:
		return "mixed matches"
	case SelfPlay:
		return "games of self-play compared seed by seed"
	case Invasion:
		return "invasions of the target compared seed by seed"
	}
	return "no games"
}

// DescribeChampion says who o crowns in a run with a pool, best naming
// the run's best in self-play ("the best in self-play", with how it was
// rechecked).
func (o Objective) DescribeChampion(best string) string {
	if r := o.rule(); r.describeChampion != nil {
		return r.describeChampion(best)
	}
	return "none"
}

// Describe says in one sentence what o decides in a run with a pool (a
// population): what its pool's games compare, who joins the pool, and who
// is champion (DescribeChampion; best as there). margin is the run's
// invasion margin, said when o has the invasion test. Every place that
// says what a run's objective decided (runs show, the run report) says
// this sentence.
func (o Objective) Describe(best string, margin float64) string {
	var s string
	switch o.Game() {
	case MixedMatch:
		s = "its pool's games are mixed matches"
	case SelfPlay:
		s = "its pool's games compare self-play seed by seed"
	case Invasion:
		s = "its pool's games compare the two policies' returns as invaders among the same residents seed by seed"
	default:
		return fmt.Sprintf("%q is no objective", string(o))
	}
	if o.InvasionTest() {
		s += fmt.Sprintf(", and only a candidate no pool member invades by more than %g of the residents' return joins it", margin)
	}
	return s + "; the champion is " + o.DescribeChampion(best)
}

// bestInSelfPlay is Welfare's champion: the highest Welfare, ties to the
// earlier.
func bestInSelfPlay(es []Entrant) int {
	best := -1
	for i, e := range es {
		if best < 0 || e.Welfare > es[best].Welfare {
			best = i
		}
	}
	return best
}

// topRated is Elo's champion: among the members the highest rated (ties:
// the smaller id); when none is a member, the highest Welfare.
func topRated(es []Entrant) int {
	best, inPool := -1, false
	for i, e := range es {
		switch {
		case e.Member && (!inPool || e.Elo > es[best].Elo || (e.Elo == es[best].Elo && e.ID < es[best].ID)):
			best, inPool = i, true
		case !inPool && (best < 0 || e.Welfare > es[best].Welfare):
			best = i
		}
	}
	return best
}

// bestResisting is Robust's champion: among those that resist invasion
// the highest Welfare; when none does, the least invaded (ties: the
// higher Welfare).
func bestResisting(es []Entrant) int {
	best, resists := -1, false
	for i, e := range es {
		switch {
		case e.Resists && (!resists || e.Welfare > es[best].Welfare):
			best, resists = i, true
		case !resists && (best < 0 || e.Invaded < es[best].Invaded || (e.Invaded == es[best].Invaded && e.Welfare > es[best].Welfare)):
			best = i
		}
	}
	return best
}

// bestInvader is Exploit's champion: the highest Exploit, ties to the
// earlier.
func bestInvader(es []Entrant) int {
	best := -1
	for i, e := range es {
		if best < 0 || e.Exploit > es[best].Exploit {
			best = i
		}
	}
	return best
}
