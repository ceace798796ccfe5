package evolve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"policyevolve/pool"
	"policyevolve/store"
)

// TestJobConfigObjective: a new run's objective defaults to welfare and is
// stored; one stored without it is elo; an unknown one does not validate.
func TestJobConfigObjective(t *testing.T) {
	c := JobConfig{Planners: []string{"grammar"}}.WithDefaults()
	if c.Objective != pool.Welfare {
		t.Fatalf("default objective %q", c.Objective)
	}
	for _, o := range []pool.Objective{pool.Welfare, pool.Elo} {
		c.Objective = o
		b, _ := json.Marshal(c)
		var back JobConfig
		if err := json.Unmarshal(b, &back); err != nil || back.Objective != o {
			t.Errorf("%s stored as %s, read back as %q (%v)", o, b, back.Objective, err)
		}
	}
	var old JobConfig
	if err := json.Unmarshal([]byte(`{"mode":"population","game":"cleanup"}`), &old); err != nil || old.Objective != pool.Elo {
		t.Errorf("a configuration without an objective reads as %q (%v)", old.Objective, err)
	}
	c.Objective = "kindness"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "want welfare, elo or robust") {
		t.Errorf("unknown objective: %v", err)
	}
}

// TestObjectives: a tiny population run under each objective promotes by
// the objective's rule, rates in the objective's own pool, and crowns the
// objective's champion; the iteration-done events name the objective, the
// champion and the iteration's best candidate.
func TestObjectives(t *testing.T) {
	for _, o := range pool.Objectives {
		t.Run(string(o), func(t *testing.T) {
			cfg := tinyConfig(ModePopulation)
			cfg.Objective, cfg.LocalRounds = o, Off[int]()
			j := newJob(t, cfg)
			var done []Event
			j.Events = ReporterFunc(func(e Event) {
				if e.Objective != o {
					t.Errorf("%s event under objective %q", e.Kind, e.Objective)
				}
				if e.Kind == EventIterationDone {
					done = append(done, e)
				}
			})
			run, err := j.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			wantPool := "global/gathering/small/4/100"
			if o != pool.Elo {
				wantPool += "@" + string(o)
			}
			if gp := j.arena.GlobalPool(); gp != wantPool {
				t.Errorf("pool %s, want %s", gp, wantPool)
			}
			var its []store.Iteration
			member, rating := map[string]bool{}, map[string]float64{}
			j.Store.View(func(tx *store.Tx) (err error) {
				if its, err = tx.Iterations(run.ID); err != nil {
					return err
				}
				ms, _ := tx.Members(wantPool)
				for _, m := range ms {
					member[m.Policy] = true
				}
				rs, err := tx.Ratings(wantPool)
				for _, r := range rs {
					rating[r.Policy] = r.Elo
				}
				return err
			})
			var settled []store.Candidate
			for k, it := range its {
				var best *store.Candidate
				for _, c := range it.Candidates {
					if c.Status != store.CandidatePromoted && c.Status != store.CandidateRejected {
						continue
					}
					settled = append(settled, c)
					// Promotion: a win rate above 0.6 in the objective's
					// games (one per opponent and seed: the evaluation
					// seeds, or elo's match seeds), and under robust the
					// invasion test.
					games := len(it.Plan[c.Sample].Opponents) * len(cfg.EvalSeeds)
					if o == pool.Elo {
						games = len(it.Plan[c.Sample].Opponents) // one match seed
					}
					resists := c.Invasion != nil && c.Invasion.Resists
					if (o == pool.Robust) != (c.Invasion != nil) {
						t.Errorf("candidate %.8s under %s: invasion test %+v", c.Policy, o, c.Invasion)
					}
					want := c.WinRate > 0.6 && (o != pool.Robust || resists)
					if c.Games != games || (c.Status == store.CandidatePromoted) != want {
						t.Errorf("candidate %.8s: %s with win rate %.2f over %d games (want %d), resists %v", c.Policy, c.Status, c.WinRate, c.Games, games, resists)
					}
					if best == nil || c.Metrics.Efficiency > best.Metrics.Efficiency {
						best = &c
					}
				}
				if o == pool.Welfare && best != nil && (done[k].BestCandidate == nil || done[k].BestCandidate.Metrics.Efficiency != best.Metrics.Efficiency) {
					t.Errorf("iteration %d: best candidate %+v, want efficiency %v", k, done[k].BestCandidate, best.Metrics.Efficiency)
				}
				if done[k].Champion != it.Champion || *done[k].ChampionMetrics != it.Best {
					t.Errorf("iteration %d: event's champion %.8s %+v, stored %.8s %+v", k, done[k].Champion, done[k].ChampionMetrics, it.Champion, it.Best)
				}
			}
			var champ *store.Candidate
			for i := range settled {
				if settled[i].Policy == run.Champion {
					champ = &settled[i]
				}
			}
			if champ == nil {
				t.Fatalf("the champion %.8s is none of the run's challenged candidates", run.Champion)
			}
			for _, c := range settled {
				switch o {
				case pool.Welfare:
					if c.Metrics.Efficiency > champ.Metrics.Efficiency {
						t.Errorf("champion %.8s (%.3f) below %.8s (%.3f) in self-play", champ.Policy, champ.Metrics.Efficiency, c.Policy, c.Metrics.Efficiency)
					}
				case pool.Elo:
					if member[c.Policy] && (!member[champ.Policy] || rating[c.Policy] > rating[champ.Policy]) {
						t.Errorf("champion %.8s (member %v, Elo %.0f) below member %.8s (Elo %.0f)", champ.Policy, member[champ.Policy], rating[champ.Policy], c.Policy, rating[c.Policy])
					}
				case pool.Robust:
					if c.Invasion.Resists && (!champ.Invasion.Resists || c.Metrics.Efficiency > champ.Metrics.Efficiency) {
						t.Errorf("champion %.8s (%+v, %.3f) below %.8s (%+v, %.3f)", champ.Policy, champ.Invasion, champ.Metrics.Efficiency, c.Policy, c.Invasion, c.Metrics.Efficiency)
					}
				}
			}
			t.Logf("%s: champion %.8s efficiency %.3f, %d settled candidates, pool %d", o, champ.Policy, champ.Metrics.Efficiency, len(settled), len(member))
		})
	}
}
