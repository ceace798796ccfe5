package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

type validateOptions struct {
	file    string
	game    string
	verbose bool
	sandboxOptions
}

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o validateOptions
	fs := newFlagSet("validate", "FILE.go [flags]", `
Check a policy source the way a candidate is admitted: the contract
(package policy; `+sandbox.Signature+`; imports only `+fmt.Sprint(sandbox.AllowedImports)+`;
no goroutines, channels, select, cgo or compiler directives), type checking
against the ssd API, compilation for the backend, then the paper's 50-step
smoke test on the game's default map, run twice to probe determinism.

A policy whose CPU time per step, projected over an episode, exceeds the
cost budget is refused with advice on what makes it costly.

Prints OK, or every problem with its line and column (exit status 1).
When a Go toolchain is present, the smoke test also runs on the other
backend (yaegi when the policy runs natively) and a policy whose actions
differ there is refused, naming the first differing step and agent.

With --verbose, also the policy's measured cost, the backends compared and
the OS-level confinement its worker ran under.`, stdout)
	fs.StringVar(&o.game, "game", "gathering", "game for the smoke test: gathering or cleanup")
	fs.BoolVar(&o.verbose, "verbose", false, "print the measured cost per step, the backends compared and the worker's confinement layers")
	o.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one policy file, got %d arguments", len(pos))
	}
	o.file = pos[0]
	return runValidate(ctx, o, stdout, stderr)
}

func runValidate(ctx context.Context, o validateOptions, stdout, stderr io.Writer) error {
	stdout = termSafeWriter{stdout} // what a policy's workers report
	game, err := ssd.ParseGame(o.game)
	if err != nil {
		return usagef("--game: %v", err)
	}
	src, err := readSource(o.file)
	if err != nil {
		return usagef("%v", err)
	}
	sb, err := o.open(stderr)
	if err != nil {
		return err
	}
	prog, rep, err := sb.CheckReport(ctx, src, game)
	if o.verbose {
		printValidateDetails(stdout, sb, rep)
	}
	if err != nil {
		var ve *sandbox.ValidationError
		if errors.As(err, &ve) {
			ve.File = o.file
		}
		return err
	}
	checked := ""
	switch {
	case len(rep.Compared) > 1 && rep.CrossSteps > 0:
		checked = fmt.Sprintf(", and the %s backend chose the same actions on %d of %d steps", rep.Compared[1], rep.CrossSteps, max(rep.Episode, sandbox.SmokeSteps))
	case len(rep.Compared) > 1:
		checked = fmt.Sprintf("; the %s backend was not compared: it played none of the steps (%s)", rep.Compared[1], rep.CrossNote)
	}
	whole := ""
	if rep.Episode > 0 {
		whole = fmt.Sprintf(" and over a whole %d-step episode", rep.Episode)
	}
	fmt.Fprintf(stdout, "OK %s: policy %.12s is valid, compiled (%s), and passed the %d-step smoke test and the determinism probe%s on %s%s\n",
		o.file, prog.ID, prog.Backend, sandbox.SmokeSteps, whole, game, checked)
	return nil
}

// printValidateDetails prints what --verbose adds: the measured cost and
// the confinement of the policy's workers.
func printValidateDetails(w io.Writer, sb *sandbox.Sandbox, rep *sandbox.SmokeReport) {
	fmt.Fprintf(w, "backend: %s\n", sb.Backend())
	if rep != nil && rep.Steps > 0 {
		budget := "none"
		if rep.Budget > 0 {
			budget = fmt.Sprint(rep.Budget)
		}
		fmt.Fprintf(w, "cost: %v of CPU time per step for %d agents, over %d smoke-test steps (budget %s per step)\n",
			rep.PerStep.Round(time.Microsecond), rep.Agents, rep.Steps, budget)
	}
	if rep != nil && rep.Replayed > 0 {
		fmt.Fprintf(w, "whole episode: %d steps from seed %d, played twice (in a fresh worker, then after other episodes), the same actions on the %d steps both played\n", rep.Episode, rep.EpisodeSeed, rep.Replayed)
	}
	if rep != nil && len(rep.Compared) > 0 {
		var names []string
		for _, b := range rep.Compared {
			names = append(names, string(b))
		}
		line := "backends compared: " + strings.Join(names, " and ")
		if len(names) == 1 {
			line += " only"
		} else {
			line += fmt.Sprintf(", on %d steps", rep.CrossSteps)
		}
		if rep.CrossNote != "" {
			line += " (" + rep.CrossNote + ")"
		}
		fmt.Fprintln(w, line)
	}
	if c := sb.Confinement(); c != nil {
		fmt.Fprintf(w, "worker confinement: %s\n", c)
	}
}
