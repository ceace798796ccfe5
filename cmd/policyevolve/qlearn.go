package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"policyevolve/baselines/qlearn"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/store"
)

var qlearnCommands = map[string]command{
	"train": {"train a shared Q-table as the reference does and write it to a file", cmdQLearnTrain},
}

func cmdQLearn(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runGroup(ctx, "qlearn", `The paper's tabular Q-learning baseline: one Q-table over hand-made discrete
features, shared by all agents, trained with ε-greedy self-play exactly as the
reference implementation does (same seed, same table). A trained table plays
as --policy qlearn:FILE in play, and joins a global pool with pool import.`,
		qlearnCommands, args, stdout, stderr)
}

// qlearnTrainOptions are the flags of "qlearn train".
type qlearnTrainOptions struct {
	game     string
	mapArg   string
	agents   int
	episodes int
	seed     uint64
	steps    int
	epsDecay int
	out      string
}

func cmdQLearnTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o qlearnTrainOptions
	fs := newFlagSet("qlearn train", "[flags] -o FILE", `
Train the tabular Q-learner of the paper's Table 1 and write its Q-table (JSON)
to FILE. Episode e plays seed SEED+e; the learner draws its exploration from a
generator seeded with SEED, so a run reproduces the reference's
gathering_qlearning.py / cleanup_qlearning.py bit for bit. The defaults are the
paper's run: 1000 episodes, 10 agents, seed 40, on the large Gathering map or
the default Cleanup map; α 0.1, γ 0.99, ε from 1 to 0.05 over 100 (Gathering)
or 200 (Cleanup) episodes.

Play the result with: policyevolve play --policy qlearn:FILE (the reference
evaluates on seeds 9999-10003).`, stdout)
	fs.StringVar(&o.game, "game", "gathering", "game: gathering or cleanup")
	fs.StringVar(&o.mapArg, "map", "", "built-in map name or map file (default: large for gathering, default for cleanup)")
	fs.IntVar(&o.agents, "agents", envs.DefaultAgents, "number of agents")
	fs.IntVar(&o.episodes, "episodes", qlearn.DefaultEpisodes, "training episodes")
	fs.Uint64Var(&o.seed, "seed", qlearn.DefaultSeed, "training seed")
	fs.IntVar(&o.steps, "steps", envs.DefaultMaxSteps, "steps per episode")
	fs.IntVar(&o.epsDecay, "eps-decay", 0, "episodes over which ε decays (default: 100 for gathering, 200 for cleanup)")
	fs.StringVar(&o.out, "o", "", "output file for the Q-table (required)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runQLearnTrain(ctx, o, stdout, stderr)
}

func runQLearnTrain(ctx context.Context, o qlearnTrainOptions, stdout, stderr io.Writer) error {
	game, err := ssd.ParseGame(o.game)
	if err != nil {
		return usagef("--game: %v", err)
	}
	switch {
	case o.out == "":
		return usagef("-o FILE is required")
	case o.agents < 1:
		return usagef("--agents must be at least 1 (got %d)", o.agents)
	case o.episodes < 1:
		return usagef("--episodes must be at least 1 (got %d)", o.episodes)
	case o.steps < 1:
		return usagef("--steps must be at least 1 (got %d)", o.steps)
	case o.epsDecay < 0:
		return usagef("--eps-decay must not be negative (got %d)", o.epsDecay)
	}
	if o.mapArg == "" {
		o.mapArg = envs.DefaultMap(game)
	}
	m, err := envs.ResolveMap(game, o.mapArg)
	if err != nil {
		return usagef("--map: %v", err)
	}
	if _, err := envs.New(envs.Config{Map: m, Agents: o.agents, MaxSteps: o.steps}); err != nil {
		return usagef("%v", err)
	}
	params := qlearn.DefaultParams(game)
	if o.epsDecay > 0 {
		params.EpsDecay = o.epsDecay
	}
	// Claim the output before training, so that a bad path fails at once.
	tmp, err := os.CreateTemp(filepath.Dir(o.out), ".qtable-*.json")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name would only confuse
		}
		return usagef("-o %s: %v", o.out, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	defer tmp.Close()

	prog := newTrainProgress(stderr, o.episodes)
	start := time.Now()
	tab, err := qlearn.Train(ctx, qlearn.Config{Map: m, MapName: o.mapArg, Agents: o.agents, Episodes: o.episodes,
		Seed: o.seed, MaxSteps: o.steps, Params: &params, OnEpisode: prog.episode})
	prog.finish()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	data, err := tab.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp's 0600 suits no table
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	if err := os.Rename(tmp.Name(), o.out); err != nil {
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	fmt.Fprintf(stdout, "trained %s on %s, %d agents, %d episodes of %d steps from seed %d in %.1fs\n",
		game, o.mapArg, o.agents, o.episodes, o.steps, o.seed, elapsed.Seconds())
	fmt.Fprintf(stdout, "%d of %d states visited; wrote %s\n", tab.Len(), tab.StateSpace(), o.out)
	return nil
}

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

// loadQTable reads a Q-table file for game: a clear error when the file is
// missing, is not a Q-table, or was trained on the other game.
func loadQTable(path string, game ssd.Game) (*qlearn.Table, error) {
	data, err := os.ReadFile(path)
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
