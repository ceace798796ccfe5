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
}

func (o *sandboxOptions) register(fs *flagSet) {
	fs.StringVar(&o.backend, "backend", "auto", "how source policies run: native (compiled; needs a Go toolchain), yaegi (interpreted) or auto")
	fs.DurationVar(&o.stepTimeout, "step-timeout", sandbox.DefaultStepTimeout, "deadline for one step of a source policy (all its agents)")
}

// open resolves the flags into a Sandbox; notices go to stderr.
func (o *sandboxOptions) open(stderr io.Writer) (*sandbox.Sandbox, error) {
	be, err := sandbox.ParseBackend(o.backend)
	if err != nil {
		return nil, usagef("--backend: %v", err)
	}
	if o.stepTimeout <= 0 {
		return nil, usagef("--step-timeout must be positive (got %v)", o.stepTimeout)
	}
	sb, err := sandbox.New(sandbox.Config{Backend: be, StepTimeout: o.stepTimeout, Notice: stderr})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return sb, nil
}
