package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"policyevolve/critic"
	"policyevolve/evolve"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/planner"
	"policyevolve/store"
)

type proposeOptions struct {
	storeOptions
	envOptions
	sandboxOptions
	llmOptions
	from        string
	feedback    string
	style       string
	adversarial bool
	sample      int
	seeds       string
	asJSON      bool
}

func cmdPropose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o proposeOptions
	fs := newFlagSet("propose", "--llm PROVIDER:MODEL [--from ID] [flags]", `
Ask a model for one policy: from scratch (the paper's iteration 0), or an
improved version of a stored policy (--from) shown with its scores at the
--feedback level. The answer is checked like every candidate (a policy in
it, validation, compilation, the 50-step smoke test, the determinism probe);
a failure goes back to the model with the error, up to 3 attempts in all.
The accepted policy is stored with its origin, evaluated in self-play, and
its id and source are printed.

Every call is recorded in the store before its answer is used. Repeating
the same proposal (same model, settings, prompt and --sample) answers it
from the store without a call; pass another --sample for a fresh draw.`, stdout)
	o.storeOptions.register(fs)
	o.envOptions.register(fs)
	o.sandboxOptions.register(fs)
	o.llmOptions.register(fs)
	fs.StringVar(&o.from, "from", "", "id (or unique prefix) of the stored policy to improve")
	fs.StringVar(&o.feedback, "feedback", "dense", "what the model is shown of --from: sparse (reward), dense (+ social metrics), critic (+ reflections) or raw (+ a trajectory excerpt)")
	promptStyleFlag(fs, &o.style)
	fs.BoolVar(&o.adversarial, "adversarial", false, "tell the model it may do anything to maximise the reward (the paper's adaptive attacker)")
	fs.IntVar(&o.sample, "sample", 0, "which draw from the same prompt: another number asks again")
	fs.StringVar(&o.seeds, "seeds", "0-4", "self-play evaluation seeds")
	fs.BoolVar(&o.asJSON, "json", false, "machine-readable output")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	return runPropose(ctx, o, stdout, stderr)
}

type proposeReport struct {
	ID         string            `json:"id,omitempty"`
	New        bool              `json:"new"`
	Origin     store.Origin      `json:"origin"`
	Attempts   []string          `json:"attempts"` // "ok" or the problem of each attempt
	Usage      planner.Usage     `json:"usage"`
	Evaluation *store.Evaluation `json:"evaluation,omitempty"`
	Source     string            `json:"source,omitempty"`
	Notes      string            `json:"notes,omitempty"`
}

func runPropose(ctx context.Context, o proposeOptions, stdout, stderr io.Writer) error {
	fb, err := planner.ParseFeedback(o.feedback)
	if err != nil {
		return usagef("--feedback: %v", err)
	}
	if err := o.check(); err != nil {
		return err
	}
	ps, err := o.promptSet()
	if err != nil {
		return err
	}
	ar, err := openArena(&o.storeOptions, createStore, &o.envOptions, &o.sandboxOptions, o.seeds, "0", stderr)
	if err != nil {
		return err
	}
	defer ar.Close()
	client, err := o.client(&planner.LLMRecorder{Store: ar.Store}, nil)
	if err != nil {
		return err
	}
	pl := &planner.LLMPlanner{Client: client, Prompts: ps, Style: o.style, Adversarial: o.adversarial}
	loop := &planner.FixLoop{Planner: pl, Sandbox: ar.Sandbox, Store: ar.Store,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, "propose: "+format+"\n", args...) }}
	task := planner.Task{Env: ar.Env, Sample: o.sample, Feedback: fb,
		Try: evolve.TryFunc(ar, fb)}
	var out *planner.Outcome
	if o.from == "" {
		out, err = loop.Init(ctx, planner.InitRequest{Task: task})
	} else {
		var req planner.ImproveRequest
		req, err = improveRequest(ctx, ar, task, o.from)
		if err == nil && fb == planner.Critic {
			// The analytic critic's reflections on the parent's
			// self-play (stored with it, reused next time).
			req.Reflections, req.Diagnostics, err = ar.Reflect(ctx, req.Parent.Policy.ID, critic.Analytic{}, "", 0)
		}
		if err == nil && fb == planner.Raw {
			req.Excerpt, err = ar.Excerpt(ctx, req.Parent.Policy.ID)
		}
		if err == nil {
			out, err = loop.Improve(ctx, req)
		}
	}
	if err != nil {
		return err
	}
	rep := proposeReport{Usage: out.Usage}
	for _, a := range out.Attempts {
		if a.Problem == nil {
			rep.Attempts = append(rep.Attempts, "ok")
		} else {
			rep.Attempts = append(rep.Attempts, oneLine(a.Problem.Error(), 300))
		}
	}
	if out.Policy != nil {
		rep.ID, rep.New, rep.Origin, rep.Source = out.Policy.ID, out.New, out.Policy.Origin, out.Policy.Source
		rep.Notes = out.Attempts[len(out.Attempts)-1].Proposal.Notes
		if rep.Evaluation, err = ar.Evaluate(ctx, out.Policy.ID); err != nil {
			return err
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printProposal(stdout, rep)
	}
	if out.Policy == nil {
		return fmt.Errorf("no valid policy after %d attempts: %v", len(out.Attempts), oneLine(out.Problem().Error(), 300))
	}
	return nil
}

func printProposal(w io.Writer, r proposeReport) {
	for i, a := range r.Attempts {
		fmt.Fprintf(w, "attempt %d: %s\n", i+1, a)
	}
	u := r.Usage
	fmt.Fprintf(w, "usage: %d call(s), %d tokens in, %d out", u.LLMCalls, u.InputTokens, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		fmt.Fprintf(w, " (%d reasoning)", u.ReasoningTokens)
	}
	fmt.Fprintf(w, ", cost $%.4f\n", u.Cost)
	if r.ID == "" {
		return
	}
	state := "stored"
	if !r.New {
		state = "already in the store"
	}
	fmt.Fprintf(w, "policy %s (%s), %s by %s", r.ID, state, r.Origin.Operator, r.Origin.Planner)
	if len(r.Origin.Parents) > 0 {
		fmt.Fprintf(w, " from %.12s", strings.Join(r.Origin.Parents, ", "))
	}
	fmt.Fprintf(w, ", %s\n", r.Origin.Prompt)
	if e := r.Evaluation; e != nil {
		fmt.Fprintf(w, "self-play on seeds %v: %s, efficiency %.4f, equality %.4f, sustainability %.2f, peace %.3f\n",
			e.Seeds, e.Status, e.Mean.Efficiency, e.Mean.Equality, e.Mean.Sustainability, e.Mean.Peace)
		if e.Error != "" {
			fmt.Fprintf(w, "  %s\n", e.Error)
		}
	}
	fmt.Fprintf(w, "\n%s", r.Source)
}

// improveRequest shows the model the parent with its self-play evaluation
// (played now if the store has none), its rating in the global pool when
// it is a member, and its stored ancestors (first parents) as history.
func improveRequest(ctx context.Context, a *arena.Arena, task planner.Task, prefix string) (planner.ImproveRequest, error) {
	req := planner.ImproveRequest{Task: task}
	var chain []store.Policy
	err := a.Store.View(func(tx *store.Tx) error {
		p, err := findPolicy(tx, prefix)
		if err != nil {
			return err
		}
		chain = append(chain, *p)
		for len(chain) < 10 && len(p.Origin.Parents) > 0 {
			if p, err = tx.Policy(p.Origin.Parents[0]); err != nil {
				break
			}
			chain = append(chain, *p)
		}
		return nil
	})
	if err != nil {
		return req, err
	}
	if chain[0].Builtin != "" {
		return req, usagef("--from %s: %s is a built-in policy, not source; export an example instead", prefix, chain[0].Name)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		s := planner.Scored{Policy: p}
		if i == 0 {
			if s.Eval, err = a.Evaluate(ctx, p.ID); err != nil {
				return req, err
			}
		} else {
			_ = a.Store.View(func(tx *store.Tx) error {
				s.Eval, _ = tx.Evaluation(p.ID, a.Env.Config, a.EvalSeeds)
				return nil
			})
		}
		_ = a.Store.View(func(tx *store.Tx) error {
			if r, err := tx.Rating(a.GlobalPool(), p.ID); err == nil {
				s.Elo, s.Rated = r.Elo, true
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			return nil
		})
		if p.Builtin == "" {
			req.History = append(req.History, s)
		}
		if i == 0 {
			req.Parent = s
		}
	}
	return req, nil
}
