package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

const crossPolicy = `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	shift, broken := 0, false
	if v.Step() == 3 && agent == 2 {
		return ssd.RotateLeft + shift
	}
	if v.Step() == 4 && agent == 1 && broken {
		panic("broken")
	}
	return ssd.Stand
}
`

// TestCrossCheck: admission on the native backend runs the smoke test on
// yaegi too and refuses a policy whose actions differ there, or that
// fails there only, naming the step and agent; a policy yaegi refuses is
// admitted with a note; without the cross-check nothing is compared.
func TestCrossCheck(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot run under the race detector")
	}
	ctx := context.Background()
	sb := newSandbox(t, Native)
	check := func(src string) (*SmokeReport, error) {
		p, rep, err := sb.CheckReport(ctx, []byte(src), ssd.Gathering)
		if p != nil {
			keepForClose(p)
		}
		return rep, err
	}

	rep, err := check(crossPolicy)
	if err != nil || !slices.Equal(rep.Compared, []Backend{Native, Yaegi}) || rep.CrossNote != "" {
		t.Fatalf("agreeing policy: %v, %+v", err, rep)
	}

	// A stand-in for an interpreter bug: yaegi runs another program.
	for _, c := range []struct {
		name, from, to string
		step, agent    int
		detail         string
	}{
		{"other action", "shift, broken := 0,", "shift, broken := 1,", 3, 2, "the native backend chose rotate_left, the yaegi backend rotate_right"},
		{"failure on one backend", "0, false", "0, true", 4, 1, "the native backend ran this step, the yaegi backend failed: panic at step 4 (agent 1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rewriteHook = func(b []byte) []byte { return bytes.Replace(b, []byte(c.from), []byte(c.to), 1) }
			defer func() { rewriteHook = nil }()
			_, err := check(crossPolicy)
			var pe *PolicyError
			if !errors.As(err, &pe) || !errors.Is(err, ErrDisagree) || pe.Step != c.step || pe.Agent != c.agent ||
				!strings.Contains(pe.Detail, c.detail) {
				t.Fatalf("got %v, want the backends to disagree at step %d, agent %d: %s", err, c.step, c.agent, c.detail)
			}
			if !strings.Contains(err.Error(), "the backends disagree at step") {
				t.Fatalf("message %q", err)
			}
		})
	}

	refused := strings.Replace(crossPolicy, "func Policy(", "func f() int {\n\tdefer g(1)\n\treturn 0\n}\n\nfunc g(int) {}\n\nfunc Policy(", 1)
	rep, err = check(refused)
	if err != nil || !slices.Equal(rep.Compared, []Backend{Native}) ||
		!strings.Contains(rep.CrossNote, "the yaegi backend refuses this policy: line 6:2: the yaegi backend cannot run this: defer of anything") {
		t.Fatalf("policy yaegi refuses: %v, %+v", err, rep)
	}

	off := newSandbox(t, Native, func(c *Config) { c.SkipCrossCheck = true })
	p, rep, err := off.CheckReport(ctx, []byte(crossPolicy), ssd.Gathering)
	if err != nil || !slices.Equal(rep.Compared, []Backend{Native}) || rep.CrossNote != "the cross-check is off" {
		t.Fatalf("cross-check off: %v, %+v", err, rep)
	}
	p.Close()

	// On the yaegi backend (with a toolchain present), native is the
	// other one.
	src, err := os.ReadFile(filepath.Join("..", "examples", "policies", "bfs.go"))
	if err != nil {
		t.Fatal(err)
	}
	p, rep, err = newSandbox(t, Yaegi).CheckReport(ctx, src, ssd.Cleanup)
	if err != nil || !slices.Equal(rep.Compared, []Backend{Yaegi, Native}) {
		t.Fatalf("yaegi first: %v, %+v", err, rep)
	}
	p.Close()
}

// latePolicy stands for 60 steps, then ranges over a map: its actions
// differ from run to run only after the smoke test's 50 steps.
const latePolicy = `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	if v.Step() < 60 {
		return ssd.Stand
	}
	for k := range map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true} {
		return k
	}
	return ssd.Stand
}
`

// TestWholeEpisodeChecks: admission plays a whole evaluation-length
// episode twice and on the other backend, so a policy whose actions
// differ from run to run after the smoke test's 50 steps is refused
// (with the smoke test alone it was admitted), and so is one the
// backends run differently only late in an episode.
func TestWholeEpisodeChecks(t *testing.T) {
	ctx := context.Background()
	smokeOnly := newSandbox(t, Native, func(c *Config) { c.AdmissionSteps = -1; c.SkipCrossCheck = true })
	p, rep, err := smokeOnly.CheckReport(ctx, []byte(latePolicy), ssd.Gathering)
	if err != nil || rep.Episode != 0 {
		t.Fatalf("smoke test only: %v, %+v; want the late nondeterminism unseen", err, rep)
	}
	p.Close()

	sb := newSandbox(t, Native, func(c *Config) { c.SkipCrossCheck = true })
	_, rep, err = sb.CheckReport(ctx, []byte(latePolicy), ssd.Gathering)
	var pe *PolicyError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNondeterministic) || pe.Step < 60 || rep.Episode != envs.DefaultMaxSteps ||
		!strings.Contains(err.Error(), "of a whole 1000-step episode") {
		t.Fatalf("got %v (%+v), want the policy refused as not deterministic at step 60 or later", err, rep)
	}

	// A policy that fails late on every run is not refused: its
	// evaluation records the failure.
	panics := strings.Replace(crossPolicy, "return ssd.Stand\n}", "if v.Step() == 150 {\n\t\tpanic(\"late\")\n\t}\n\treturn ssd.Stand\n}", 1)
	p, rep, err = newSandbox(t, Native).CheckReport(ctx, []byte(panics), ssd.Gathering)
	if err != nil || rep.Replayed != 150 || !raceEnabled && !slices.Equal(rep.Compared, []Backend{Native, Yaegi}) {
		t.Fatalf("late panic: %v, %+v; want it admitted, compared on its 150 steps", err, rep)
	}
	p.Close()

	if raceEnabled {
		return // the yaegi worker cannot run under the race detector
	}
	// A stand-in for an interpreter bug that shows after step 50 only.
	late := strings.Replace(crossPolicy, "func Policy(v *ssd.View, agent int) int {", "func Policy(v *ssd.View, agent int) int {\n\tif v.Step() >= 70 && agent == 3 {\n\t\treturn ssd.Stand + 0*agent\n\t}", 1)
	rewriteHook = func(b []byte) []byte {
		return bytes.Replace(b, []byte("ssd.Stand + 0*agent"), []byte("ssd.Stand - 7 + 0*agent"), 1)
	}
	defer func() { rewriteHook = nil }()
	_, rep, err = newSandbox(t, Native).CheckReport(ctx, []byte(late), ssd.Gathering)
	if !errors.As(err, &pe) || !errors.Is(err, ErrDisagree) || pe.Step != 70 || pe.Agent != 3 {
		t.Fatalf("got %v (%+v), want the backends to disagree at step 70, agent 3", err, rep)
	}
}
