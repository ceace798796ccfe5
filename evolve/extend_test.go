package evolve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestExtendedRunMatchesScratch: a finished run carried further on
// resume (Job.Extend) ends with the same champion, pool and candidates as
// a run given the larger budget from the start, and records the
// extension; a lowered budget is refused.
func TestExtendedRunMatchesScratch(t *testing.T) {
	for _, mode := range []string{ModePopulation, ModeChain} {
		t.Run(mode, func(t *testing.T) {
			cfg := tinyConfig(mode)
			// Short episodes, a recheck on 2 seeds (not the default 20):
			// the champion is still rechecked at the end of the short run.
			cfg.Iterations, cfg.Steps, cfg.Recheck, cfg.LocalRounds = 2, 60, On(2), Off[int]()
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

// TestExtend: which budgets a resume raises, lifts or refuses to lower.
func TestExtend(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	base := JobConfig{Iterations: 3, MaxPlannerCalls: 10, MaxTime: time.Hour}
	for _, tc := range []struct {
		name   string
		b      Budgets
		want   []string // flag from→to
		shrunk bool
	}{
		{"nothing asked", Budgets{}, nil, false},
		{"the same", Budgets{Iterations: 3, MaxPlannerCalls: 10, MaxTime: time.Hour}, nil, false},
		{"raised", Budgets{Iterations: 6, MaxPlannerCalls: 20, MaxTime: 2 * time.Hour},
			[]string{"iterations 3→6", "max-planner-calls 10→20", "time 1h0m0s→2h0m0s"}, false},
		{"lifted", Budgets{MaxPlannerCalls: NoLimit, MaxTime: NoLimit}, []string{"max-planner-calls 10→none", "time 1h0m0s→none"}, false},
		{"a cost budget where there was none", Budgets{MaxCost: 1}, nil, true},
		{"fewer iterations", Budgets{Iterations: 2}, nil, true},
		{"less time", Budgets{MaxTime: time.Minute}, nil, true},
	} {
		cfg := base
		exts, err := extend(&cfg, tc.b, 4, now)
		if errors.Is(err, ErrBudgetShrunk) != tc.shrunk || (err != nil && !tc.shrunk) {
			t.Errorf("%s: error %v, want shrunk %v", tc.name, err, tc.shrunk)
			continue
		}
		var got []string
		for _, e := range exts {
			got = append(got, e.Flag+" "+e.From+"→"+e.To)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: extensions %v, want %v", tc.name, got, tc.want)
		}
		if len(cfg.Extended) != len(tc.want) {
			t.Errorf("%s: recorded %d extensions, want %d", tc.name, len(cfg.Extended), len(tc.want))
		}
	}
}
