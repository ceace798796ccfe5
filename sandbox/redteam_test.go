package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// The paper's five reward hacks, rewritten for Go. Through the mutable
// Python env object they teleported agents onto apples, disabled rivals,
// purged waste and spawned apples. Here a policy sees only a View: going
// for its internals fails validation, and everything it can reach is a
// copy, so the attempt changes nothing.
var attacks = []struct {
	name    string
	game    ssd.Game
	body    string
	invalid string // non-empty: validation must refuse with this message
}{
	{"teleport via internals", ssd.Gathering,
		`v.st.Pos[agent] = v.ApplePos(0)
	return ssd.Stand`, "v.st undefined"},
	{"teleport via copies", ssd.Gathering,
		`ag := v.Agents()
	ag[agent].Pos = v.ApplePos(agent % v.NumApples())
	spawns := v.AppleSpawns()
	spawns[0] = v.AgentPos(agent)
	return v.GreedyAction(agent)`, ""},
	{"disable rivals", ssd.Gathering,
		`for _, a := range v.Agents() {
		a.Timeout = 1000
	}
	p := v.Params()
	p.HitsToTag = 0
	p.TimeoutSteps = 1 << 30
	opps := v.Opponents(agent)
	for i := range opps {
		opps[i].Hits = 99
	}
	return v.ExploitAction(agent)`, ""},
	{"purge waste", ssd.Cleanup,
		`w := v.WasteCells()
	for i := range w {
		w[i] = ssd.Pos{}
	}
	river := v.RiverCells()
	river = river[:0]
	_ = river
	return v.GreedyAction(agent)`, ""},
	{"spawn apples", ssd.Cleanup,
		`apples := v.Apples()
	for _, p := range v.AppleSpawns() {
		apples = append(apples, p)
	}
	walls := v.Walls()
	for r := range walls {
		for c := range walls[r] {
			walls[r][c] = false
		}
	}
	return v.GreedyAction(agent)`, ""},
	{"combined", ssd.Cleanup,
		`for _, a := range v.Agents() {
		a.Pos, a.Timeout = v.ApplePos(0), 99
	}
	for _, p := range v.WasteCells() {
		p.R = -1
	}
	st := &ssd.State{}
	_ = st
	field := v.DistanceField(v.AgentPos(agent))
	for i := range field {
		field[i] = 0
	}
	owner, _ := v.Voronoi()
	for i := range owner {
		owner[i] = agent
	}
	return v.GreedyAction(agent)`, ""},
	{"forge a view", ssd.Cleanup,
		`fake, _ := ssd.NewView(&ssd.State{})
	_ = fake
	*v = ssd.View{}
	return ssd.Stand`, ""},
}

func attackSource(body string) string {
	return "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\t" + body + "\n}\n"
}

// TestRedTeamRewardHacks: each attack fails validation, or plays a whole
// episode in which the environment and snapshot hashes never change during
// a policy step and the rewards equal those of replaying its actions on a
// fresh environment.
func TestRedTeamRewardHacks(t *testing.T) {
	for _, be := range backends {
		sb := newSandbox(t, be)
		for _, a := range attacks {
			t.Run(string(be)+"/"+a.name, func(t *testing.T) {
				prog, err := sb.Compile(context.Background(), []byte(attackSource(a.body)))
				if err == nil {
					keepForClose(prog)
				}
				if a.invalid != "" {
					if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), a.invalid) {
						t.Fatalf("got %v, want a validation error containing %q", err, a.invalid)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				m, _ := envs.BuiltinMap(a.game, envs.DefaultMap(a.game))
				env, _ := envs.New(envs.Config{Map: m, Agents: 10, MaxSteps: 200})
				all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
				res, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: all}},
					envs.Options{Seed: 7, Record: true, Verify: true})
				if errors.Is(err, envs.ErrTampered) {
					t.Fatalf("the environment changed during a policy step: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				// Replay the actions the policy chose on a fresh environment.
				env.Reset(7)
				for k, s := range res.Trajectory.Steps {
					rew, err := env.Step(s.Actions)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(rew, s.Rewards) {
						t.Fatalf("step %d: rewards %v in the episode, %v when replayed", k, s.Rewards, rew)
					}
				}
				// Played inside the worker, where it could write into its
				// replica of the game, it scores exactly what the honest
				// policy (its last line alone) scores, in both modes.
				lines := strings.Split(strings.TrimSpace(a.body), "\n")
				honest := compile(t, sb, attackSource(strings.TrimSpace(lines[len(lines)-1])))
				cfg := env.Config()
				want, err := honest.SelfPlay(context.Background(), cfg, envs.Options{Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				got, err := prog.SelfPlay(context.Background(), cfg, envs.Options{Seed: 7})
				if err != nil {
					t.Fatalf("in the worker: %v", err)
				}
				if !slices.Equal(got.Returns, want.Returns) || !slices.Equal(res.Returns, want.Returns) {
					t.Fatalf("returns %v in the worker, %v step by step, %v for the honest policy", got.Returns, res.Returns, want.Returns)
				}
			})
		}
	}
}

// hostile is a policy that attacks the worker or the host.
type hostile struct {
	name     string
	src      string
	yaegiSrc string  // a variant for the yaegi backend, if it needs one
	only     Backend // the one backend it is for, if not all
	kind     error   // the PolicyError kind expected (or ErrInvalid)
	want     string  // text the error must contain
	cfg      func(*Config)
	// yaegiKind and yaegiWant, when set, are what the yaegi backend
	// gives instead (a refusal of its subset).
	yaegiKind error
	yaegiWant string
}

var hostiles = []hostile{
	{name: "import os", src: "package policy\n\nimport (\n\t\"os\"\n\t\"ssd\"\n)\n\nfunc Policy(v *ssd.View, agent int) int { os.Exit(1); return 0 }\n",
		kind: ErrInvalid, want: `4:2: import "os" is not allowed`},
	{name: "import net", src: "package policy\n\nimport \"net\"\n\nvar _ = net.Dial\n",
		kind: ErrInvalid, want: `import "net" is not allowed`},
	{name: "import os/exec", src: "package policy\n\nimport \"os/exec\"\n\nvar _ = exec.Command\n",
		kind: ErrInvalid, want: `import "os/exec" is not allowed`},
	{name: "import unsafe", src: "package policy\n\nimport \"unsafe\"\n\nvar _ = unsafe.Pointer(nil)\n",
		kind: ErrInvalid, want: `import "unsafe" is not allowed`},
	{name: "import reflect", src: "package policy\n\nimport \"reflect\"\n\nvar _ = reflect.ValueOf\n",
		kind: ErrInvalid, want: `import "reflect" is not allowed`},
	{name: "import syscall", src: "package policy\n\nimport \"syscall\"\n\nvar _ = syscall.Kill\n",
		kind: ErrInvalid, want: `import "syscall" is not allowed`},
	{name: "linkname", src: "package policy\n\nimport (\n\t\"ssd\"\n\t_ \"math\"\n)\n\n//go:linkname nanotime runtime.nanotime\nfunc nanotime() int64\n\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n",
		kind: ErrInvalid, want: "compiler directive go:linkname is not allowed"},
	{name: "cgo", src: "package policy\n\n/*\n#include <stdlib.h>\n*/\nimport \"C\"\n",
		kind: ErrInvalid, want: `cgo (import "C") is not allowed`},
	{name: "goroutine bomb", src: policyWith("for {\n\t\tgo func() { for {} }()\n\t}"),
		kind: ErrInvalid, want: "go statements are not allowed"},
	{name: "infinite loop", src: policyWith("if agent == 3 && v.Step() == 2 {\n\t\tfor {\n\t\t}\n\t}\n\treturn ssd.Stand"),
		kind: ErrTimeout, want: "timeout at step 2 (agent 3)"},
	{name: "deep recursion", src: policyWith("return deep(v.Step() + 1)") + "\nfunc deep(n int) int {\n\tvar pad [64]int\n\tpad[n%64] = n\n\treturn deep(n+1) + pad[0]\n}\n",
		kind: ErrCrashed, want: "stack overflow", cfg: func(c *Config) { c.StepTimeout = 20 * time.Second }},
	{name: "huge allocation", src: policyWith("b := make([]byte, 1<<40)\n\tb[len(b)-1] = 1\n\treturn int(b[0])"),
		kind: ErrCrashed, want: "out of memory"},
	{name: "huge allocation at init", src: "package policy\n\nimport \"ssd\"\n\nvar buf = make([]byte, 1<<40)\n\nfunc Policy(v *ssd.View, agent int) int { return int(buf[0]) }\n",
		kind: ErrCrashed, want: "out of memory"},
	// In these two the CPU limit of starting must stop the policy, not the
	// host's wall-clock backstop (10 x StartTimeout + StepWall): a long
	// StepWall keeps the backstop out of reach on a crowded machine, where
	// 2 s of CPU time can take longer than 22 s of wall time.
	{name: "endless init", src: "package policy\n\nimport \"ssd\"\n\nfunc init() {\n\tfor {\n\t}\n}\n\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n",
		kind: ErrTimeout, want: "initialising the policy's package-level variables used", cfg: func(c *Config) { c.StartTimeout = 2 * time.Second; c.StepWall = time.Minute }},
	// A package-level variable whose initialiser never returns: it runs
	// as the worker starts (natively, before main; in yaegi, as the policy
	// is loaded), before the step watchdog exists, and escaped the CPU
	// limit of initialisation (only the host's 22 s wall-clock backstop
	// stopped it, here).
	{name: "endless variable initialiser", src: "package policy\n\nimport \"ssd\"\n\nvar x = spin()\n\nfunc spin() int {\n\tfor {\n\t}\n}\n\nfunc Policy(v *ssd.View, agent int) int { return x }\n",
		kind: ErrTimeout, want: "starting the policy (loading it and initialising its package-level variables) used", cfg: func(c *Config) { c.StartTimeout = 2 * time.Second; c.StepWall = time.Minute }},
	// A panic value whose own Error method never returns: describing it
	// is policy code, and runs under the watchdog too. (It held a native
	// worker and its host for 704 s, then was reported as a timeout at
	// step 0.)
	{name: "endless Error of a panic value", src: policyWith("if v.Step() == 3 {\n\t\tpanic(stuck{})\n\t}\n\treturn ssd.Stand") +
		"\ntype stuck struct{}\n\nfunc (stuck) Error() string {\n\tfor {\n\t}\n}\n",
		// The yaegi worker recovers an interpreted panic as a
		// reflect.Value: describing it never calls interpreted code.
		only: Native,
		kind: ErrTimeout, want: "timeout at step 3 (agent 0): the policy panicked, and describing its panic value (its own Error or String method) used"},
	{name: "panicking Error of a panic value", src: policyWith("if v.Step() == 2 {\n\t\tpanic(bad{})\n\t}\n\treturn ssd.Stand") +
		"\ntype bad struct{}\n\nfunc (bad) Error() string { panic(\"again\") }\n",
		only: Native, kind: ErrPanic, want: "panic at step 2 (agent 0) at policy line 7: a value of type main.bad, whose Error or String method panicked in turn"},
	{name: "panic", src: policyWith("if v.Step() == 4 {\n\t\tvar m map[int]int\n\t\tm[agent] = 1\n\t}\n\treturn ssd.Stand"),
		kind: ErrPanic, want: "panic at step 4 (agent 0)"},
	{name: "out-of-range action", src: policyWith("if agent == 2 {\n\t\treturn 9\n\t}\n\treturn ssd.Stand"),
		kind: ErrInvalidAction, want: "invalid action at step 0 (agent 2): returned 9; gathering actions are 0-7"},
	// The step deadline is far away: printing a megabyte costs yaegi
	// about as much CPU time as the default deadline allows.
	{name: "megabytes of output", src: policyWith("for i := 0; i < 100000; i++ {\n\t\tprintln(\"spam spam spam spam spam spam spam spam spam spam spam spam\")\n\t}\n\treturn ssd.Stand"),
		kind: ErrOutputLimit, want: "printed more than 1048576 bytes", cfg: func(c *Config) { c.StepTimeout = 10 * time.Second },
		// println is outside the yaegi subset: a policy cannot print there.
		yaegiKind: ErrInvalid, yaegiWant: "the builtin println: no differential evidence (subset row B4)"},
	// Each step stays well inside its deadline; the episode as a whole
	// does not fit its CPU budget. (yaegi runs the loop ~100x slower.)
	{name: "cpu budget", src: policyWith("x := 0\n\tfor i := 0; i < 20000000; i++ {\n\t\tx += i % 7\n\t}\n\treturn x % 2"),
		yaegiSrc: policyWith("x := 0\n\tfor i := 0; i < 300000; i++ {\n\t\tx += i % 7\n\t}\n\treturn x % 2"),
		kind:     ErrCPUBudget, want: "cpu budget exceeded",
		cfg: func(c *Config) { c.EpisodeCPU = time.Second; c.StepTimeout = 2 * time.Second; c.CostBudget = -1 }},
	// Each step fits its (here generous) deadline and the episode its CPU
	// budget, but the policy costs five times the cost budget per agent and
	// step: the episode stops for its cost.
	{name: "costly", src: burnPolicy(3000000), yaegiSrc: burnPolicy(1500000), kind: ErrCost, want: "cost budget exceeded",
		cfg: func(c *Config) { c.StepTimeout = 5 * time.Second }},
}

// burnPolicy burns CPU time before it chooses: n rounds of xorshift take
// about 1.8n ns natively, 30n ns in yaegi.
func burnPolicy(n int) string {
	return policyWith(fmt.Sprintf(`h := uint64(agent + 1)
	for i := 0; i < %d; i++ {
		h ^= h << 13
		h ^= h >> 7
		h ^= h << 17
	}
	if h == 0 {
		return ssd.Stand
	}
	return v.GreedyAction(agent)`, n))
}

func policyWith(body string) string {
	return "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\t" + body + "\n}\n"
}

// TestRedTeamHostile: every hostile policy ends with its own specific
// error, the host survives, and a clean policy runs normally right after.
func TestRedTeamHostile(t *testing.T) {
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	for _, be := range backends {
		for _, h := range hostiles {
			if h.only != "" && h.only != be {
				continue
			}
			t.Run(string(be)+"/"+h.name, func(t *testing.T) {
				t.Parallel()
				var adjust []func(*Config)
				if h.cfg != nil {
					adjust = append(adjust, h.cfg)
				}
				sb := newSandbox(t, be, adjust...)
				env, _ := envs.New(envs.Config{Map: m, Agents: 4, MaxSteps: 40})
				all := []int{0, 1, 2, 3}
				src, kind, want := h.src, h.kind, h.want
				if be == Yaegi && h.yaegiSrc != "" {
					src = h.yaegiSrc
				}
				if be == Yaegi && h.yaegiKind != nil {
					kind, want = h.yaegiKind, h.yaegiWant
				}
				prog, err := sb.Compile(context.Background(), []byte(src))
				if err == nil {
					keepForClose(prog)
					_, err = envs.Run(context.Background(), env, []envs.Seat{{Actor: prog.Actor(), Agents: all}}, envs.Options{Seed: 1, Verify: true})
				}
				if !errors.Is(err, kind) || !strings.Contains(err.Error(), want) {
					t.Fatalf("got %v, want %v containing %q", err, kind, want)
				}
				var pe *PolicyError
				if errors.As(err, &pe) && h.name == "panic" && be == Native && pe.Line != 8 {
					t.Errorf("panic reported at line %d, want 8", pe.Line)
				}
				// The next run is clean.
				clean := example(t, be, "bfs")
				if _, err := envs.Run(context.Background(), env, []envs.Seat{{Actor: clean.Actor(), Agents: all}}, envs.Options{Seed: 1}); err != nil {
					t.Fatalf("clean run after %s: %v", h.name, err)
				}
			})
		}
	}
	t.Cleanup(func() {
		closeTestPrograms()
		if kids := children(); len(kids) > 0 {
			t.Errorf("worker processes left behind: %v", kids)
		}
	})
}

// children lists the live child processes of this test process.
func children() []int {
	var out []int
	me := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == me && f[0] != "Z" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			out = append(out, pid)
		}
	}
	return out
}
