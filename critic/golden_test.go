package critic_test

import (
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/internal/golden"
)

// goldenTrajectory builds the trajectory of a reference trace from the
// trace's own recorded states (not from a replay through envs).
func goldenTrajectory(t *testing.T, ep *golden.Episode) *envs.Trajectory {
	t.Helper()
	h := ep.Header
	m, err := envs.ParseMap(ep.Game(), h.Map, h.ASCIIMap)
	if err != nil {
		t.Fatalf("%s: %v", ep.Name, err)
	}
	p := ep.Params()
	env, err := envs.New(envs.Config{Map: m, Agents: h.NAgents, MaxSteps: h.MaxSteps, Params: &p})
	if err != nil {
		t.Fatalf("%s: %v", ep.Name, err)
	}
	lay := env.Layout()
	tr := &envs.Trajectory{Layout: lay, Seed: h.Seed}
	tr.Reset = ssd.State{
		Layout:     lay,
		Pos:        cells(ep.Reset.Pos),
		Orient:     ep.Reset.Orient,
		Timeout:    make([]int, h.NAgents),
		Hits:       make([]int, h.NAgents),
		AppleAlive: make([]bool, len(lay.Apples)),
		Waste:      append([]bool(nil), m.Dirty...),
	}
	for k := range tr.Reset.AppleAlive {
		tr.Reset.AppleAlive[k] = true
	}
	for _, s := range ep.Steps {
		st := ssd.State{
			Layout:     lay,
			Step:       s.T,
			Pos:        cells(s.Pos),
			Orient:     s.Orient,
			Timeout:    s.Timeout,
			Hits:       s.Hits,
			AppleAlive: bits(t, s.Apples, len(lay.Apples)),
			Waste:      make([]bool, len(lay.River)),
		}
		if s.Waste != nil {
			st.Waste = bits(t, *s.Waste, len(lay.River))
		}
		tr.Steps = append(tr.Steps, envs.StepRecord{Actions: s.Actions, Rewards: s.Rewards, State: st})
	}
	return tr
}

func cells(pairs [][2]int) []ssd.Pos {
	out := make([]ssd.Pos, len(pairs))
	for i, p := range pairs {
		out[i] = ssd.Pos{R: p[0], C: p[1]}
	}
	return out
}

// bits decodes the traces' hex bitmaps (bit i = flag i).
func bits(t *testing.T, hex string, n int) []bool {
	var x big.Int
	if _, ok := x.SetString(hex, 16); !ok {
		t.Fatalf("bad bitmap %q", hex)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = x.Bit(i) == 1
	}
	return out
}

// oracle recounts, straight from a trace's fields and the rules of its
// README, what the critic derives: its own beam geometry, written out per
// orientation, and nothing from critic or ssd but the action numbers.
type oracle struct {
	fired, cleans, hits, tags int     // totals over agents and steps
	tagsBy                    [][]int // [shooter][target]
	hitsSuffered, tagsJumped  int     // from the counters alone
	taggedOut                 int     // agent-steps with timeout > 0 after the step
	removed, regrowth         int
	minDensity, densitySum    float64
	atThreshold, steps        int
	apples                    float64
}

// inBeam reports whether a beam fired from `from` facing orient covers
// cell q: 1..length cells straight ahead, at most halfW cells to a side.
func inBeam(from ssd.Pos, orient int, q ssd.Pos, length, halfW int) bool {
	var ahead, side int
	switch orient {
	case ssd.North:
		ahead, side = from.R-q.R, q.C-from.C
	case ssd.South:
		ahead, side = q.R-from.R, from.C-q.C
	case ssd.East:
		ahead, side = q.C-from.C, q.R-from.R
	case ssd.West:
		ahead, side = from.C-q.C, from.R-q.R
	}
	return ahead >= 1 && ahead <= length && side >= -halfW && side <= halfW
}

func recount(t *testing.T, ep *golden.Episode, tr *envs.Trajectory) *oracle {
	t.Helper()
	name := "trajectory"
	if ep != nil {
		name = ep.Name
	}
	p := tr.Layout.Params
	n := tr.Layout.NumAgents
	o := &oracle{minDensity: 1, tagsBy: make([][]int, n)}
	for i := range o.tagsBy {
		o.tagsBy[i] = make([]int, n)
	}
	prev := &tr.Reset
	for k := range tr.Steps {
		s := &tr.Steps[k]
		next := &s.State
		timeout := make([]int, n)
		hits := append([]int(nil), prev.Hits...)
		pos := append([]ssd.Pos(nil), prev.Pos...)
		waste := append([]bool(nil), prev.Waste...)
		for i, to := range prev.Timeout {
			timeout[i] = max(0, to-1)
		}
		for i := range n {
			pos[i] = next.Pos[i]
			if timeout[i] > 0 {
				continue
			}
			switch s.Actions[i] {
			case ssd.Beam:
				o.fired++
				for j := range n {
					if j == i || timeout[j] > 0 || !inBeam(pos[i], next.Orient[i], pos[j], p.BeamLength, p.BeamWidth/2) {
						continue
					}
					o.hits++
					if hits[j]++; hits[j] >= p.HitsToTag {
						timeout[j], hits[j] = p.TimeoutSteps, 0
						o.tags++
						o.tagsBy[i][j]++
					}
				}
			case ssd.Clean:
				o.cleans++
				for r, q := range tr.Layout.River {
					if waste[r] && inBeam(pos[i], next.Orient[i], q, p.BeamLength, p.BeamWidth/2) {
						waste[r] = false
						o.removed++
					}
				}
			}
		}
		for j := range n {
			if timeout[j] != next.Timeout[j] || hits[j] != next.Hits[j] {
				t.Fatalf("%s step %d: the oracle itself disagrees with the trace for agent %d", name, s.State.Step, j)
			}
			if next.Timeout[j] == p.TimeoutSteps {
				o.tagsJumped++
				o.hitsSuffered += p.HitsToTag - prev.Hits[j]
			} else {
				o.hitsSuffered += next.Hits[j] - prev.Hits[j]
			}
			if next.Timeout[j] > 0 {
				o.taggedOut++
			}
			o.apples += s.Rewards[j]
		}
		polluted, added := 0, 0
		for r, w := range next.Waste {
			if w {
				polluted++
			}
			if w && !waste[r] {
				added++
			}
			if waste[r] && !w {
				t.Fatalf("%s step %d: the oracle's cleaning disagrees with the trace", name, s.State.Step)
			}
		}
		if added > 1 {
			t.Fatalf("%s step %d: %d waste cells appeared", name, s.State.Step, added)
		}
		for a, alive := range next.AppleAlive {
			if alive && !prev.AppleAlive[a] {
				o.regrowth++
			}
		}
		if len(next.Waste) > 0 {
			d := float64(polluted) / float64(len(next.Waste))
			o.minDensity = min(o.minDensity, d)
			o.densitySum += d
			if d >= p.ThresholdDepletion {
				o.atThreshold++
			}
		}
		o.steps++
		prev = next
	}
	return o
}

func loadGolden(t *testing.T, name string) (*golden.Episode, *envs.Trajectory) {
	t.Helper()
	ep := golden.Load(t, filepath.Join(golden.Dir(t), "episodes", name+".jsonl.gz"))
	return ep, goldenTrajectory(t, ep)
}

// near compares a per-agent mean with a total.
func near(perAgent, agentEpisodes float64, total int) bool {
	return math.Abs(perAgent*agentEpisodes-float64(total)) < 1e-6
}

// TestDeriveGolden: the events derived from every reference trace
// reproduce its hit counters, timeouts and waste (Derive checks that) and
// agree with the oracle's recount.
func TestDeriveGolden(t *testing.T) {
	for _, path := range golden.Files(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			ep := golden.Load(t, path)
			tr := goldenTrajectory(t, ep)
			events, err := critic.Derive(tr)
			if err != nil {
				t.Fatal(err)
			}
			o := recount(t, ep, tr)
			var fired, hits, tags, cleans, removed int
			for _, ev := range events {
				fired += len(ev.Beams)
				cleans += len(ev.Cleans)
				for _, b := range ev.Beams {
					hits += len(b.Hit)
					tags += len(b.Tagged)
				}
				for _, c := range ev.Cleans {
					removed += len(c.Removed)
				}
			}
			if fired != o.fired || hits != o.hits || tags != o.tags || cleans != o.cleans || removed != o.removed {
				t.Fatalf("derived beams %d hits %d tags %d cleans %d removed %d; oracle %d %d %d %d %d",
					fired, hits, tags, cleans, removed, o.fired, o.hits, o.tags, o.cleans, o.removed)
			}
			if hits != o.hitsSuffered || tags != o.tagsJumped {
				t.Fatalf("derived hits %d tags %d; from the counters alone %d %d", hits, tags, o.hitsSuffered, o.tagsJumped)
			}
		})
	}
}

// TestDiagnoseCleanupBFS checks the claims about the greedy collector on
// the paper's Cleanup map against the reference traces: it never cleans,
// the waste density never drops below the 0.4 depletion threshold, and no
// apple regrows after the initial ones, so every episode collapses.
func TestDiagnoseCleanupBFS(t *testing.T) {
	for _, seed := range []string{"0", "1", "2"} {
		ep, tr := loadGolden(t, "cleanup_default_n10_bfs_s"+seed)
		o := recount(t, ep, tr)
		// The claims, from the data.
		if o.cleans != 0 || o.minDensity < 0.4 || o.regrowth != 0 {
			t.Fatalf("%s: claims do not hold in the data: %d cleans, min density %v, %d regrowths", ep.Name, o.cleans, o.minDensity, o.regrowth)
		}
		d, err := critic.Diagnose([]critic.Episode{{Trajectory: tr}}, critic.Config{})
		if err != nil {
			t.Fatal(err)
		}
		c := d.Cleanup
		ae := d.Mine * float64(d.Episodes)
		switch {
		case c == nil:
			t.Fatal("no Cleanup diagnostics")
		case c.Threshold != 0.4 || c.CleanBeams != 0 || c.Cleaners != 0 || c.CleanersPerStep != 0:
			t.Errorf("%s: cleaning %+v", ep.Name, c)
		case c.Min != o.minDensity || c.AtThreshold != 1 || math.Abs(c.Waste-o.densitySum/float64(o.steps)) > 1e-12:
			t.Errorf("%s: waste min %v at-threshold %v mean %v; oracle %v 1 %v", ep.Name, c.Min, c.AtThreshold, c.Waste, o.minDensity, o.densitySum/float64(o.steps))
		case c.Regrowth != 0 || c.Collapsed != 1 || c.FreeRiding != 1:
			t.Errorf("%s: regrowth %v collapsed %d free-riding %v", ep.Name, c.Regrowth, c.Collapsed, c.FreeRiding)
		case !near(d.Apples, ae, int(o.apples)) || d.Reward != d.Apples:
			t.Errorf("%s: apples %v per agent, oracle %v in all", ep.Name, d.Apples, o.apples)
		}
		for _, w := range c.WasteOverTime {
			if w < 0.4 {
				t.Errorf("%s: waste over time %v dips below 0.4", ep.Name, c.WasteOverTime)
			}
		}
	}
}

// TestDiagnoseGatheringExploit counts the exploitative policy's beams and
// tags exactly, on every map it was recorded on.
func TestDiagnoseGatheringExploit(t *testing.T) {
	for _, name := range []string{"gathering_small_n2_exploit_s0", "gathering_default_n6_exploit_s1", "gathering_large_n10_exploit_s2"} {
		ep, tr := loadGolden(t, name)
		o := recount(t, ep, tr)
		if o.fired == 0 || o.tags == 0 {
			t.Fatalf("%s: the trace has %d beams and %d tags; the test needs some", name, o.fired, o.tags)
		}
		d, err := critic.Diagnose([]critic.Episode{{Trajectory: tr}}, critic.Config{})
		if err != nil {
			t.Fatal(err)
		}
		b := d.Beams
		ae := d.Mine
		for _, c := range []struct {
			what string
			got  float64
			want int
		}{
			{"fired", b.Fired, o.fired}, {"hits", b.Hits, o.hits}, {"tags", b.Tags, o.tags},
			{"hits suffered", b.HitsSuffered, o.hitsSuffered}, {"tags suffered", b.TagsSuffered, o.tagsJumped},
			{"tagged out", b.TaggedOut, o.taggedOut},
		} {
			if !near(c.got, ae, c.want) {
				t.Errorf("%s: %s %v per agent x %v agents, oracle %d", name, c.what, c.got, ae, c.want)
			}
		}
		if b.Friendly != 1 || b.Cost != 0 {
			t.Errorf("%s: friendly share %v, cost %v (self-play Gathering: 1 and 0)", name, b.Friendly, b.Cost)
		}
		var perAgent float64
		for _, ag := range d.PerAgent {
			perAgent += ag.Beams
		}
		if int(perAgent) != o.fired {
			t.Errorf("%s: per-agent beams sum to %v, oracle %d", name, perAgent, o.fired)
		}
	}
}

// TestDiagnoseCleanupScripted: on the scripted Cleanup traces, which clean
// and beam at random, the cleaning and the regrowth agree with the oracle.
func TestDiagnoseCleanupScripted(t *testing.T) {
	ep, tr := loadGolden(t, "cleanup_default-clean_n10_scripted_s0")
	o := recount(t, ep, tr)
	d, err := critic.Diagnose([]critic.Episode{{Trajectory: tr}}, critic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := d.Cleanup
	if o.cleans == 0 || o.regrowth == 0 || o.removed == 0 {
		t.Fatalf("trace has %d cleans, %d regrowths, %d cells removed; the test needs some", o.cleans, o.regrowth, o.removed)
	}
	if !near(c.CleanBeams, d.Mine, o.cleans) || math.Abs(c.WastePerBeam*float64(o.cleans)-float64(o.removed)) > 1e-6 {
		t.Errorf("clean beams %v per agent, %v cells each; oracle %d beams, %d cells", c.CleanBeams, c.WastePerBeam, o.cleans, o.removed)
	}
	if c.Regrowth != float64(o.regrowth) {
		t.Errorf("regrowth %v, oracle %d", c.Regrowth, o.regrowth)
	}
	if math.Abs(c.CleanersPerStep*float64(o.steps)-float64(o.cleans)) > 1e-6 {
		t.Errorf("cleaners per step %v over %d steps, oracle %d clean beams", c.CleanersPerStep, o.steps, o.cleans)
	}
	if !near(d.Reward, d.Mine, int(o.apples)) {
		t.Errorf("reward %v per agent, oracle total %v", d.Reward, o.apples)
	}
}

// TestDeriveRefusesEditedTrajectories: a trajectory whose states do not
// follow from its actions is an error, not a silent miscount.
func TestDeriveRefusesEditedTrajectories(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(tr *envs.Trajectory)
		want string
	}{
		{"hit counter", func(tr *envs.Trajectory) { tr.Steps[10].State.Hits[0] += 1 }, "derived hits"},
		{"vanished waste", func(tr *envs.Trajectory) {
			for k, w := range tr.Steps[5].State.Waste {
				if w {
					tr.Steps[5].State.Waste[k] = false
					for s := 6; s < len(tr.Steps); s++ {
						tr.Steps[s].State.Waste[k] = false
					}
					return
				}
			}
		}, "waste vanished"},
		{"free apple", func(tr *envs.Trajectory) { tr.Steps[3].Rewards[2] += 1 }, "apple"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, tr := loadGolden(t, "cleanup_small_n3_bfs_s0")
			c.edit(tr)
			_, err := critic.Derive(tr)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}
