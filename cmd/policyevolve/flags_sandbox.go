package main

import (
	"fmt"
	"io"
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
	sb, err := sandbox.New(sandbox.Config{Backend: be, StepTimeout: o.stepTimeout, CostBudget: cost, Notice: stderr})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return sb, nil
}
