package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// sandboxOptions are the flags of the commands that run source policies.
type sandboxOptions struct {
	backend      string
	stepTimeout  time.Duration
	costBudget   string
	noCrossCheck bool
	// admissionEnv is the environment the command plays, set before open
	// by the commands that know it: admission compares the backends there
	// (sandbox.Config.AdmissionEnv).
	admissionEnv envs.Config
	crossNoted   bool // the note that the cross-check is off was printed
}

func (o *sandboxOptions) register(fs *flagSet) {
	fs.StringVar(&o.backend, "backend", "auto", "how source policies run: native (compiled; needs a Go toolchain), yaegi (interpreted) or auto")
	fs.DurationVar(&o.stepTimeout, "step-timeout", sandbox.DefaultStepTimeout, "CPU time one step of a source policy may use (all its agents)")
	fs.StringVar(&o.costBudget, "cost-budget", sandbox.DefaultCostBudget.String(),
		fmt.Sprintf("CPU time a source policy may spend on a 1000-step episode of 10 agents (native; x%d on yaegi), or off", sandbox.YaegiCostFactor))
	fs.BoolVar(&o.noCrossCheck, "no-cross-check", false,
		"do not compare the two backends: when a Go toolchain is present, a policy is also played on the other backend, on this command's map, agents and steps, "+
			"and refused where their actions differ; without it a policy the yaegi interpreter runs differently from Go may be scored silently wrong")
}

// open resolves the flags into a Sandbox; notices go to stderr.
func (o *sandboxOptions) open(stderr io.Writer) (*sandbox.Sandbox, error) {
	be, err := sandbox.ParseBackend(o.backend)
	if err != nil {
		return nil, usagef("--backend: %v", err)
	}
	cost := time.Duration(-1)
	if o.costBudget != "off" {
		cost, err = time.ParseDuration(o.costBudget)
		if err != nil {
			return nil, usagef("--cost-budget: %v", err)
		}
	}
	max, err := workerCacheMax()
	if err != nil {
		return nil, err
	}
	sb, err := sandbox.New(sandbox.Config{Backend: be, StepTimeout: o.stepTimeout, CostBudget: cost, CacheMaxBytes: max, Notice: stderr,
		SkipCrossCheck: o.noCrossCheck, AdmissionEnv: o.admissionEnv})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return sb, nil
}

// setEnv makes admission compare the backends on env, the environment the
// command plays (see sandbox.Config.AdmissionEnv); before open.
func (o *sandboxOptions) setEnv(env episode.Env) {
	o.admissionEnv = envs.Config{Map: env.Map, Agents: env.Config.Agents, MaxSteps: env.Config.MaxSteps}
}

// crossCheck compares a policy the yaegi backend runs with the native
// backend on cfg, the command's own environment, from a seed derived
// from seed and the source (sandbox.CrossSeed): what the command plays,
// not the default map. Programs of the native backend are not checked
// (they are what Go does). Without a toolchain, or with --no-cross-check,
// it says once on stderr what that risks.
func (o *sandboxOptions) crossCheck(ctx context.Context, sb *sandbox.Sandbox, prog *sandbox.Program, src []byte, cfg envs.Config, seed uint64, name string, stderr io.Writer) error {
	if prog.Backend != sandbox.Yaegi {
		return nil
	}
	if ok, why := sb.CrossEnabled(); !ok {
		o.noteCrossOff(why, stderr)
		return nil
	}
	rep, err := sb.CrossCheck(ctx, prog, cfg, sandbox.CrossSeed(src, seed))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if rep.CrossNote != "" {
		fmt.Fprintf(stderr, "%s: cross-check: %s\n", name, rep.CrossNote)
	}
	return nil
}

// compareEpisode compares an episode the yaegi backend played (recorded)
// with the native backend's play of the same episode (see crossCheck).
func (o *sandboxOptions) compareEpisode(ctx context.Context, sb *sandbox.Sandbox, prog *sandbox.Program, cfg envs.Config, res *envs.Result, name string, stderr io.Writer) error {
	if prog.Backend != sandbox.Yaegi {
		return nil
	}
	if ok, why := sb.CrossEnabled(); !ok {
		o.noteCrossOff(why, stderr)
		return nil
	}
	rep, err := sb.CompareEpisode(ctx, prog, cfg, res)
	if err != nil {
		return fmt.Errorf("%s, seed %d: %w", name, res.Seed, err)
	}
	if rep.CrossNote != "" {
		fmt.Fprintf(stderr, "%s, seed %d: cross-check: %s\n", name, res.Seed, rep.CrossNote)
	}
	return nil
}

func (o *sandboxOptions) noteCrossOff(why string, stderr io.Writer) {
	if o.crossNoted {
		return
	}
	o.crossNoted = true
	fmt.Fprintf(stderr, "note: the yaegi backend's results are not compared with the native backend's (%s): a policy the interpreter runs differently from Go may be scored silently wrong\n", why)
}

// envWorkerCacheMax bounds the worker cache on disk (docs/sandbox.md).
const envWorkerCacheMax = "POLICYEVOLVE_WORKER_CACHE_MAX"

// workerCacheMax reads $POLICYEVOLVE_WORKER_CACHE_MAX: bytes, with an
// optional unit (KiB, MiB, GiB; K, M, G mean the same), or "off" for no
// bound. Unset or empty: 0, the sandbox's default.
func workerCacheMax() (int64, error) {
	v := strings.TrimSpace(os.Getenv(envWorkerCacheMax))
	n, err := parseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("$%s=%q: %w", envWorkerCacheMax, v, err)
	}
	return n, nil
}

// parseBytes parses a size such as 500MiB, 2G or 1048576; "off" is -1
// (no bound), "" is 0 (the default).
func parseBytes(v string) (int64, error) {
	switch strings.ToLower(v) {
	case "":
		return 0, nil
	case "off":
		return -1, nil
	}
	units := []struct {
		suffix string
		shift  uint
	}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"k", 10}, {"m", 20}, {"g", 30}, {"b", 0}}
	num, shift := strings.ToLower(v), uint(0)
	for _, u := range units {
		if s, ok := strings.CutSuffix(num, u.suffix); ok {
			num, shift = strings.TrimSpace(s), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("want a positive size such as 500MiB or 2GiB (or off)")
	}
	return n << shift, nil
}
