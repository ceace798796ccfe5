package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"policyevolve/evolve/tune"
	"policyevolve/internal/outfile"
	"policyevolve/internal/plural"
)

type tuneOptions struct {
	storeOptions
	envOptions
	sandboxOptions
	target     string
	budget     int
	seed       uint64
	trainSeeds string
	seeds      string
	out        string
	workers    int
}

func cmdTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o tuneOptions
	fs := newFlagSet("tune", "ID|FILE.go [--game G] [--budget N] [flags]", `
Tune the numeric constants of a policy, an LLM's as much as a person's,
without another LLM call: the literals that read as constants (values of
constants, variables and struct fields, operands of <, <=, >, >= outside
loop conditions, floating-point factors) are searched with a genetic
algorithm against self-play efficiency on --train-seeds, each candidate
built and played through the sandbox, at most --budget candidates in all.
The best is kept only if it also beats the original on the held-out --seeds.

With a stored policy ID, a kept result is admitted, stored as a child of
the original (operator tune) and evaluated. With FILE.go, a kept result is
written to -o FILE, or printed. One progress line per generation goes to
stderr (a bar on a terminal).`, stdout)
	o.storeOptions.register(fs)
	o.envOptions.register(fs)
	o.sandboxOptions.register(fs)
	fs.IntVar(&o.budget, "budget", 40, "candidates to score on the training seeds, the original included")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the search's random choices")
	fs.StringVar(&o.trainSeeds, "train-seeds", "1000-1002", "self-play seeds the candidates are scored on")
	fs.StringVar(&o.seeds, "seeds", "0-4", "held-out self-play seeds the winner must also win on (the pool's evaluation seeds)")
	fs.StringVar(&o.out, "o", "", "FILE.go mode: write the tuned source here instead of stdout")
	fs.IntVar(&o.workers, "workers", 2, "episodes of a candidate played at once")
	target, err := oneArg(fs, args, "one policy id or .go file")
	if err != nil {
		return err
	}
	o.target = target
	return runTune(ctx, o, stdout, stderr)
}

func runTune(ctx context.Context, o tuneOptions, stdout, stderr io.Writer) error {
	train, err := parseSeeds(o.trainSeeds)
	if err != nil {
		return usagef("--train-seeds: %v", err)
	}
	held, err := parseSeeds(o.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	prog := newTuneProgress(stderr, o.budget)
	cfg := tune.Config{TrainSeeds: train, HeldOutSeeds: held, Budget: o.budget, Seed: o.seed, Workers: o.workers,
		Progress: prog.generation}
	file := strings.HasSuffix(o.target, ".go")
	if !file {
		if st, err := os.Stat(o.target); err == nil && st.Mode().IsRegular() {
			file = true
		}
	}
	if file {
		return tuneFile(ctx, o, cfg, prog, stdout, stderr)
	}
	if o.out != "" {
		return usagef("-o is for FILE.go mode; a tuned stored policy is stored")
	}
	arena, err := openArena(&o.storeOptions, writeStore, &o.envOptions, &o.sandboxOptions, o.seeds, "0", stderr)
	if err != nil {
		return err
	}
	id, err := resolve(arena.Store, o.target)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tuning %.12s on %s\n", id, arena.Env.Config)
	rep, err := arena.Tune(ctx, id, cfg)
	prog.finish()
	if err != nil {
		return err
	}
	printTune(stdout, rep.Result, train, held)
	if rep.Child == nil {
		return nil
	}
	state := "stored"
	if !rep.New {
		state = "already in the store"
	}
	fmt.Fprintf(stdout, "policy %s (%s), tune of %.12s\n", rep.Child.ID, state, id)
	if e := rep.Evaluation; e != nil {
		fmt.Fprintf(stdout, "self-play on seeds %v: %s, efficiency %.4f, equality %.4f, sustainability %.2f, peace %.3f\n",
			e.Seeds, e.Status, e.Mean.Efficiency, e.Mean.Equality, e.Mean.Sustainability, e.Mean.Peace)
	}
	return nil
}

// tuneFile tunes a source file and writes a kept result out.
func tuneFile(ctx context.Context, o tuneOptions, cfg tune.Config, prog *tuneProgress, stdout, stderr io.Writer) error {
	src, err := readSource(o.target)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return usagef("%s: %v", o.target, pe.Err)
		}
		return err
	}
	env, err := o.envOptions.resolve()
	if err != nil {
		return err
	}
	sb, err := o.sandboxOptions.open(stderr)
	if err != nil {
		return err
	}
	cfg.Sandbox, cfg.Map, cfg.Agents, cfg.Steps = sb, env.Map, env.Config.Agents, env.Config.MaxSteps
	fmt.Fprintf(stdout, "tuning %s on %s\n", o.target, env.Config)
	res, err := tune.Run(ctx, src, cfg)
	prog.finish()
	if err != nil {
		return err
	}
	printTune(stdout, res, cfg.TrainSeeds, cfg.HeldOutSeeds)
	if !res.Kept {
		return nil
	}
	if o.out == "" {
		fmt.Fprintf(stdout, "\n%s", res.Tuned)
		return nil
	}
	if err := outfile.WriteFile(o.out, res.Tuned); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.out)
	return nil
}

func printTune(w io.Writer, r *tune.Result, train, held []uint64) {
	fmt.Fprintf(w, "%s tuned, %s scored (%d failed):\n", plural.N(len(r.Literals), "constant"), plural.N(r.Evaluations, "candidate"), r.Failed)
	for _, l := range r.Literals {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if r.Tuned == nil {
		fmt.Fprintf(w, "no candidate beat the original on training seeds %v (efficiency %.4f): nothing kept\n", train, r.TrainOriginal)
		return
	}
	for _, c := range r.Changes {
		fmt.Fprintf(w, "changed line %d: %s -> %s (%s)\n", c.Literal.Line, c.Literal.Text, c.New, c.Literal.Where)
	}
	fmt.Fprintf(w, "training seeds %v: efficiency %.4f -> %.4f\n", train, r.TrainOriginal, r.TrainTuned)
	verdict := "kept"
	switch {
	case r.HeldOutFailure != "":
		verdict = "not kept (it fails on them: " + oneLine(r.HeldOutFailure, 300) + ")"
	case !r.Kept:
		verdict = "not kept (it does not win on them)"
	}
	fmt.Fprintf(w, "held-out seeds %v: efficiency %.4f -> %.4f: %s\n", held, r.HeldOutOriginal, r.HeldOutTuned, verdict)
}

// tuneProgress shows one line per generation on stderr: a bar on a
// terminal, plain lines otherwise.
type tuneProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newTuneProgress(stderr io.Writer, budget int) *tuneProgress {
	p := &tuneProgress{w: stderr}
	if isTerminal(stderr) {
		p.bar = progressbar.NewOptions(budget,
			progressbar.OptionSetWriter(struct{ io.Writer }{stderr}),
			progressbar.OptionSetDescription("tuning"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("candidates"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }),
		)
	}
	return p
}

func (p *tuneProgress) generation(g tune.Progress) {
	line := fmt.Sprintf("generation %d: %d/%d candidates, best %.4f (original %.4f), %d failed",
		g.Generation, g.Evaluations, g.Budget, g.Best, g.Original, g.Failed)
	if p.bar != nil {
		p.bar.Describe(line)
		p.bar.Set(g.Evaluations)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *tuneProgress) finish() {
	if p.bar != nil && !p.bar.IsFinished() {
		p.bar.Exit()
	}
}
