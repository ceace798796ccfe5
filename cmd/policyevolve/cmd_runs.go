package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/internal/plural"
	"policyevolve/store"
)

var runsCommands = map[string]command{
	"ls":   {"list the evolution runs of the store with their status, progress, spending and champion", cmdRunsLs},
	"show": {"show one run: its configuration, iterations, candidates and champion", cmdRunsShow},
}

func cmdRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runGroup(ctx, "runs", "The evolution runs of the store (started by policyevolve evolve).", runsCommands, args, stdout, stderr)
}

type runsOptions struct {
	storeOptions
	json bool
}

func cmdRunsLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o runsOptions
	fs := newFlagSet("runs ls", "[flags]", `
List the evolution runs in the store, newest last: status (running;
interrupted — its process is gone, killed or crashed; done; stopped; or
failed — the interrupted and stopped ones resume with evolve --resume),
iterations done,
planner calls, LLM calls and cost, and the champion. Safe to run while a
job writes.`, stdout)
	o.storeOptions.register(fs)
	fs.BoolVar(&o.json, "json", false, "print JSON")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	s, err := o.storeOptions.open(readStore)
	if err != nil {
		return err
	}
	var runs []store.Run
	if err := s.View(func(tx *store.Tx) (err error) {
		if runs, err = tx.Runs(); err != nil {
			return err
		}
		return tx.MarkInterrupted(runs, store.Self())
	}); err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(runs)
	}
	if len(runs) == 0 {
		fmt.Fprintf(stdout, "no runs (start one with %s evolve)\n", self())
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tmode\tenvironment\tobjective\tstatus\titerations\tcalls\tllm\tcost\tchampion\tupdated")
	for _, r := range runs {
		var cfg evolve.JobConfig
		json.Unmarshal(r.Config, &cfg)
		status := r.Status
		if r.StopReason != "" {
			status += " (" + r.StopReason + ")"
		}
		champ := "-"
		if r.Champion != "" {
			champ = r.Champion[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s/%s/%d/%d\t%s\t%s\t%d/%d\t%d\t%d\t%s\t%s\t%s\n", r.ID, r.Mode, cfg.Game, cfg.MapName(), cfg.Agents, cfg.Steps,
			objectiveOf(r.Mode, cfg), status, r.Iterations, cfg.TotalIterations(), r.Usage.Proposals, r.Usage.LLMCalls, r.Usage.CostShort(), champ, r.Updated.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// objectiveOf is the objective a run selects by, as runs ls shows it:
// "-" for a run that is not an evolution job (a Q-learner's training).
func objectiveOf(mode string, cfg evolve.JobConfig) string {
	switch mode {
	case evolve.ModePopulation, evolve.ModeChain, evolve.ModeGEPA:
		return string(cfg.Objective)
	}
	return "-"
}

func cmdRunsShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o runsOptions
	fs := newFlagSet("runs show", "RUN_ID [flags]", `
Show one run: its resolved configuration (as stored; a resumed run uses
it), its spending, and every iteration with its candidates — how each was
made (as pool show and the report say it: operator — refine for a
local-refinement round — planner, parents), what became of it (refused, duplicate,
failed, rejected, promoted), its self-play efficiency, win rate and Elo —
and the champion after it.`, stdout)
	o.storeOptions.register(fs)
	fs.BoolVar(&o.json, "json", false, "print JSON")
	id, err := oneArg(fs, args, "one run id")
	if err != nil {
		return err
	}
	stdout = termSafeWriter{stdout} // refusals and failures quote policies
	s, err := o.storeOptions.open(readStore)
	if err != nil {
		return err
	}
	var run *store.Run
	var its []store.Iteration
	var origins map[string]store.Origin // of the candidates' policies
	var owner *store.Lease              // who drives the run, if anyone
	if err := s.View(func(tx *store.Tx) (err error) {
		if run, err = tx.Run(id); errors.Is(err, store.ErrNotFound) {
			return noRun(id, o.storeOptions)
		} else if err != nil {
			return err
		}
		status := ""
		if status, owner, err = tx.Standing(run, store.Self()); err != nil {
			return err
		}
		if status == store.StatusInterrupted {
			run.Status, run.StopReason = status, store.InterruptedReason(owner)
		}
		if its, err = tx.Iterations(run.ID); err != nil {
			return err
		}
		origins, err = tx.CandidateOrigins(its)
		return err
	}); err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		var cfg evolve.JobConfig
		json.Unmarshal(run.Config, &cfg) // a run whose configuration does not read is still shown
		return enc.Encode(struct {
			Run *store.Run `json:"run"`
			// Objective is the run's (elo for a run stored before
			// objectives, whose configuration names none).
			Objective  string            `json:"objective"`
			Iterations []store.Iteration `json:"iterations"`
		}{run, objectiveOf(run.Mode, cfg), its})
	}
	var cfg evolve.JobConfig
	if err := json.Unmarshal(run.Config, &cfg); err != nil {
		return fmt.Errorf("run %s: configuration: %w", run.ID, err)
	}
	fmt.Fprintf(stdout, "run %s: %s", run.ID, run.Status)
	if run.StopReason != "" {
		fmt.Fprintf(stdout, " (%s)", run.StopReason)
	}
	if run.Error != "" {
		fmt.Fprintf(stdout, " — %s", run.Error)
	}
	if run.Status == store.StatusRunning && owner != nil {
		fmt.Fprintf(stdout, "\ndriven by %s, heartbeat %s ago", owner, time.Since(owner.Heartbeat).Round(time.Second))
	}
	fmt.Fprintf(stdout, "\nobjective %s: %s", cfg.Objective, cfg.DescribeObjective(seedWords))
	for _, e := range cfg.Extended {
		fmt.Fprintf(stdout, "\nextended on resume: %s", e)
	}
	fmt.Fprintf(stdout, "\nstarted %s, updated %s\n", run.Started.Local().Format(time.DateTime), run.Updated.Local().Format(time.DateTime))
	u := run.Usage
	fmt.Fprintf(stdout, "spent: %s, %s (%d tokens in, %d out), %s, %s, %s\n",
		plural.N(u.Proposals, "planner call"), plural.N(u.LLMCalls, "LLM call"), u.InputTokens, u.OutputTokens, u.CostWords(), plural.N(u.Episodes, "episode"), (time.Duration(u.WallSeconds) * time.Second).String())
	pretty, _ := json.MarshalIndent(cfg, "  ", "  ")
	fmt.Fprintf(stdout, "configuration:\n  %s\n", pretty)
	rechecked, err := rechecks(s, cfg, its)
	if err != nil {
		return err
	}
	for _, it := range its {
		fmt.Fprintf(stdout, "\niteration %d", it.Index)
		if !it.Done {
			fmt.Fprint(stdout, " (in progress)")
		}
		fmt.Fprintln(stdout)
		plan := map[int]store.PlannedCandidate{}
		for _, pc := range it.Plan {
			plan[pc.Sample] = pc
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tmade by\tstatus\tpolicy\tefficiency\twin rate\tElo\tcalls\t")
		for _, pc := range it.Plan {
			c := it.Candidate(pc.Sample)
			status, policy, eff, win, elo, calls := "pending", "-", "-", "-", "-", "-"
			// As planned, until its policy says how it was made (as pool
			// show and the report say it).
			made := store.Origin{Operator: pc.Operator, Planner: pc.Planner, Parents: pc.Parents}
			if c != nil {
				status, calls = c.Status, fmt.Sprint(c.Usage.Proposals)
				if c.Policy != "" {
					policy = c.Policy[:12]
					made = origins[c.Policy]
				}
				if c.Status == store.CandidateEvaluated || c.Status == store.CandidatePromoted || c.Status == store.CandidateRejected {
					eff = fmt.Sprintf("%.4f", c.Metrics.Efficiency)
				}
				if c.Games > 0 {
					win, elo = fmt.Sprintf("%.2f", c.WinRate), fmt.Sprintf("%.0f", c.Elo)
				}
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pc.Sample, made.How(8), status, policy, eff, win, elo, calls)
		}
		tw.Flush()
		for _, pc := range it.Plan {
			if c := it.Candidate(pc.Sample); c != nil && c.Problem != "" {
				fmt.Fprintf(stdout, "  #%d: %s\n", pc.Sample, oneLine(c.Problem, 200))
			}
		}
		for _, pc := range it.Plan {
			if c := it.Candidate(pc.Sample); c != nil && c.Invasion != nil {
				fmt.Fprintf(stdout, "  #%d: %s\n", pc.Sample, invasionWords(c.Invasion))
			}
		}
		if p := it.Prompt; p != nil {
			fmt.Fprintf(stdout, "  prompt candidate %d", p.ID)
			if p.Parent >= 0 {
				fmt.Fprintf(stdout, " from %d", p.Parent)
			}
			if p.Scored {
				fmt.Fprintf(stdout, ": scores per seed %s", formatScores(p.Scores))
				if p.Accepted {
					fmt.Fprint(stdout, ", accepted")
				} else {
					fmt.Fprint(stdout, ", not accepted")
				}
			}
			fmt.Fprintln(stdout)
			switch {
			case p.Problem != "":
				fmt.Fprintf(stdout, "  reflection: %s\n", oneLine(p.Problem, 200))
			case p.Guidance != "":
				fmt.Fprintf(stdout, "  guidance: %s\n", oneLine(p.Guidance, 300))
			}
		}
		if r := refusals(it.Candidates); r != "" {
			fmt.Fprintf(stdout, "  refused or failed on the way: %s\n", r)
		}
		if it.Champion != "" {
			fmt.Fprintf(stdout, "  champion by %s %.12s: efficiency %.4f on seeds %s", cfg.ChampionBy(), it.Champion, it.Best.Efficiency, seedWords(cfg.EvalSeeds))
			if r, ok := rechecked[it.Champion]; ok {
				fmt.Fprintf(stdout, " (%s)", r)
			}
			fmt.Fprintf(stdout, ", equality %.4f, sustainability %.2f, peace %.3f", it.Best.Equality, it.Best.Sustainability, it.Best.Peace)
			if it.BestElo != 0 {
				fmt.Fprintf(stdout, ", Elo %.0f", it.BestElo)
			}
			fmt.Fprintln(stdout)
		}
	}
	var all []store.Candidate
	for _, it := range its {
		all = append(all, it.Candidates...)
	}
	var member string
	if err := s.View(func(tx *store.Tx) (err error) {
		member, err = championMembership(tx, run, cfg, its)
		return err
	}); err != nil {
		return err
	}
	if member != "" {
		fmt.Fprintf(stdout, "\nchampion %.12s: %s\n", run.Champion, member)
	}
	if r := refusals(all); r != "" {
		fmt.Fprintf(stdout, "\nrefused or failed in the run: %s\n", r)
	}
	if run.Status == store.StatusStopped && !evolve.StoppedByBudget(run) || run.Status == store.StatusInterrupted {
		fmt.Fprintf(stdout, "\nresume with: %s evolve --resume %s%s\n", self(), run.ID, storeFlag(o.storeOptions))
	} else if run.Status == store.StatusDone || evolve.StoppedByBudget(run) {
		fmt.Fprintf(stdout, "\ncarry it further with: %s evolve --resume %s%s and a larger budget (--iterations, --max-planner-calls, --max-cost, --max-tokens or --time)\n",
			self(), run.ID, storeFlag(o.storeOptions))
	}
	return nil
}

// noRun is the error for a run id the store does not hold, as every
// command that takes one says it (exit 1, wrapping store.ErrNotFound),
// with the command that lists the runs.
func noRun(id string, o storeOptions) error {
	return notFound{fmt.Sprintf("no run %s in the store (%s runs ls%s lists them)", id, self(), storeFlag(o))}
}

// notFound is a message that says what is missing; it wraps
// store.ErrNotFound without repeating its words.
type notFound struct{ msg string }

func (e notFound) Error() string { return e.msg }
func (e notFound) Unwrap() error { return store.ErrNotFound }

// invasionWords says how a candidate's invasion test went.
func invasionWords(inv *store.Invasion) string {
	verdict := "resists"
	if !inv.Resists {
		verdict = "invaded"
	}
	if inv.Invader == "" {
		return verdict + ": no pool member gains by invading it"
	}
	return fmt.Sprintf("%s: its worst invader %.12s gains %+.2f per agent over its residents (%.2f)", verdict, inv.Invader, inv.Gain, inv.Residents)
}

func formatScores(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

// refusals sums candidates' refused attempts and failed seeds by kind:
// "invalid 3, self-play tampered 1", most frequent first.
func refusals(cs []store.Candidate) string {
	sum := map[string]int{}
	for _, c := range cs {
		for k, n := range c.Refusals {
			sum[k] += n
		}
	}
	kinds := slices.Collect(maps.Keys(sum))
	slices.SortFunc(kinds, func(a, b string) int {
		if d := sum[b] - sum[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, sum[k])
	}
	return strings.Join(parts, ", ")
}

// rechecks says, for each champion of its that was rechecked
// (JobConfig.Recheck), its efficiency over the evaluation and recheck
// seeds together, as the run ranked it: "3.5310 on seeds 0–24,
// rechecked". A champion not rechecked (a pool member crowned by its
// rating, a run without a recheck) has none.
func rechecks(s *store.Store, cfg evolve.JobConfig, its []store.Iteration) (map[string]string, error) {
	seeds := cfg.RecheckSeeds()
	if len(seeds) == 0 {
		return nil, nil
	}
	env, err := episode.ResolveEnv(cfg.Game, cfg.Map, cfg.Agents, cfg.Steps)
	if err != nil {
		return nil, nil // a map file moved since: the evaluation seeds' figures are shown alone
	}
	all := seedWords(slices.Concat(cfg.EvalSeeds, seeds))
	out := map[string]string{}
	err = s.View(func(tx *store.Tx) error {
		for _, it := range its {
			if _, done := out[it.Champion]; it.Champion == "" || done {
				continue
			}
			var evs []*store.Evaluation
			for _, on := range [][]uint64{cfg.EvalSeeds, seeds} {
				ev, err := tx.Evaluation(it.Champion, env.Config, on)
				if errors.Is(err, store.ErrNotFound) {
					break
				} else if err != nil {
					return err
				}
				evs = append(evs, ev)
			}
			if score, ok := store.PooledEfficiency(evs...); ok && len(evs) == 2 {
				out[it.Champion] = fmt.Sprintf("%.4f on seeds %s, rechecked", score, all)
			}
		}
		return nil
	})
	return out, err
}
