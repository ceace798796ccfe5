package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"policyevolve/sandbox"
)

// sandboxOptions are the flags of the commands that run source policies.
type sandboxOptions struct {
	backend     string
	stepTimeout time.Duration
	costBudget  string
}

func (o *sandboxOptions) register(fs *flagSet) {
	fs.StringVar(&o.backend, "backend", "auto", "how source policies run: native (compiled; needs a Go toolchain), yaegi (interpreted) or auto")
	fs.DurationVar(&o.stepTimeout, "step-timeout", sandbox.DefaultStepTimeout, "CPU time one step of a source policy may use (all its agents)")
	fs.StringVar(&o.costBudget, "cost-budget", sandbox.DefaultCostBudget.String(),
		fmt.Sprintf("CPU time a source policy may spend on a 1000-step episode of 10 agents (native; x%d on yaegi), or off", sandbox.YaegiCostFactor))
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
	sb, err := sandbox.New(sandbox.Config{Backend: be, StepTimeout: o.stepTimeout, CostBudget: cost, CacheMaxBytes: max, Notice: stderr})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return sb, nil
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
