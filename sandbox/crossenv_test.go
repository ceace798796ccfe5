package sandbox

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// heightGated behaves differently only on a map shorter than 15 rows:
// the stand-in for an interpreter bug below changes that branch alone,
// so a cross-check on the default map cannot see it (issue 48).
const heightGated = `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	if v.Height() < 15 && v.Step() == 5 && agent == 1 {
		return ssd.RotateLeft // gated
	}
	return ssd.Stand
}
`

// TestCrossCheckRunEnv: admission told the run's environment
// (AdmissionEnv, the small map) compares the backends there and refuses
// the height-gated policy the default map lets through; CrossCheck and
// CompareEpisode, which play, match and invade use, do the same on the
// environment they are given.
func TestCrossCheckRunEnv(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot run under the race detector")
	}
	ctx := context.Background()
	rewriteHook = func(b []byte) []byte {
		return bytes.Replace(b, []byte("return ssd.RotateLeft // gated"), []byte("return ssd.RotateRight // gated"), 1)
	}
	defer func() { rewriteHook = nil }()
	small, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := envs.BuiltinMap(ssd.Gathering, envs.DefaultMap(ssd.Gathering)); m.Height < 15 {
		t.Fatalf("the default map has %d rows: the test needs one of 15 or more", m.Height)
	}
	if small.Height >= 15 {
		t.Fatalf("the small map has %d rows: the test needs fewer than 15", small.Height)
	}
	run := envs.Config{Map: small, Agents: 2, MaxSteps: 60}
	disagree := func(what string, err error) {
		t.Helper()
		var pe *PolicyError
		if !errors.As(err, &pe) || !errors.Is(err, ErrDisagree) || pe.Step != 5 || pe.Agent != 1 {
			t.Fatalf("%s: got %v, want the backends to disagree at step 5, agent 1", what, err)
		}
	}

	// The default map: admitted, the backends compared and agreeing.
	sb := newSandbox(t, Native)
	p, rep, err := sb.CheckReport(ctx, []byte(heightGated), ssd.Gathering)
	if err != nil || !slices.Equal(rep.Compared, []Backend{Native, Yaegi}) {
		t.Fatalf("on the default map: %v, %+v", err, rep)
	}
	keepForClose(p)

	// The run's map: refused.
	sbRun := newSandbox(t, Native, func(c *Config) { c.AdmissionEnv = run })
	_, _, err = sbRun.CheckReport(ctx, []byte(heightGated), ssd.Gathering)
	disagree("admission on the run's map", err)
	// The refusal names the line each backend chose its action at.
	if !strings.Contains(err.Error(), "both returned from line 7 (after 2 and 2 statements)") {
		t.Fatalf("the refusal does not name the policy's line: %v", err)
	}

	// A yaegi program compared on the small map, as play does.
	sy := newSandbox(t, Yaegi)
	py, err := sy.Compile(ctx, []byte(heightGated))
	if err != nil {
		t.Fatal(err)
	}
	defer py.Close()
	_, err = sy.CrossCheck(ctx, py, run, CrossSeed([]byte(heightGated), 0))
	disagree("CrossCheck on the small map", err)
	res, err := py.SelfPlay(ctx, run, envs.Options{Seed: 3, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sy.CompareEpisode(ctx, py, run, res)
	disagree("CompareEpisode of a played episode", err)

	// Off: nothing compared, and the report says why.
	sOff := newSandbox(t, Yaegi, func(c *Config) { c.SkipCrossCheck = true })
	pOff, err := sOff.Compile(ctx, []byte(heightGated))
	if err != nil {
		t.Fatal(err)
	}
	defer pOff.Close()
	rep, err = sOff.CrossCheck(ctx, pOff, run, 0)
	if err != nil || rep.CrossNote == "" || len(rep.Compared) != 1 {
		t.Fatalf("cross-check off: %v, %+v", err, rep)
	}
}

// TestCrossCheckNamesLine: a refusal of the cross-check names the line
// after which the two backends' paths through the differing step part,
// and the lines each returned from.
func TestCrossCheckNamesLine(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot run under the race detector")
	}
	const src = `package policy

import "ssd"

func Policy(v *ssd.View, agent int) int {
	x := 0
	if v.Step() == 5 && agent == 1 {
		x = 1
	}
	if x == 1 {
		return ssd.RotateLeft
	}
	return ssd.Stand
}
`
	rewriteHook = func(b []byte) []byte { return bytes.Replace(b, []byte("x = 1\n"), []byte("x = 2\n"), 1) }
	defer func() { rewriteHook = nil }()
	sb := newSandbox(t, Native)
	_, _, err := sb.CheckReport(context.Background(), []byte(src), ssd.Gathering)
	var pe *PolicyError
	want := "the two part after line 10 (statement 5 of the step): the native backend goes on to line 11, the yaegi backend to line 13; " +
		"the native backend returned from line 11, the yaegi backend from line 13"
	if !errors.As(err, &pe) || !errors.Is(err, ErrDisagree) || pe.Step != 5 || pe.Agent != 1 || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a disagreement at step 5, agent 1, saying %q", err, want)
	}
}
