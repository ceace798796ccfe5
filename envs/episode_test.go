package envs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
)

func testEnv(t *testing.T, game ssd.Game, mapName string, agents, steps int) *Env {
	t.Helper()
	m, err := BuiltinMap(game, mapName)
	if err != nil {
		t.Fatal(err)
	}
	env, err := New(Config{Map: m, Agents: agents, MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func builtinActor(t *testing.T, name string) Actor {
	t.Helper()
	f, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return &PolicyActor{New: f}
}

// fakeActor is an Actor whose behaviour is set by func fields.
type fakeActor struct {
	begin  func(EpisodeInfo) error
	act    func(st *ssd.State, actions []int) error
	agents []int
	ended  int
}

func (f *fakeActor) Begin(_ context.Context, info EpisodeInfo) error {
	f.agents = info.Agents
	if f.begin != nil {
		return f.begin(info)
	}
	return nil
}

func (f *fakeActor) Act(_ context.Context, st *ssd.State, actions []int) error {
	if f.act != nil {
		return f.act(st, actions)
	}
	for _, a := range f.agents {
		actions[a] = ssd.Stand
	}
	return nil
}

func (f *fakeActor) End() error { f.ended++; return nil }

func TestRunSeatValidation(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 3, 10)
	a := &fakeActor{}
	for _, c := range []struct {
		name  string
		seats []Seat
		want  string
	}{
		{"missing agent", []Seat{{a, []int{0, 1}}}, "agent 2 has no seat"},
		{"two seats", []Seat{{a, []int{0, 1, 2}}, {&fakeActor{}, []int{1}}}, "agent 1 has two seats"},
		{"out of range", []Seat{{a, []int{0, 1, 2, 3}}}, "plays agent 3 of 3"},
		{"nil actor", []Seat{{nil, []int{0, 1, 2}}}, "seat 0 has no actor"},
	} {
		_, err := Run(context.Background(), env, c.seats, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestRunActorFailures(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 2, 50)
	boom := errors.New("boom")
	for _, c := range []struct {
		name     string
		act      func(st *ssd.State, actions []int) error
		wantErr  error
		wantStep int
	}{
		{"error", func(st *ssd.State, actions []int) error {
			if st.Step == 7 {
				return boom
			}
			actions[1] = ssd.Stand
			return nil
		}, boom, 7},
		{"invalid action", func(st *ssd.State, actions []int) error {
			actions[1] = ssd.Stand
			if st.Step == 3 {
				actions[1] = ssd.Clean // not a Gathering action
			}
			return nil
		}, ErrInvalidAction, 3},
		{"no action", func(st *ssd.State, actions []int) error {
			if st.Step < 5 {
				actions[1] = ssd.Stand
			}
			return nil
		}, ErrNoAction, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			good := &fakeActor{}
			bad := &fakeActor{act: c.act}
			res, err := Run(context.Background(), env, []Seat{{good, []int{0}}, {bad, []int{1}}}, Options{Seed: 1})
			var ae *ActorError
			if !errors.As(err, &ae) || !errors.Is(err, c.wantErr) {
				t.Fatalf("got %v, want an ActorError wrapping %v", err, c.wantErr)
			}
			if ae.Step != c.wantStep || !slices.Equal(ae.Agents, []int{1}) {
				t.Errorf("failure at step %d for %v, want step %d for [1]", ae.Step, ae.Agents, c.wantStep)
			}
			if res == nil || res.Steps != c.wantStep || len(res.Rewards[0]) != c.wantStep {
				t.Errorf("result holds %d steps, want %d", res.Steps, c.wantStep)
			}
			if good.ended != 1 || bad.ended != 1 {
				t.Errorf("End called %d and %d times, want once each", good.ended, bad.ended)
			}
		})
	}
}

func TestRunBeginFailureEndsStartedActors(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 2, 10)
	first := &fakeActor{}
	second := &fakeActor{begin: func(EpisodeInfo) error { return errors.New("no worker") }}
	_, err := Run(context.Background(), env, []Seat{{first, []int{0}}, {second, []int{1}}}, Options{})
	var ae *ActorError
	if !errors.As(err, &ae) || ae.Step != -1 || !strings.Contains(err.Error(), "episode start") {
		t.Fatalf("got %v", err)
	}
	if first.ended != 1 || second.ended != 0 {
		t.Errorf("End calls: first %d (want 1), second %d (want 0)", first.ended, second.ended)
	}
}

func TestRunCancelled(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 2, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	a := &fakeActor{}
	a.act = func(st *ssd.State, actions []int) error {
		if st.Step == 100 {
			cancel()
		}
		actions[0], actions[1] = ssd.Stand, ssd.Stand
		return nil
	}
	res, err := Run(ctx, env, []Seat{{a, []int{0, 1}}}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if res.Steps < 100 || res.Steps > 140 {
		t.Errorf("stopped after %d steps, want soon after 100", res.Steps)
	}
}

// TestRunDeterministic: the same seed gives the same episode, for every
// built-in, on both games; different seeds differ.
func TestRunDeterministic(t *testing.T) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		for _, name := range BuiltinPolicies() {
			env := testEnv(t, game, "small", 4, 200)
			play := func(seed uint64) *Result {
				res, err := Run(context.Background(), env, []Seat{{builtinActor(t, name), []int{0, 1, 2, 3}}},
					Options{Seed: seed, Record: true})
				if err != nil {
					t.Fatalf("%s %s: %v", game, name, err)
				}
				return res
			}
			a, b, c := play(5), play(5), play(6)
			for k := range a.Trajectory.Steps {
				if !slices.Equal(a.Trajectory.Steps[k].Actions, b.Trajectory.Steps[k].Actions) {
					t.Fatalf("%s %s: step %d differs between two runs of seed 5", game, name, k)
				}
			}
			if !slices.Equal(a.Returns, b.Returns) {
				t.Fatalf("%s %s: returns differ for one seed", game, name)
			}
			same := true
			for k := range a.Trajectory.Steps {
				same = same && slices.Equal(a.Trajectory.Steps[k].State.Pos, c.Trajectory.Steps[k].State.Pos)
			}
			if same {
				t.Errorf("%s %s: seeds 5 and 6 gave identical trajectories", game, name)
			}
		}
	}
}

// TestRandomPolicyStreams: an agent's random stream depends only on the
// episode seed and its id, not on who else plays.
func TestRandomPolicyStreams(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 2, 100)
	mixed, err := Run(context.Background(), env, []Seat{{builtinActor(t, "random"), []int{1}}, {builtinActor(t, "bfs"), []int{0}}},
		Options{Seed: 9, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Run(context.Background(), env, []Seat{{builtinActor(t, "random"), []int{0, 1}}}, Options{Seed: 9, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	for k := range mixed.Trajectory.Steps {
		if mixed.Trajectory.Steps[k].Actions[1] != alone.Trajectory.Steps[k].Actions[1] {
			t.Fatalf("step %d: agent 1's random action depends on its co-players", k)
		}
	}
	var seed uint64 = 9
	var golden uint64 = 0x9E3779B97F4A7C15
	r := NewRNG(seed + 2*golden)
	for k := 0; k < 10; k++ {
		if want := int(r.Integers(8)); alone.Trajectory.Steps[k].Actions[1] != want {
			t.Fatalf("step %d: agent 1 played %d, the documented stream says %d", k, alone.Trajectory.Steps[k].Actions[1], want)
		}
	}
}

func TestRunRecordsTrajectory(t *testing.T) {
	env := testEnv(t, ssd.Cleanup, "small", 3, 60)
	res, err := Run(context.Background(), env, []Seat{{builtinActor(t, "exploit"), []int{0, 1, 2}}}, Options{Seed: 2, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trajectory
	if len(tr.Steps) != 60 || res.Steps != 60 || tr.Reset.Step != 0 || tr.Steps[59].State.Step != 60 {
		t.Fatalf("trajectory of %d steps (reset at %d, last at %d)", len(tr.Steps), tr.Reset.Step, tr.Steps[59].State.Step)
	}
	sum := make([]float64, 3)
	for _, s := range tr.Steps {
		for i, r := range s.Rewards {
			sum[i] += r
		}
	}
	if !slices.Equal(sum, res.Returns) {
		t.Errorf("trajectory rewards sum to %v, returns are %v", sum, res.Returns)
	}
	// Snapshots are independent copies.
	tr.Steps[0].State.Pos[0] = ssd.Pos{R: -1}
	if tr.Steps[1].State.Pos[0].R == -1 {
		t.Error("step records share state slices")
	}
}

func TestComputeMetrics(t *testing.T) {
	for _, c := range []struct {
		name     string
		rewards  [][]float64
		timedOut [][]bool
		want     Metrics
	}{
		{"equal", [][]float64{{1, 0, 1}, {0, 1, 1}}, [][]bool{{false, false, false}, {false, false, false}},
			Metrics{Efficiency: 4.0 / 3, Equality: 1, Sustainability: (1.0 + 1.5) / 2, Peace: 2}},
		{"one earner", [][]float64{{0, 0, 3}, {0, 0, 0}}, [][]bool{{false, false, false}, {true, true, false}},
			Metrics{Efficiency: 1, Equality: 0.5, Sustainability: 2, Peace: 4.0 / 3}},
		{"negative total", [][]float64{{-50, 1}, {-1, 0}}, [][]bool{{true, false}, {false, false}},
			Metrics{Efficiency: -25, Equality: 1, Sustainability: 1, Peace: 1.5}},
		{"nothing earned", [][]float64{{0, 0}, {0, -1}}, [][]bool{{false, false}, {false, false}},
			Metrics{Efficiency: -0.5, Equality: 1, Sustainability: 0, Peace: 2}},
	} {
		got := ComputeMetrics(c.rewards, c.timedOut)
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"efficiency", got.Efficiency, c.want.Efficiency},
			{"equality", got.Equality, c.want.Equality},
			{"sustainability", got.Sustainability, c.want.Sustainability},
			{"peace", got.Peace, c.want.Peace},
		} {
			if math.Abs(f.got-f.want) > 1e-12 {
				t.Errorf("%s: %s = %v, want %v", c.name, f.name, f.got, f.want)
			}
		}
	}
}

func TestPairwiseSumMatchesNumpyOrder(t *testing.T) {
	// 1e16 + 1 + 1 ... is order-sensitive: sequential addition loses the
	// ones, numpy's 8-way blocks keep some of them.
	a := make([]float64, 17)
	a[0] = 1e16
	for i := 1; i < len(a); i++ {
		a[i] = 1
	}
	// numpy: r[0]=1e16, r[1..7]=1; += a[8..15] -> r[0]=1e16+1 (rounds to 1e16), r[1..7]=2;
	// ((1e16+2)+(2+2))+((2+2)+(2+2)) = 1e16+14 (rounds to 1e16+14), then +1 -> 1e16+16.
	if got, want := pairwiseSum(a), 1e16+16; got != want {
		t.Errorf("pairwiseSum = %v, want %v", got, want)
	}
}

func TestStepRejectsBadInput(t *testing.T) {
	env := testEnv(t, ssd.Cleanup, "small", 2, 2)
	if _, err := env.Step([]int{0}); err == nil {
		t.Error("one action for two agents accepted")
	}
	if _, err := env.Step([]int{0, 9}); !errors.Is(err, ErrInvalidAction) {
		t.Errorf("action 9 in Cleanup: %v", err)
	}
	if env.StepCount() != 0 {
		t.Error("a rejected step advanced the episode")
	}
	env.Step([]int{0, 8})
	env.Step([]int{0, 8})
	if _, err := env.Step([]int{0, 8}); !errors.Is(err, ErrEpisodeOver) {
		t.Errorf("step past the end: %v", err)
	}
}

// TestRunVerifyCatchesTampering: with Verify, an actor that changes the
// snapshot stops the episode; honest actors pass.
func TestRunVerifyCatchesTampering(t *testing.T) {
	env := testEnv(t, ssd.Gathering, "small", 2, 30)
	if _, err := Run(context.Background(), env, []Seat{{builtinActor(t, "exploit"), []int{0, 1}}}, Options{Verify: true}); err != nil {
		t.Fatalf("honest actor: %v", err)
	}
	cheat := &fakeActor{act: func(st *ssd.State, actions []int) error {
		if st.Step == 10 {
			st.Pos[0] = st.Layout.Apples[0] // teleport onto an apple
		}
		actions[0], actions[1] = ssd.Stand, ssd.Stand
		return nil
	}}
	res, err := Run(context.Background(), env, []Seat{{cheat, []int{0, 1}}}, Options{Verify: true})
	if !errors.Is(err, ErrTampered) || res.Steps != 10 {
		t.Fatalf("got %v after %d steps, want ErrTampered after 10", err, res.Steps)
	}
	// The environment hash moves with every step and returns with Reset.
	env.Reset(3)
	h0 := env.Hash()
	env.Step([]int{ssd.Forward, ssd.Stand})
	if env.Hash() == h0 {
		t.Error("a step did not change the environment hash")
	}
	env.Reset(3)
	if env.Hash() != h0 {
		t.Error("Reset to the same seed gave another hash")
	}
}

// TestConfigBuildsAReplicaAndReplayReplays: New(env.Config()) builds an
// environment that plays every step as the original does, for every
// built-in map; Replay of the actions an episode chose gives its Result;
// an Observer sees every step's joint actions.
func TestConfigBuildsAReplicaAndReplayReplays(t *testing.T) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		for _, name := range BuiltinMaps(game) {
			m, _ := BuiltinMap(game, name)
			if again, err := ParseMap(game, m.Name, m.Text); err != nil || !reflect.DeepEqual(again, m) {
				t.Fatalf("%s: the map's text parses to another map: %v", name, err)
			}
			env, err := New(Config{Map: m, Agents: 4, MaxSteps: 200})
			if err != nil {
				t.Fatal(err)
			}
			replica, err := New(env.Config())
			if err != nil {
				t.Fatal(err)
			}
			replica.Reset(9)
			f, _ := Builtin("exploit")
			obs := &observer{PolicyActor: PolicyActor{New: f}}
			res, err := Run(context.Background(), env, []Seat{{Actor: obs, Agents: []int{0, 1, 2, 3}}},
				Options{Seed: 9, Record: true, AfterStep: func(step int, e *Env) error {
					if _, err := replica.Step(obs.last); err != nil {
						return err
					}
					if replica.Hash() != e.Hash() {
						return fmt.Errorf("step %d: the replica differs", step)
					}
					return nil
				}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var actions []byte
			for _, s := range res.Trajectory.Steps {
				for _, a := range s.Actions {
					actions = append(actions, byte(a))
				}
			}
			again, err := Replay(context.Background(), env, actions, Options{Seed: 9})
			if err != nil || !reflect.DeepEqual(again.Returns, res.Returns) || again.Metrics != res.Metrics || again.Steps != res.Steps {
				t.Fatalf("%s: replay %+v %v, run %+v", name, again.Metrics, err, res.Metrics)
			}
			// Fed piece by piece, in uneven pieces of whole steps (empty
			// ones too), a Replayer gives the same Result, trajectory and all.
			whole, _ := Replay(context.Background(), env, actions, Options{Seed: 9, Record: true})
			r := NewReplayer(env, Options{Seed: 9, Record: true})
			for at, k := 0, 0; at < len(actions); k++ {
				size := min(len(actions)-at, 4*((k*37)%23))
				if err := r.Feed(context.Background(), actions[at:at+size]); err != nil {
					t.Fatalf("%s: feeding steps %d-: %v", name, at/4, err)
				}
				at += size
				if r.Steps() != at/4 {
					t.Fatalf("%s: %d steps replayed after %d fed", name, r.Steps(), at/4)
				}
			}
			if got := r.Result(); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%s: fed in pieces, the replay gives another Result", name)
			}
		}
	}
}

// observer is a PolicyActor that keeps each step's joint actions.
type observer struct {
	PolicyActor
	last []int
}

func (o *observer) Observe(actions []int) { o.last = append(o.last[:0], actions...) }
