package planner

import (
	"context"
	"fmt"
	"strings"

	"policyevolve/envs/ssd"
	"policyevolve/evolve/grammar"
)

var _ GuidedPlanner = (*GrammarPlanner)(nil)

// guidedGrammar is the grammar planner under a GEPA candidate's guidance.
// The grammar cannot read prose: its guidance is a grammar.Guidance, a
// prior over the module kinds and the way parameters lean.
type guidedGrammar struct {
	*GrammarPlanner
	guidance string
}

// Guide returns the grammar planner writing under g, the text form of a
// grammar.Guidance ("" is the uniform prior): Init then runs a search of
// Improve's size whose first population is drawn from the prior and whose
// mutations lean its way. Prose that is not such guidance is refused.
func (p *GrammarPlanner) Guide(g string) (Planner, error) {
	// This checks the form: guidance either game reads (Cleanup's
	// families include Gathering's, and Gathering has the cycle harvest);
	// Init checks it against the task's game.
	if _, err := grammar.ParseGuidance(g, ssd.Cleanup); err != nil {
		if _, err2 := grammar.ParseGuidance(g, ssd.Gathering); err2 != nil {
			return nil, fmt.Errorf("grammar planner: %w", err)
		}
	}
	return &guidedGrammar{GrammarPlanner: p, guidance: g}, nil
}

// Init searches under the guidance and proposes the best genome it met.
func (q *guidedGrammar) Init(ctx context.Context, req InitRequest) (*Proposal, error) {
	gt, err := q.task(req.Task)
	if err != nil {
		return nil, err
	}
	g, err := grammar.ParseGuidance(q.guidance, gt.game)
	if err != nil {
		return nil, fmt.Errorf("grammar planner: %w", err)
	}
	rng, seed := rngFor(req.Task, OpInit, "guided")
	n := q.PopSize
	if n <= 0 {
		n = grammar.DefaultPopSize
	}
	starts := make([]grammar.Genome, n)
	for i := range starts {
		starts[i] = grammar.RandomGuided(gt.game, gt.space, g, rng)
	}
	best, err := q.search(ctx, req.Task, gt, seed, starts, g.Bias())
	if err != nil {
		return nil, err
	}
	prior := "the uniform prior (no guidance)"
	if !g.Empty() {
		prior = "the guidance " + strings.ReplaceAll(g.String(), "\n", "; ")
	}
	return q.propose(best.Genome, OpInit, nil, "searched from "+prior,
		fmt.Sprintf("efficiency %.3f in process on training seeds %v (%d genomes scored)", best.Score, gt.ev.Seeds, gt.ev.Played()))
}

// Reflect writes the next guidance. The grammar planner cannot reason
// about a score: at the critic level it lays over the parent's guidance
// what the critic's diagnostics point to (grammar.BiasFrom), when they
// point anywhere new; otherwise — always at the sparse and dense levels —
// it changes the parent's guidance at random (grammar.Guidance.Perturb),
// so that GEPA with the offline planner is a random search over priors,
// selected by GEPA's front and acceptance test. Its Notes say which.
func (p *GrammarPlanner) Reflect(ctx context.Context, req ReflectRequest) (*Reflection, error) {
	game, err := gameOf(req.Task)
	if err != nil {
		return nil, fmt.Errorf("grammar planner: %w", err)
	}
	parent, err := grammar.ParseGuidance(req.Guidance, game)
	if err != nil {
		return nil, fmt.Errorf("grammar planner: parent guidance: %w", err)
	}
	if req.Feedback == Critic {
		if over := grammar.GuidanceFrom(grammar.BiasFrom(req.Diagnostics), game); over != nil {
			if next := parent.Merge(over); next.String() != parent.String() && !next.Empty() {
				return &Reflection{Guidance: next.String(),
					Notes: "the critic's diagnostics point this way: " + strings.Join(over.Notes, "; ")}, nil
			}
		}
	}
	rng, _ := rngFor(req.Task, OpReflect, req.Policy.Policy.ID)
	for {
		next, what := parent.Perturb(game, rng)
		if next.Empty() {
			continue // the uniform prior is the seed candidate's
		}
		return &Reflection{Guidance: next.String(),
			Notes: "the offline reflector cannot reason about scores; it changed the guidance at random: " + what}, nil
	}
}
