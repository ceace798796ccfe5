package pool

import "fmt"

// GamesLabel says what the games of a rating in a pool of objective o
// are, for a record shown beside a list of mixed matches: "20/0/0
// (won/drawn/lost) in 20
// games counted by welfare (self-play compared seed by seed); the mixed
// matches are not counted". Under elo the games are the mixed matches.
func GamesLabel(o Objective, wins, draws, losses, games int) string {
	o = Stored(o)
	if o.Game() == MixedMatch {
		return fmt.Sprintf("%d/%d/%d (won/drawn/lost) in %d mixed matches counted by %s", wins, draws, losses, games, o)
	}
	return fmt.Sprintf("%d/%d/%d (won/drawn/lost) in %d games counted by %s (self-play compared seed by seed); the mixed matches are not counted", wins, draws, losses, games, o)
}
