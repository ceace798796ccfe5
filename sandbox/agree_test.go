package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox/difftest"
)

// Differential testing of the two backends: generated programs (package
// difftest) run on both, on the same states; any difference in the
// actions is a failure naming the program's seed, the first differing
// step and agent, and the entry function that computed it.
//
// The seed corpus in testdata/fuzz/FuzzAgree runs in every go test. A
// long session (docs/yaegi.md):
//
//	go test ./sandbox -run '^$' -fuzz '^FuzzAgree$' -fuzztime 1h -fuzzminimizetime 0 -parallel 2
//
// with AGREE_STATS=FILE appending one JSON line per program (seed,
// entries run and refused, the refusals, the verdict). A seed is a whole
// program: minimizing it means nothing, hence -fuzzminimizetime 0. The
// engine gives an input at most 10 s: on a busy machine some inputs are
// skipped (see fuzzBudget). To look at one program, or sweep seeds
// without that limit: AGREE_SEED=N (or A-B) go test ./sandbox -run
// TestAgreeSeed -v (with AGREE_DUMP=DIR to write their sources).

// agreeConfig shapes the generated programs, and agreeSteps is the
// length of a differential episode: each of the 12 entry functions of a
// program is called agreeSteps×10/12 times. Small enough that a program
// is built and compared well within the 10 s the fuzzing engine gives an
// input (go test -fuzz stops a worker that takes longer).
var agreeConfig = difftest.Config{Entries: 12}

const agreeSteps = 30

// fuzzBudget bounds the work on one input when fuzzing: on a machine so
// busy that a program cannot be compared in it, the input is skipped
// (not failed), and no diagnosis is attempted (reproduce a failure with
// TestAgreeSeed).
const fuzzBudget = 6 * time.Second

// fuzzing reports whether this process is a worker of go test -fuzz.
func fuzzing() bool {
	f := flag.Lookup("test.fuzzworker")
	return f != nil && f.Value.String() == "true"
}

// agreeOutcome is what one differential run found.
type agreeOutcome struct {
	Seed     uint64   `json:"seed"`
	Game     string   `json:"game"`
	Entries  int      `json:"entries"`  // entry functions run on both backends
	Refused  int      `json:"refused"`  // entry functions the yaegi backend refused
	Reasons  []string `json:"reasons"`  // the refusals, shortened
	Steps    int      `json:"steps"`    // steps compared
	Diverged string   `json:"diverged"` // "" when the backends agreed
	Skipped  bool     `json:"skipped"`  // not compared within fuzzBudget
	Outside  int      `json:"outside"`  // constructs outside the subset generated (each refused)
}

var agreeStatsMu sync.Mutex

func (o *agreeOutcome) record() {
	path := os.Getenv("AGREE_STATS")
	if path == "" {
		return
	}
	agreeStatsMu.Lock()
	defer agreeStatsMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(o)
	f.Write(append(b, '\n'))
}

// agreeSandboxes are a native and a yaegi sandbox with generous limits
// (generated programs are far from every budget) and a cache of their
// own, removed with the test.
func agreeSandboxes(t testing.TB) (native, yaegi *Sandbox) {
	adjust := func(c *Config) {
		c.CacheDir = t.TempDir()
		c.StepTimeout = 30 * time.Second
		c.CostBudget = -1
	}
	return newSandbox(t, Native, adjust), newSandbox(t, Yaegi, adjust)
}

// runAgreement generates the program of a seed and runs it on both
// backends. Entry functions the yaegi backend refuses (with a precise
// message) are left out; the rest must agree.
func runAgreement(t testing.TB, seed uint64) agreeOutcome {
	t.Helper()
	ctx := context.Background()
	if fuzzing() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, fuzzBudget)
		defer cancel()
	}
	game := ssd.Gathering
	if seed%2 == 1 {
		game = ssd.Cleanup
	}
	out := agreeOutcome{Seed: seed, Game: game.String()}
	tooSlow := func() {
		if ctx.Err() != nil {
			out.Skipped = true
			out.record()
			t.Skipf("seed %d: not compared within %v (a busy machine)", seed, fuzzBudget)
		}
	}
	prog := difftest.Generate(seed, agreeConfig)
	native, yaegi := agreeSandboxes(t)

	keep := make([]int, len(prog.Entries))
	for i := range keep {
		keep[i] = i
	}
	var src []byte
	var spans []difftest.Span
	var py *Program
compile:
	for {
		src, spans = prog.Source(keep)
		var err error
		py, err = yaegi.Compile(ctx, src)
		tooSlow()
		if err == nil {
			break
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("seed %d: yaegi compile: %v", seed, err)
		}
		drop := map[int]bool{}
		for _, is := range ve.Issues {
			if !strings.Contains(is.Msg, "the yaegi backend cannot run this") {
				t.Fatalf("seed %d: the generator wrote an invalid program: %v\n%s", seed, err, numbered(src))
			}
			out.Reasons = append(out.Reasons, shortReason(is.Msg))
			users := refusedEntries(prog, spans, is.Line)
			if users == nil {
				t.Fatalf("seed %d: the yaegi backend refuses shared code at line %d: %s\n%s", seed, is.Line, is.Msg, numbered(src))
			}
			for _, i := range users {
				drop[i] = true
			}
		}
		before := len(keep)
		keep = slices.DeleteFunc(keep, func(i int) bool { return drop[i] })
		out.Refused += before - len(keep)
		if len(keep) == before {
			t.Fatalf("seed %d: refusal without effect: %v", seed, err)
		}
		if len(keep) == 0 {
			out.record()
			return out
		}
	}
	defer py.Close()
	for _, i := range keep {
		if o := prog.Entries[i].Outside; len(o) > 0 {
			t.Errorf("seed %d: entry %s holds %s, outside the yaegi subset, and the yaegi backend accepted it", seed, prog.Entries[i].Name, strings.Join(o, ", "))
		}
	}
	for _, e := range prog.Entries {
		out.Outside += len(e.Outside)
	}
	pn, err := native.Compile(ctx, src)
	if err != nil {
		tooSlow()
		t.Fatalf("seed %d: the Go compiler refuses a generated program: %v\n%s", seed, err, numbered(src))
	}
	defer pn.Close()
	d := compareBackends(ctx, t, pn, py, game)
	tooSlow()
	if d.refused != "" && d.slot >= 0 {
		// Refused while running (a check the rewrite added): leave the
		// entry function out and run the rest again.
		i := keep[d.slot%len(keep)]
		out.Reasons = append(out.Reasons, shortReason(d.refused))
		out.Refused++
		keep = slices.DeleteFunc(keep, func(k int) bool { return k == i })
		if len(keep) == 0 {
			out.record()
			return out
		}
		goto compile
	}
	out.Entries = len(keep)
	out.Steps = d.steps
	if d.msg != "" {
		out.Diverged = d.msg
		out.record()
		if d.slot < 0 {
			t.Fatalf("seed %d (%s): %s\n%s", seed, game, d.msg, numbered(src))
		}
		entry := prog.Entries[keep[d.slot%len(keep)]]
		step, agent := d.slot/envs.DefaultAgents, d.slot%envs.DefaultAgents
		if fuzzing() {
			t.Errorf("seed %d (%s): the backends disagree: %s\nentry function %s; reproduce with: AGREE_SEED=%d go test ./sandbox -run TestAgreeSeed -v",
				seed, game, d.msg, entry.Name, seed)
			return out
		}
		t.Errorf("seed %d (%s): the backends disagree: %s\nentry function %s; %s\n%s",
			seed, game, d.msg, entry.Name, firstDifferingStatement(t, prog, keep, step, agent, native, yaegi, game),
			reproduce(t, prog, entry, native, yaegi, game, src))
		return out
	}
	out.record()
	return out
}

// refusedEntries maps a refused line to the entry functions that must be
// left out: the entry it lies in, or the users of the declaration it lies
// in; nil for shared code.
func refusedEntries(prog *difftest.Program, spans []difftest.Span, line int) []int {
	for _, sp := range spans {
		if line < sp.First || line > sp.Last {
			continue
		}
		if sp.Entry >= 0 {
			return []int{sp.Entry}
		}
		if sp.Name == "" || sp.Name == "Policy" {
			return nil
		}
		if users := prog.Users(sp.Name); len(users) > 0 {
			return users
		}
	}
	return nil
}

var reasonPos = regexp.MustCompile(`\b[a-z_][A-Za-z0-9_]*\d+\b`)

// shortReason is a refusal without its variable names, for counting.
func shortReason(msg string) string {
	msg = strings.TrimPrefix(msg, "the yaegi backend cannot run this: ")
	if i := strings.IndexAny(msg, ";("); i > 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(reasonPos.ReplaceAllString(msg, "X"))
}

// divergence is the first difference between two runs: step, agent and
// the dispatch slot (step×agents + agent) that chose the entry function.
type divergence struct {
	msg     string
	steps   int
	slot    int
	refused string // the yaegi run stopped with a refusal, not a difference
}

// compareBackends plays one episode with each program and compares their
// actions step by step, and their failures.
func compareBackends(ctx context.Context, t testing.TB, pn, py *Program, game ssd.Game) divergence {
	t.Helper()
	m, err := envs.BuiltinMap(game, envs.DefaultMap(game))
	if err != nil {
		t.Fatal(err)
	}
	cfg := envs.Config{Map: m, Agents: envs.DefaultAgents, MaxSteps: agreeSteps}
	run := func(p *Program) (*envs.Result, error) {
		return p.SelfPlay(ctx, cfg, envs.Options{Seed: 7, Record: true})
	}
	rn, errN := run(pn)
	if !fuzzing() {
		// The generator's promise, checked outside the fuzzing engine's
		// tight budget.
		rn2, _ := run(pn)
		if d := firstActionDifference(rn, rn2); d.msg != "" && ctx.Err() == nil {
			t.Fatalf("a generated program is not deterministic (native, twice): %s", d.msg)
		}
	}
	if ctx.Err() != nil {
		return divergence{}
	}
	ry, errY := run(py)
	if ctx.Err() != nil {
		return divergence{}
	}
	d := firstActionDifference(rn, ry)
	if d.msg != "" {
		return d
	}
	switch {
	case errN == nil && errY == nil:
		return d
	case errN != nil && errY != nil:
		t.Fatalf("a generated program fails on both backends (it must not fail):\nnative: %v\nyaegi: %v", errN, errY)
	}
	step, agent := d.steps, -1
	var pe *PolicyError
	if errors.As(errors.Join(errN, errY), &pe) {
		step, agent = pe.Step, pe.Agent
		if errN == nil && errors.Is(pe, ErrPanic) && strings.Contains(pe.Detail, "the yaegi backend cannot run this") {
			d.refused = pe.Detail
		}
	}
	d.msg = fmt.Sprintf("at step %d: native: %v; yaegi: %v", step, orOK(errN), orOK(errY))
	switch {
	case step < 0:
		d.slot = -1 // the program did not start
	case agent >= 0:
		d.slot = step*envs.DefaultAgents + agent
	default:
		d.slot = step * envs.DefaultAgents
	}
	return d
}

func orOK(err error) any {
	if err == nil {
		return "ran"
	}
	return err
}

// firstActionDifference compares the actions of the steps both runs completed.
func firstActionDifference(a, b *envs.Result) divergence {
	if a == nil || b == nil || a.Trajectory == nil || b.Trajectory == nil {
		return divergence{}
	}
	n := min(len(a.Trajectory.Steps), len(b.Trajectory.Steps))
	for t := 0; t < n; t++ {
		x, y := a.Trajectory.Steps[t].Actions, b.Trajectory.Steps[t].Actions
		for i := range x {
			if x[i] != y[i] {
				return divergence{steps: t, slot: t*len(x) + i,
					msg: fmt.Sprintf("step %d, agent %d: native chose %s, yaegi %s", t, i, ssd.ActionName(x[i]), ssd.ActionName(y[i]))}
			}
		}
	}
	return divergence{steps: n}
}

// reproduce runs the failing entry function alone and returns a
// reproducer: that program, when it still disagrees, else how to get
// the whole one.
func reproduce(t testing.TB, prog *difftest.Program, e *difftest.Entry, native, yaegi *Sandbox, game ssd.Game, full []byte) string {
	how := fmt.Sprintf("reproduce with: AGREE_SEED=%d go test ./sandbox -run TestAgreeSeed -v", prog.Seed)
	if dir := os.Getenv("AGREE_DUMP"); dir != "" {
		p := filepath.Join(dir, fmt.Sprintf("agree-%d.go", prog.Seed))
		if os.WriteFile(p, full, 0o644) == nil {
			how += "; whole program written to " + p
		}
	}
	src, _ := prog.Source([]int{e.Index})
	ctx := context.Background()
	pn, err1 := native.Compile(ctx, src)
	py, err2 := yaegi.Compile(ctx, src)
	if err1 != nil || err2 != nil {
		return how
	}
	if d := compareBackends(ctx, t, pn, py, game); d.msg != "" {
		return fmt.Sprintf("alone it still disagrees (%s):\n%s\n%s", d.msg, numbered(src), how)
	}
	return "alone it agrees (it depends on state shared with other entries); " + how
}

// firstDifferingStatement runs the traced program (see
// difftest.TracedSource) on both backends up to the call at (step,
// agent) and names the first statement whose digest differs, looking at
// difftest.TraceLen points at a time.
func firstDifferingStatement(t testing.TB, prog *difftest.Program, keep []int, step, agent int, native, yaegi *Sandbox, game ssd.Game) string {
	ctx := context.Background()
	m, _ := envs.BuiltinMap(game, envs.DefaultMap(game))
	env, _ := envs.New(envs.Config{Map: m, Agents: envs.DefaultAgents, MaxSteps: agreeSteps})
	all := make([]int, envs.DefaultAgents)
	for i := range all {
		all[i] = i
	}
	traceOf := func(p *Program, kind string) ([]string, error) {
		_, err := envs.Run(ctx, env, []envs.Seat{{Actor: p.Actor(), Agents: all}}, envs.Options{Seed: 7})
		var pe *PolicyError
		if !errors.As(err, &pe) {
			return nil, fmt.Errorf("no trace: %v", err)
		}
		_, rec, ok := strings.Cut(pe.Detail, kind)
		if !ok {
			return nil, fmt.Errorf("no trace: %v", pe)
		}
		if i := strings.Index(rec, " ("); i >= 0 {
			rec = rec[:i] // yaegi's note on the panic's line
		}
		return strings.Fields(rec), nil
	}
	// The same program with every variable folded in after every
	// statement (see difftest.Config.Checkpoint): the first call whose
	// result differs is the one that first computes something else, even
	// in package-level state; it may come before the first differing
	// action (an action has only 3 bits).
	cpc := agreeConfig
	cpc.Checkpoint = true
	cp := difftest.Generate(prog.Seed, cpc)
	src, _ := cp.TracedSource(keep, step, agent, difftest.TraceCalls)
	if len(src) <= MaxSourceSize {
		prog = cp
	} else {
		src, _ = prog.TracedSource(keep, step, agent, difftest.TraceCalls)
	}
	pn, err1 := native.Compile(ctx, src)
	py, err2 := yaegi.Compile(ctx, src)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("(no trace: %v %v)", err1, err2)
	}
	a, err1 := traceOf(pn, "CALLS")
	b, err2 := traceOf(py, "CALLS")
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("(native: %v; yaegi: %v)", err1, err2)
	}
	note := ""
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			if i != step*envs.DefaultAgents+agent {
				step, agent = i/envs.DefaultAgents, i%envs.DefaultAgents
				note = fmt.Sprintf("the first call whose result differs is at step %d, agent %d (entry %s); ",
					step, agent, prog.Entries[keep[i%len(keep)]].Name)
			}
			break
		}
	}
	return note + firstDifferingUpdate(t, prog, keep, step, agent, native, yaegi, traceOf)
}

// firstDifferingUpdate names the first update of a digest that differs in
// the call at (step, agent): the first TraceLen updates that differ, from
// their digests, then the update itself.
func firstDifferingUpdate(t testing.TB, prog *difftest.Program, keep []int, step, agent int, native, yaegi *Sandbox,
	traceOf func(*Program, string) ([]string, error)) string {
	ctx := context.Background()
	run := func(skip int, kind string) (a, b []string, src []byte, tr *difftest.Trace, err error) {
		src, tr = prog.TracedSource(keep, step, agent, skip)
		if dir := os.Getenv("AGREE_DUMP"); dir != "" {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("agree-%d-traced.go", prog.Seed)), src, 0o644)
		}
		pn, err1 := native.Compile(ctx, src)
		py, err2 := yaegi.Compile(ctx, src)
		if err1 != nil || err2 != nil {
			return nil, nil, nil, nil, fmt.Errorf("(no trace: %v %v)", err1, err2)
		}
		a, err1 = traceOf(pn, kind)
		b, err2 = traceOf(py, kind)
		if err1 != nil || err2 != nil {
			return nil, nil, nil, nil, fmt.Errorf("(native: %v; yaegi: %v)", err1, err2)
		}
		return a, b, src, tr, nil
	}
	ca, cb, _, _, err := run(difftest.TraceChunks, "CHUNKS")
	if err != nil {
		return err.Error()
	}
	k := 0
	for k < min(len(ca), len(cb)) && ca[k] == cb[k] {
		k++
	}
	if k == len(ca) && k == len(cb) {
		return fmt.Sprintf("the digest updates of the call agree (%d chunks of %d): the difference is in what the call returns", k, difftest.TraceLen)
	}
	skip := k * difftest.TraceLen
	a, b, src, tr, err := run(skip, "TRACE")
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) && i < len(b) && a[i] == b[i] {
			continue
		}
		at := a
		if i >= len(a) {
			at = b
		}
		id, _, _ := strings.Cut(at[i], ":")
		n, _ := strconv.Atoi(id)
		l := tr.Lines[n]
		// The statement: the line before the checkpoints and trace
		// points that follow it.
		stmt := l
		for stmt > 1 && (strings.Contains(lines[stmt-1], "// checkpoint") || strings.HasPrefix(strings.TrimSpace(lines[stmt-1]), "tr(")) {
			stmt--
		}
		var ctxt strings.Builder
		for k := max(stmt-6, 1); k <= min(l, len(lines)); k++ {
			if k > stmt && k < l {
				continue
			}
			mark := "   "
			if k == stmt {
				mark = ">> "
			}
			fmt.Fprintf(&ctxt, "%s%5d  %s\n", mark, k, lines[k-1])
		}
		return fmt.Sprintf("the first value that differs (native %v, yaegi %v; update %d of the call) is at line %d of the traced program, after line %d:\n%s",
			tokenAt(a, i), tokenAt(b, i), skip+i+1, l, stmt, ctxt.String())
	}
	return fmt.Sprintf("chunk %d of the digest updates differs, but not its updates", k)
}

func tokenAt(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return "(none)"
}

// numbered is a source with line numbers.
func numbered(src []byte) string {
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, l)
	}
	return b.String()
}

// FuzzAgree: every generated program gives the same actions on both
// backends, or the yaegi backend refuses it with a precise message.
func FuzzAgree(f *testing.F) {
	if raceEnabled {
		f.Skip("the yaegi worker cannot run under the race detector")
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		o := runAgreement(t, seed)
		t.Logf("seed %d (%s): %d entry functions agree over %d steps; %d refused %v", seed, o.Game, o.Entries, o.Steps, o.Refused, o.Reasons)
	})
}

// TestAgreeSeed runs the program of AGREE_SEED (a seed, or seeds A-B),
// without the fuzzing engine's limit of 10 s per program.
func TestAgreeSeed(t *testing.T) {
	s := os.Getenv("AGREE_SEED")
	if s == "" {
		t.Skip("set AGREE_SEED to run one generated program (N) or several (A-B)")
	}
	from, to, isRange := strings.Cut(s, "-")
	first, err := strconv.ParseUint(from, 10, 64)
	last := first
	if err == nil && isRange {
		last, err = strconv.ParseUint(to, 10, 64)
	}
	if err != nil || last < first {
		t.Fatalf("AGREE_SEED=%q: want N or A-B", s)
	}
	for seed := first; seed <= last; seed++ {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			src, _ := difftest.Generate(seed, agreeConfig).Source(nil)
			if dir := os.Getenv("AGREE_DUMP"); dir != "" {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("agree-%d.go", seed)), src, 0o644)
			}
			o := runAgreement(t, seed)
			t.Logf("%+v", o)
		})
		if seed == last { // last may be the largest uint64
			break
		}
	}
}

// freshSeeds is how many programs of new seeds every go test compares
// (AGREE_FRESH=N for more); each takes one to two seconds.
const freshSeeds = 2

// TestAgreeFreshSeeds compares programs of seeds no test has fixed: drawn
// from the clock and printed (reproduce one with AGREE_SEED=N go test
// -run TestAgreeSeed), so that every run of the suite, CI's included,
// sweeps a few more programs than the seed corpus holds. Skipped with
// -short.
func TestAgreeFreshSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no fresh seeds")
	}
	n := freshSeeds
	if s := os.Getenv("AGREE_FRESH"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			t.Fatalf("AGREE_FRESH=%q: want a count", s)
		}
		n = v
	}
	base := uint64(time.Now().UnixNano()) % 1_000_000_000
	for k := range n {
		seed := base + uint64(k)*7919
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Logf("seed: %d", seed)
			o := runAgreement(t, seed)
			t.Logf("%+v", o)
		})
	}
}
