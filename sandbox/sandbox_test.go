package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/envs/ssd/worker"
)

// TestAutoFallsBackToYaegi: with no toolchain, Auto picks yaegi and says so
// in one line; Native refuses.
func TestAutoFallsBackToYaegi(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot start under the race detector's memory needs")
	}
	var notice bytes.Buffer
	sb, err := New(Config{GoCommand: "no-such-go-toolchain", Notice: &notice, CacheDir: testCache})
	if err != nil {
		t.Fatal(err)
	}
	if sb.Backend() != Yaegi || strings.Count(notice.String(), "\n") != 1 ||
		!strings.Contains(notice.String(), "no Go toolchain (no-such-go-toolchain) on PATH; running policies in the yaegi interpreter") {
		t.Fatalf("backend %s, notice %q", sb.Backend(), notice.String())
	}
	if _, err := New(Config{Backend: Native, GoCommand: "no-such-go-toolchain"}); err == nil {
		t.Fatal("native without a toolchain was accepted")
	}
	// And the fallback works.
	prog := compile(t, sb, okPolicy)
	if err := prog.Smoke(context.Background(), ssd.Gathering); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentBuilds: several sandboxes (as several processes would)
// build the same new policy into one cache at once; all get a working
// binary, and the cache holds exactly one.
func TestConcurrentBuilds(t *testing.T) {
	cache := t.TempDir()
	src := strings.Replace(okPolicy, "return v.GreedyAction(agent)", "return v.GreedyAction(agent) + 0*len(\"concurrent\")", 1)
	var wg sync.WaitGroup
	progs := make([]*Program, 4)
	errs := make([]error, 4)
	for i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sb := newSandbox(t, Native, func(c *Config) { c.CacheDir = cache })
			progs[i], errs[i] = sb.Compile(context.Background(), []byte(src))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		if progs[i].binary != progs[0].binary {
			t.Fatalf("builds disagree on the cache path")
		}
	}
	bins, _ := filepath.Glob(filepath.Join(cache, "*", "*"))
	if len(bins) != 1 {
		t.Fatalf("cache holds %v", bins)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(cache, "build-*")); len(leftovers) > 0 {
		t.Fatalf("temporary build folders left: %v", leftovers)
	}
	keepForClose(progs[0])
	if err := progs[0].Smoke(context.Background(), ssd.Cleanup); err != nil {
		t.Fatal(err)
	}
	// A second compile is a cache hit.
	if _, err := newSandbox(t, Native, func(c *Config) { c.CacheDir = cache }).Compile(context.Background(), []byte(src)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(progs[0].binary); st == nil || st.Mode()&0o111 == 0 {
		t.Fatal("cached worker is not an executable")
	}
}

// TestSmokeFailures: the smoke test reports a crash with its cause.
func TestSmokeFailures(t *testing.T) {
	for _, be := range backends {
		prog := compile(t, newSandbox(t, be), policyWith("if v.Step() == 49 {\n\t\tpanic(\"late\")\n\t}\n\treturn ssd.Stand"))
		err := prog.Smoke(context.Background(), ssd.Gathering)
		if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "smoke test") || !strings.Contains(err.Error(), "late") {
			t.Fatalf("%s: got %v", be, err)
		}
	}
}

// TestActorCancelled: cancelling the context stops the worker at once.
func TestActorCancelled(t *testing.T) {
	for _, be := range backends {
		prog := example(t, be, "bfs")
		m, _ := envs.BuiltinMap(ssd.Gathering, "large")
		env, _ := envs.New(envs.Config{Map: m, Agents: 10})
		ctx, cancel := context.WithCancel(context.Background())
		all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		// A second seat plays agent 9 and pulls the plug at step 20.
		stopper := &envs.PolicyActor{New: func(envs.EpisodeInfo) ssd.Policy {
			return func(v *ssd.View, agent int) int {
				if v.Step() == 20 {
					cancel()
				}
				return ssd.Stand
			}
		}}
		res, err := envs.Run(ctx, env, []envs.Seat{{Actor: stopper, Agents: all[9:]}, {Actor: prog.Actor(), Agents: all[:9]}}, envs.Options{})
		if !errors.Is(err, context.Canceled) || res.Steps != 20 {
			t.Fatalf("%s: got %v after %d steps", be, err, res.Steps)
		}
	}
}

// TestWorkerEnvironment: a worker sees none of the host's environment (no
// API keys, no YAEGI_* switches), only its own settings.
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("YAEGI_AST_DOT", "1")
	t.Setenv("HOME_SECRET", "x")
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	env, _ := envs.New(envs.Config{Map: m, Agents: 1, MaxSteps: 1})
	for _, be := range backends {
		prog := example(t, be, "bfs")
		// Once Begin returns, the worker has answered Ready: it runs
		// under its limits, in its final image.
		a := &actor{prog: prog}
		if err := a.Begin(context.Background(), envs.EpisodeInfo{Agents: []int{0}, Layout: env.Layout(), Config: env.Config()}); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", a.w.cmd.Process.Pid))
		a.End()
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, kv := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
			k, _, _ := strings.Cut(kv, "=")
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := []string{"GOMAXPROCS", "MALLOC_ARENA_MAX", "POLICYEVOLVE_WORKER_LIMITED", "POLICYEVOLVE_WORKER_LIMITS"}
		if be == Yaegi {
			want = append(want, "POLICYEVOLVE_SANDBOX_WORKER")
			sort.Strings(want)
		}
		if strings.Join(keys, " ") != strings.Join(want, " ") {
			t.Errorf("%s worker environment: %v, want %v", be, keys, want)
		}
	}
}

// TestWorkersDieWithTheHost: when the host is killed with SIGKILL (no
// chance to clean up), its workers die too.
func TestWorkersDieWithTheHost(t *testing.T) {
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), "SANDBOX_TEST_HOST="+testCache)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil || pid <= 0 {
		host.Process.Kill()
		t.Fatalf("no worker pid from the host: %v", err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		t.Fatalf("worker %d is not running", pid)
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	// The kernel kills it at once; a minute is for a machine that is
	// slow to show it.
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return // gone (or a zombie awaiting its new parent)
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("worker %d outlived its killed host", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestFailedStartsLeakNothing: a policy that fails while its worker starts
// (a panic at init) leaves no file descriptor or process behind.
func TestFailedStartsLeakNothing(t *testing.T) {
	src := "package policy\n\nimport \"ssd\"\n\nvar boom = func() int { panic(\"at init\") }()\n\nfunc Policy(v *ssd.View, agent int) int { return boom }\n"
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	env, _ := envs.New(envs.Config{Map: m, Agents: 2, MaxSteps: 5})
	for _, be := range backends {
		prog := compile(t, newSandbox(t, be), src)
		before := openFDs(t)
		for i := 0; i < 10; i++ {
			_, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: []int{0, 1}}}, envs.Options{})
			if err == nil {
				t.Fatalf("%s: a panicking init ran", be)
			}
		}
		if after := openFDs(t); after > before {
			t.Errorf("%s: %d file descriptors before 10 failed starts, %d after", be, before, after)
		}
		closeTestPrograms()
		if kids := children(); len(kids) > 0 {
			for _, k := range kids {
				exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", k))
				t.Logf("%d: %s", k, exe)
			}
			t.Errorf("%s: processes left: %v", be, kids)
		}
	}
}

// TestSharedBuildSurvivesACallerGivingUp: when the first caller of a build
// cancels, another caller of the same build still gets its worker.
func TestSharedBuildSurvivesACallerGivingUp(t *testing.T) {
	sb := newSandbox(t, Native, func(c *Config) { c.CacheDir = t.TempDir() })
	src := []byte(strings.Replace(okPolicy, "GreedyAction(agent)", "GreedyAction(agent) + 0*len(\"shared\")", 1))
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := sb.Compile(ctx, src); first <- err }()
	time.Sleep(50 * time.Millisecond)
	second := make(chan error, 1)
	go func() { _, err := sb.Compile(context.Background(), src); second <- err }()
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("second caller: %v", err)
	}
}

// TestPanicMessagesAreBounded: a policy panicking with a huge value is a
// panic, reported in a few kilobytes. (Building 20 MiB takes the policy
// tens of milliseconds of CPU time, more on a busy machine: the step
// deadline is far away, so that what is tested is the report.)
func TestPanicMessagesAreBounded(t *testing.T) {
	for name, body := range map[string]string{
		"string": "panic(strings.Repeat(\"x\", 20<<20))",
		"slice":  "panic(make([]int, 5<<20))",
		"map":    "m := map[int]int{}\n\tfor i := 0; i < 100000; i++ {\n\t\tm[i] = i\n\t}\n\tpanic(m)",
	} {
		src := policyWith(body)
		src = strings.Replace(src, "import \"ssd\"", "import (\n\t\"ssd\"\n\t\"strings\"\n)\n\nvar _ = strings.Repeat", 1)
		for _, be := range backends {
			prog := compile(t, newSandbox(t, be, func(c *Config) { c.StepTimeout = 10 * time.Second }), src)
			err := prog.Smoke(context.Background(), ssd.Gathering)
			var pe *PolicyError
			if !errors.As(err, &pe) || pe.Kind != ErrPanic || len(pe.Detail) > 2*worker.MaxMessage {
				t.Fatalf("%s %s: got %v", name, be, err)
			}
		}
	}
}

// TestCostlyPolicyIsRefused: admission refuses a policy whose CPU time per
// step, projected over an episode, exceeds the cost budget, with advice a
// planner can act on. The policies cost about three times their budget
// (CPU time, which load can only increase), a clean one a hundredth of it.
func TestCostlyPolicyIsRefused(t *testing.T) {
	cases := map[Backend]struct {
		src    string
		budget time.Duration
		want   string
	}{
		// ~2.7 ms per agent: 27 ms per step of 10 agents.
		Native: {burnPolicy(1500000), 0, "takes %s per step (10 agents); the budget is 10 ms on the native backend: avoid a BFS per apple per agent"},
		// ~3 ms per agent in yaegi, against a budget of 1 ms per agent.
		Yaegi: {burnPolicy(100000), time.Second, "per step (10 agents); the budget is 10 ms on the yaegi backend: avoid a BFS per apple per agent"},
	}
	for _, be := range backends {
		c := cases[be]
		sb := newSandbox(t, be, func(cfg *Config) { cfg.CostBudget = c.budget; cfg.StepTimeout = 10 * time.Second })
		prog := compile(t, sb, c.src)
		rep, err := prog.SmokeTest(context.Background(), ssd.Gathering)
		want := strings.Replace(c.want, "takes %s", "", 1)
		if !errors.Is(err, ErrCost) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: got %v, want %v containing %q", be, err, ErrCost, want)
		}
		if rep == nil || rep.PerStep <= rep.Budget {
			t.Fatalf("%s: report %+v", be, rep)
		}
		// A clean policy is far inside the same budget.
		if rep, err := example(t, be, "bfs").SmokeTest(context.Background(), ssd.Gathering); err != nil || rep.PerStep > rep.Budget/10 {
			t.Errorf("%s: bfs: %+v, %v", be, rep, err)
		}
	}
}

// statefulPolicy keeps state in every way a policy can: a table computed
// at the first call, counters, a map cache, a pointer to a struct, an
// initializer that depends on another variable declared after it, and an
// init function.
const statefulPolicy = `package policy

import "ssd"

var zones [][]int
var steps int
var cache = map[int]int{}
var order = twice()
var base = 3
var counter int

type tracker struct{ seen map[int]bool }

var tr = &tracker{seen: map[int]bool{}}

func twice() int { return base * 2 }

func init() { counter = 100 + order }

func Policy(v *ssd.View, agent int) int {
	if zones == nil {
		all := make([]int, v.NumAgents())
		for i := range all {
			all[i] = i
		}
		zones = v.CoopZones(all)
	}
	steps++
	counter++
	cache[v.Step()%5] += agent
	tr.seen[agent] = true
	a := v.CoopAction(agent, zones[agent])
	if (steps+counter+order+len(cache)+len(tr.seen))%7 == 0 {
		return ssd.Stand
	}
	return a
}
`

// TestReusedWorkerStartsEpisodesFresh: a stateful policy plays the same
// episodes in one reused worker, in any order of seeds, as in a fresh
// worker per episode, on both backends and in both modes.
func TestReusedWorkerStartsEpisodesFresh(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "default")
	cfg := envs.Config{Map: m, Agents: 5, MaxSteps: 120}
	env, _ := envs.New(cfg)
	all := []int{0, 1, 2, 3, 4}
	seeds := []uint64{3, 1, 2, 1, 3}
	for _, be := range backends {
		prog := compile(t, newSandbox(t, be), statefulPolicy)
		if !prog.reusable {
			t.Fatalf("%s: a typed stateful policy was not made resettable", be)
		}
		fresh := map[uint64][][]int{}
		for _, seed := range []uint64{1, 2, 3} {
			prog.Close() // a new worker for this episode
			res, err := prog.SelfPlay(context.Background(), cfg, envs.Options{Seed: seed, Record: true})
			if err != nil {
				t.Fatalf("%s seed %d: %v", be, seed, err)
			}
			fresh[seed] = actionsOf(res)
		}
		prog.Close()
		for k, seed := range seeds {
			res, err := prog.SelfPlay(context.Background(), cfg, envs.Options{Seed: seed, Record: true})
			if err != nil {
				t.Fatalf("%s seed %d: %v", be, seed, err)
			}
			if d := firstDifference(actionsOf(res), fresh[seed]); d != "" {
				t.Fatalf("%s: episode %d (seed %d) in a reused worker differs from a fresh worker's: %s", be, k, seed, d)
			}
			// Step by step too, in the same (reused) worker.
			lock, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: all}}, envs.Options{Seed: seed, Record: true})
			if err != nil {
				t.Fatalf("%s: seed %d step by step: %v", be, seed, err)
			}
			if d := firstDifference(actionsOf(lock), fresh[seed]); d != "" {
				t.Fatalf("%s: seed %d step by step in a reused worker differs from a fresh worker's: %s", be, seed, d)
			}
		}
	}
}

func actionsOf(res *envs.Result) [][]int {
	var out [][]int
	for _, s := range res.Trajectory.Steps {
		out = append(out, s.Actions)
	}
	return out
}

func firstDifference(a, b [][]int) string {
	for t := range min(len(a), len(b)) {
		if !slices.Equal(a[t], b[t]) {
			return fmt.Sprintf("step %d: %v vs %v", t, a[t], b[t])
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d steps vs %d", len(a), len(b))
	}
	return ""
}

// TestReplayCatchesADivergentReplica: a worker whose replica of the game
// went its own way (its hash differs from the host's) stops the episode
// as tampered, at the step where it happened.
func TestReplayCatchesADivergentReplica(t *testing.T) {
	prog := example(t, Native, "bfs")
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	cfg := envs.Config{Map: m, Agents: 3, MaxSteps: 50}
	env, _ := envs.New(cfg)
	pl, err := prog.play(context.Background(), env.Config(), 4, []int{0, 1, 2}, episodeBudget, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := replayPlayed(context.Background(), env, pl, envs.Options{Seed: 4}); err != nil || res.Steps != 50 {
		t.Fatalf("honest replay: %v after %d steps", err, res.Steps)
	}
	pl.hashes[17] ^= 1
	res, err := replayPlayed(context.Background(), env, pl, envs.Options{Seed: 4})
	if !errors.Is(err, envs.ErrTampered) || !strings.Contains(err.Error(), "step 17:") || res.Steps != 18 {
		t.Fatalf("got %v after %d steps", err, res.Steps)
	}
}

// TestMatchesStepByStep: in a mixed match each seat's worker keeps a
// replica fed with the joint actions; the episode is the one the built-in
// policies play in process.
func TestMatchesStepByStep(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "default")
	env, _ := envs.New(envs.Config{Map: m, Agents: 6, MaxSteps: 300})
	even, odd := []int{0, 2, 4}, []int{1, 3, 5}
	bfs, _ := envs.Builtin("bfs")
	exploit, _ := envs.Builtin("exploit")
	want, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: &envs.PolicyActor{New: bfs}, Agents: even},
		{Actor: &envs.PolicyActor{New: exploit}, Agents: odd}}, envs.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range backends {
		got, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: example(t, be, "bfs").Actor(), Agents: even},
			{Actor: example(t, be, "exploit").Actor(), Agents: odd}}, envs.Options{Seed: 5, Verify: true})
		if err != nil || !slices.Equal(got.Returns, want.Returns) {
			t.Fatalf("%s: returns %v (%v), in process %v", be, got.Returns, err, want.Returns)
		}
	}
}
