package evolve

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestExtendedRunMatchesScratch: a finished run carried further on
// resume (Job.Extend) ends with the same champion, pool and candidates as
// a run given the larger budget from the start, and records the
// extension; a lowered budget is refused.
func TestExtendedRunMatchesScratch(t *testing.T) {
	for _, mode := range []string{ModePopulation, ModeChain} {
		t.Run(mode, func(t *testing.T) {
			cfg := tinyConfig(mode)
			cfg.Iterations = 2
			ref := newJob(t, cfg)
			refRun, err := ref.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := jobOutcome(t, ref, refRun)

			short := cfg
			short.Iterations = 1
			path := filepath.Join(t.TempDir(), "extended.db")
			j := newJobAt(t, path, short)
			first, err := j.Run(context.Background())
			if err != nil || first.Iterations != short.TotalIterations() {
				t.Fatalf("the short run: %+v %v", first, err)
			}
			again := newJobAt(t, path, JobConfig{})
			again.RunID = first.ID
			if _, err := again.Run(context.Background()); !errors.Is(err, ErrRunDone) {
				t.Fatalf("resume without a new budget: %v, want ErrRunDone", err)
			}
			lower := newJobAt(t, path, JobConfig{})
			lower.RunID, lower.Extend = first.ID, Budgets{MaxPlannerCalls: 1}
			lower.Extend.Iterations = 2
			if _, err := lower.Run(context.Background()); !errors.Is(err, ErrBudgetShrunk) {
				t.Fatalf("a planner-call budget set where there was none: %v, want ErrBudgetShrunk", err)
			}
			ext := newJobAt(t, path, JobConfig{})
			ext.RunID, ext.Extend = first.ID, Budgets{Iterations: 2}
			run, err := ext.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := jobOutcome(t, ext, run); got != want {
				t.Errorf("extended from 1 to 2 iterations:\n%s\nfrom scratch with 2:\n%s", got, want)
			}
			if e := ext.Config.Extended; len(e) != 1 || e[0].Flag != "iterations" || e[0].From != "1" || e[0].To != "2" || e[0].Done != short.TotalIterations() {
				t.Errorf("recorded extensions %+v", e)
			}
		})
	}
}
