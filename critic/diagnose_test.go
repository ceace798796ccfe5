package critic_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/elo"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// play records one episode of env in which agent i plays policies[side[i]].
func play(t *testing.T, env *envs.Env, seed uint64, side []int, policies ...envs.PolicyFactory) *envs.Trajectory {
	t.Helper()
	seats := make([]envs.Seat, len(policies))
	for s, f := range policies {
		seats[s].Actor = &envs.PolicyActor{New: f}
	}
	for i, s := range side {
		seats[s].Agents = append(seats[s].Agents, i)
	}
	res, err := envs.Run(context.Background(), env, seats, envs.Options{Seed: seed, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Trajectory
}

func builtin(t *testing.T, name string) envs.PolicyFactory {
	t.Helper()
	f, err := envs.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func fixed(p ssd.Policy) envs.PolicyFactory {
	return func(envs.EpisodeInfo) ssd.Policy { return p }
}

func newEnv(t *testing.T, game ssd.Game, mapText string, agents, steps int) *envs.Env {
	t.Helper()
	m, err := envs.ParseMap(game, "test", mapText)
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: agents, MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func paperEnv(t *testing.T, game ssd.Game, agents int) *envs.Env {
	t.Helper()
	m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
	if err != nil {
		t.Fatal(err)
	}
	env, err := envs.New(envs.Config{Map: m, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func diagnose(t *testing.T, eps ...critic.Episode) *critic.Diagnostics {
	t.Helper()
	d, err := critic.Diagnose(eps, critic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDiagnoseBehaviour checks the behaviour measures on tiny maps where
// the answer can be worked out by hand.
func TestDiagnoseBehaviour(t *testing.T) {
	east, west := func(v *ssd.View, i int) int { return ssd.DirectionToAction(0, 1, v.Orientation(i)) },
		func(v *ssd.View, i int) int { return ssd.DirectionToAction(0, -1, v.Orientation(i)) }
	shuttle := func(v *ssd.View, i int) int {
		if v.Step()%2 == 0 {
			return east(v, i)
		}
		return west(v, i)
	}
	stand := func(*ssd.View, int) int { return ssd.Stand }
	greedy := (*ssd.View).GreedyAction
	for _, c := range []struct {
		name   string
		mapTxt string
		agents int
		steps  int
		policy ssd.Policy
		check  func(d *critic.Diagnostics) string
	}{
		{"a shuttle undoes every move but the first", "@@@@@@@\n@A.P..@\n@@@@@@@", 1, 10, shuttle, func(d *critic.Diagnostics) string {
			if d.Oscillation != 0.9 || d.Idle != 0 || d.ActiveSteps != 10 {
				return "oscillation/idle/active"
			}
			return ""
		}},
		{"standing by an apple is idle", "@@@@@@@\n@A.P..@\n@@@@@@@", 1, 10, stand, func(d *critic.Diagnostics) string {
			if d.Idle != 1 || d.IdleWithApples != 10 || d.Actions["stand"] != 1 || d.Oscillation != 0 || d.Apples != 0 {
				return "idle"
			}
			if d.Rate != 0 || d.Supply <= 0 {
				return "rate/supply"
			}
			return ""
		}},
		{"two agents race for one apple; the lower id wins it", "@@@@@@@\n@P.A.P@\n@@@@@@@", 2, 2, greedy, func(d *critic.Diagnostics) string {
			// Both head for the apple on both steps: one contested apple
			// per step; agent 1 chased it for 2 steps in vain.
			if d.Contest.Share != 1 || d.Contest.Apples != 1 || d.Contest.Wasted != 1 {
				return "contest"
			}
			if !slices.Equal(d.Starving, []int{1}) || d.PerAgent[0].Apples != 1 || d.Equality != 0.5 {
				return "starving"
			}
			return ""
		}},
		{"the far apple is never harvested", "@@@@@@@@@@@\n@A.P.....A@\n@@@@@@@@@@@", 1, 4, greedy, func(d *critic.Diagnostics) string {
			if d.Coverage.Never != 1 || d.Coverage.Spawns != 2 || d.Coverage.Map[1] != "@9       .@" {
				return "coverage"
			}
			return ""
		}},
		{"a respawned apple left behind", "@@@@@@@@@@@\n@A.P.....A@\n@@@@@@@@@@@", 1, 30, greedy, func(d *critic.Diagnostics) string {
			if d.Coverage.Never != 0 || d.Coverage.Respawned != 1 || d.Coverage.Uncollected != 1 || d.Apples != 2 {
				return "respawn"
			}
			return ""
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t, ssd.Gathering, c.mapTxt, c.agents, c.steps)
			d := diagnose(t, critic.Episode{Trajectory: play(t, env, 0, make([]int, c.agents), fixed(c.policy))})
			if what := c.check(d); what != "" {
				t.Errorf("%s: %+v", what, d)
			}
		})
	}
}

// TestDiagnoseMatch: against an opponent, the scores are the match's and
// the tags between the sides are counted from each side's view.
func TestDiagnoseMatch(t *testing.T) {
	env := paperEnv(t, ssd.Gathering, 6)
	exploit, bfs := builtin(t, "exploit"), builtin(t, "bfs")
	var asExploit, asBFS []critic.Episode
	var sums [2]float64 // exploit, bfs
	tagsBy := [2]int{}  // tags made by exploit's agents on bfs's, and the other way
	for _, swapped := range []bool{false, true} {
		side := elo.Sides(6, swapped) // 0: exploit, 1: bfs
		tr := play(t, env, 3, side, exploit, bfs)
		var mine, theirs []int
		for i, s := range side {
			if s == 0 {
				mine = append(mine, i)
			} else {
				theirs = append(theirs, i)
			}
		}
		asExploit = append(asExploit, critic.Episode{Trajectory: tr, Mine: mine, Opponent: "bfs"})
		asBFS = append(asBFS, critic.Episode{Trajectory: tr, Mine: theirs, Opponent: "exploit"})
		o := recount(t, nil, tr)
		for i := range 6 {
			for j := range 6 {
				if side[i] != side[j] {
					tagsBy[side[i]] += o.tagsBy[i][j]
				}
			}
		}
		for k := range tr.Steps {
			for i, r := range tr.Steps[k].Rewards {
				sums[side[i]] += r
			}
		}
	}
	dx, db := diagnose(t, asExploit...), diagnose(t, asBFS...)
	if len(dx.Opponents) != 1 || len(db.Opponents) != 1 {
		t.Fatalf("opponents %+v / %+v", dx.Opponents, db.Opponents)
	}
	ox, ob := dx.Opponents[0], db.Opponents[0]
	scoreX, scoreB := sums[0]/6, sums[1]/6 // 3 agents a side, 2 episodes
	if ox.Name != "bfs" || ox.Episodes != 2 || math.Abs(ox.Mine-scoreX) > 1e-9 || math.Abs(ox.Theirs-scoreB) > 1e-9 {
		t.Errorf("exploit's view %+v; scores %v vs %v", ox, scoreX, scoreB)
	}
	if ob.Mine != ox.Theirs || ob.Theirs != ox.Mine || ob.Margin != -ox.Margin || ox.Seats != 0.5 {
		t.Errorf("the two views disagree: %+v / %+v", ox, ob)
	}
	if ox.TagsDealt != float64(tagsBy[0])/2 || ox.TagsSuffered != float64(tagsBy[1])/2 || ob.TagsSuffered != ox.TagsDealt {
		t.Errorf("tags: exploit's view %+v, bfs's %+v; oracle %v", ox, ob, tagsBy)
	}
	if tagsBy[0] == 0 {
		t.Fatal("exploit tagged nobody: the test needs tags")
	}
	if ob.Beaten != (elo.Outcome(scoreX, scoreB) == elo.Win) || ox.Beaten != (elo.Outcome(scoreB, scoreX) == elo.Win) {
		t.Errorf("beaten: %v / %v for scores %v vs %v", ox.Beaten, ob.Beaten, scoreX, scoreB)
	}
	if want := ob.Margin > 0 && ob.TagsSuffered > ob.TagsDealt; ob.Exploited != want {
		t.Errorf("bfs exploited = %v, want %v (%+v)", ob.Exploited, want, ob)
	}
	// Each agent id played exploit in one of the two episodes.
	if len(dx.PerAgent) != 6 || dx.PerAgent[0].Episodes != 1 || dx.Mine != 3 {
		t.Errorf("per agent %+v, mine %v", dx.PerAgent, dx.Mine)
	}
	// In this match the exploiter tags its own side as much as bfs's and
	// loses: the critic must say so, with the margin as the stake.
	if !ox.Beaten {
		t.Fatalf("exploit was not beaten by bfs (%+v); the test expects it to be", ox)
	}
	refl := critic.Analytic{}.Reflect(dx)
	if !slices.ContainsFunc(refl, func(r critic.Reflection) bool {
		return r.Code == "beaten-by" && strings.Contains(r.Text, "Lost to bfs") && math.Abs(r.Stake-ox.Margin) < 1e-3
	}) {
		t.Errorf("exploit lost to bfs but no reflection says so: %+v", refl)
	}
}

func TestDiagnoseBadInput(t *testing.T) {
	env := newEnv(t, ssd.Gathering, "@@@@@\n@PAP@\n@@@@@", 2, 5)
	tr := play(t, env, 0, []int{0, 0}, builtin(t, "bfs"))
	other := play(t, newEnv(t, ssd.Gathering, "@@@@@\n@PPA@\n@@@@@", 2, 5), 0, []int{0, 0}, builtin(t, "bfs"))
	for _, c := range []struct {
		name string
		eps  []critic.Episode
		want string
	}{
		{"no episodes", nil, "no episodes"},
		{"no trajectory", []critic.Episode{{}}, "no trajectory"},
		{"agent out of range", []critic.Episode{{Trajectory: tr, Mine: []int{2}}}, "agent 2 of 2"},
		{"agent twice", []critic.Episode{{Trajectory: tr, Mine: []int{1, 1}}}, "twice"},
		{"no agent", []critic.Episode{{Trajectory: tr, Mine: []int{}}}, "no agent"},
		{"two maps", []critic.Episode{{Trajectory: tr}, {Trajectory: other}}, "episode 1"},
	} {
		if _, err := critic.Diagnose(c.eps, critic.Config{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestDiagnoseExploited: a policy is exploited when the opponent does
// better by tagging it, or (Cleanup) by harvesting while it cleans.
func TestDiagnoseExploited(t *testing.T) {
	stand := fixed(func(*ssd.View, int) int { return ssd.Stand })
	clean := fixed(func(*ssd.View, int) int { return ssd.Clean })
	for _, c := range []struct {
		name       string
		game       ssd.Game
		mine, them envs.PolicyFactory
		opponent   string
		check      func(o critic.Opponent) bool
	}{
		{"tagged while standing", ssd.Gathering, stand, builtin(t, "exploit"), "exploit",
			func(o critic.Opponent) bool { return o.TagsSuffered > 0 && o.TagsDealt == 0 }},
		{"cleaning for a free rider", ssd.Cleanup, clean, builtin(t, "bfs"), "bfs",
			func(o critic.Opponent) bool { return o.CleanShare == 1 && o.AppleShare == 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := paperEnv(t, c.game, 6)
			side := elo.Sides(6, false)
			tr := play(t, env, 1, side, c.mine, c.them)
			d := diagnose(t, critic.Episode{Trajectory: tr, Mine: []int{0, 2, 4}, Opponent: c.opponent})
			o := d.Opponents[0]
			if !o.Exploited || !o.Beaten || o.Margin <= 0 || !c.check(o) {
				t.Fatalf("opponent %+v", o)
			}
			refl := critic.Analytic{}.Reflect(d)
			if !slices.ContainsFunc(refl, func(r critic.Reflection) bool {
				return r.Code == "exploited" && r.Stake == math.Round(o.Margin*1000)/1000
			}) {
				t.Errorf("no exploited reflection with the margin as stake: %+v", refl)
			}
		})
	}
}
