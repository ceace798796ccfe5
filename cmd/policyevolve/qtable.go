package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs/ssd"
	"policyevolve/internal/infile"
	"policyevolve/store"
)

// trainProgress shows training progress on stderr: a bar on a terminal,
// else one plain line per twentieth of the run (with the mean team reward
// of those episodes, as the reference logs).
type trainProgress struct {
	w        io.Writer
	bar      *progressbar.ProgressBar
	every    int
	episodes int
	sum      float64 // team rewards since the last line
	count    int
}

func newTrainProgress(stderr io.Writer, episodes int) *trainProgress {
	p := &trainProgress{w: stderr, every: max(1, (episodes+19)/20), episodes: episodes}
	if isTerminal(stderr) {
		// Hide the *os.File behind a plain writer: progressbar syncs an
		// *os.File on every redraw.
		p.bar = progressbar.NewOptions(episodes,
			progressbar.OptionSetWriter(struct{ io.Writer }{stderr}),
			progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("episodes"),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }),
		)
	}
	return p
}

// maxQTableFile bounds a Q-table file: the largest state space
// (Cleanup's 11 664 states) written whole is a few MiB.
const maxQTableFile = 64 << 20

// loadQTable reads a Q-table file for game: a clear error when the file is
// missing, is not a Q-table, or was trained on the other game.
func loadQTable(path string, game ssd.Game) (*qlearn.Table, error) {
	data, err := infile.Read(path, maxQTableFile)
	if err != nil {
		return nil, err
	}
	tab, err := qlearn.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if tab.Game != game {
		return nil, fmt.Errorf("%s: the Q-table was trained on %s, not %s", path, tab.Game, game)
	}
	return tab, nil
}

// qlearnFile returns FILE for a --policy or import argument "qlearn:FILE".
func qlearnFile(arg string) (string, bool) {
	return strings.CutPrefix(arg, "qlearn:")
}

// describeQTable summarises a stored Q-table in one line (pool show prints
// it instead of the whole table).
func describeQTable(p *store.Policy) string {
	tab, err := qlearn.Parse([]byte(p.Source))
	if err != nil {
		return "a Q-table that does not parse: " + err.Error()
	}
	in := tab.Info
	return fmt.Sprintf("a %s Q-table of %d states, trained on %s with %d agents for %d episodes from seed %d (pool export %.12s writes it out)",
		tab.Game, tab.Len(), in.Map, in.Agents, in.Episodes, in.Seed, p.ID)
}

// episode is the trainer's OnEpisode callback.
func (p *trainProgress) episode(s qlearn.EpisodeStats) {
	p.sum += s.TeamReward
	p.count++
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("team reward %6.1f  ε %.3f  %d states", s.TeamReward, s.Epsilon, s.States))
		p.bar.Add(1)
		return
	}
	if (s.Episode+1)%p.every == 0 || s.Episode+1 == s.Episodes {
		fmt.Fprintf(p.w, "episode %d/%d: mean team reward %.1f over the last %d, ε %.3f, %d states\n",
			s.Episode+1, s.Episodes, p.sum/float64(p.count), p.count, s.Epsilon, s.States)
		p.sum, p.count = 0, 0
	}
}

func (p *trainProgress) finish() {
	if p.bar != nil && !p.bar.IsFinished() {
		p.bar.Exit()
	}
}
