package evolve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"policyevolve/evolve/planner"
	"policyevolve/llm"
	"policyevolve/store"
)

// errPlannerDown is the failure the failing planner reports.
var errPlannerDown = errors.New("planner down (test)")

// failingPlanner writes a fresh valid policy on every call except its
// operation fail, which returns errPlannerDown. Failing OpFix makes every
// other operation answer without a policy, so that the fix loop calls Fix.
// It implements GuidedPlanner for GEPA ("reflect" fails its Reflect).
type failingPlanner struct {
	fail string
	mu   *sync.Mutex
	n    *int            // policies written so far: each one different
	ops  map[string]bool // the operations called
}

func newFailingPlanner(fail string) *failingPlanner {
	return &failingPlanner{fail: fail, mu: &sync.Mutex{}, n: new(int), ops: map[string]bool{}}
}

func (p *failingPlanner) Name() string { return "failing" }

func (p *failingPlanner) answer(op string) (*planner.Proposal, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ops[op] = true
	if op == p.fail {
		return nil, fmt.Errorf("%s: %w", op, errPlannerDown)
	}
	if p.fail == planner.OpFix && op != planner.OpFix {
		return &planner.Proposal{Problem: planner.ErrNoPolicy, Origin: store.Origin{Planner: p.Name(), Operator: op}}, nil
	}
	*p.n++
	src := fmt.Sprintf("package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif v.Step() == %d {\n\t\treturn ssd.Stand\n\t}\n\treturn v.GreedyAction(agent)\n}\n", *p.n)
	return &planner.Proposal{Source: []byte(src), Origin: store.Origin{Planner: p.Name(), Operator: op}}, nil
}

func (p *failingPlanner) Init(context.Context, planner.InitRequest) (*planner.Proposal, error) {
	return p.answer(planner.OpInit)
}
func (p *failingPlanner) Improve(context.Context, planner.ImproveRequest) (*planner.Proposal, error) {
	return p.answer(planner.OpImprove)
}
func (p *failingPlanner) Crossover(context.Context, planner.CrossoverRequest) (*planner.Proposal, error) {
	return p.answer(planner.OpCrossover)
}
func (p *failingPlanner) Fix(context.Context, planner.FixRequest) (*planner.Proposal, error) {
	return p.answer(planner.OpFix)
}
func (p *failingPlanner) Guide(string) (planner.Planner, error) { return p, nil }
func (p *failingPlanner) Reflect(_ context.Context, req planner.ReflectRequest) (*planner.Reflection, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ops["reflect"] = true
	if p.fail == "reflect" {
		return nil, fmt.Errorf("reflect: %w", errPlannerDown)
	}
	return &planner.Reflection{Guidance: fmt.Sprintf("guidance %d", req.Iteration)}, nil
}

// TestPlannerErrorsStopTheRun is the rule of docs/evolution.md ("Planner
// errors"), for every mode and every operation the mode calls: a
// planner's error (a failure of the system, not an unusable answer) stops
// the run with that error, and the run is stored failed with it. GEPA
// writes every candidate with Init under guidance, so it never calls
// Improve or Crossover (a chain never crosses): those pairs are not run.
func TestPlannerErrorsStopTheRun(t *testing.T) {
	uses := map[string][]string{
		ModeChain:      {planner.OpInit, planner.OpImprove, planner.OpFix},
		ModePopulation: {planner.OpInit, planner.OpImprove, planner.OpCrossover, planner.OpFix},
		ModeGEPA:       {planner.OpInit, "reflect", planner.OpFix},
	}
	for _, mode := range []string{ModeChain, ModePopulation, ModeGEPA} {
		for _, op := range uses[mode] {
			t.Run(mode+"/"+op, func(t *testing.T) {
				cfg := tinyConfig(mode)
				cfg.Iterations, cfg.Candidates, cfg.Steps = 1, 1, 50
				if mode == ModeGEPA {
					cfg.Iterations = 2 // iteration 1 reflects
				}
				if mode == ModePopulation && op == planner.OpCrossover {
					// Iteration 0 inits; iteration 1 crosses its two.
					cfg.Iterations, cfg.Candidates, cfg.CrossoverRate = 2, 2, On(1.0)
				}
				if mode == ModePopulation && op == planner.OpImprove {
					cfg.CrossoverRate = Off[float64]()
				}
				p := newFailingPlanner(op)
				j := newJobAt(t, filepath.Join(t.TempDir(), "job.db"), cfg)
				j.Config.Planners = []string{p.Name()}
				j.Planner = func(string, string, llm.Gate) (planner.Planner, error) { return p, nil }
				run, err := j.Run(context.Background())
				if !p.ops[op] {
					t.Fatalf("the run never called %s (calls: %v; run error %v)", op, p.ops, err)
				}
				if !errors.Is(err, errPlannerDown) {
					t.Fatalf("Run returned %v, want the planner's error", err)
				}
				if run == nil || run.Status != store.StatusFailed || !strings.Contains(run.Error, errPlannerDown.Error()) {
					t.Fatalf("run stored as %+v, want failed with the planner's error", run)
				}
				var stored *store.Run
				if err := j.Store.View(func(tx *store.Tx) (err error) {
					stored, err = tx.Run(run.ID)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if stored.Status != store.StatusFailed || !strings.Contains(stored.Error, errPlannerDown.Error()) {
					t.Fatalf("store has %s %q, want failed with the planner's error", stored.Status, stored.Error)
				}
			})
		}
	}
}
