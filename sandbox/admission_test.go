package sandbox

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"policyevolve/envs/ssd"
)

// TestAdmissionSeeds: admission's seeds are never the fixed 0 and 1 of
// old; they differ from check to check and from policy to policy, change
// with the key, and stay the same for one key (a repeated or resumed run
// meets the same seeds); the machine's key is kept and read back.
func TestAdmissionSeeds(t *testing.T) {
	a := newSandbox(t, Yaegi, func(c *Config) { c.AdmissionKey = []byte("a") })
	a2 := newSandbox(t, Yaegi, func(c *Config) { c.AdmissionKey = []byte("a") })
	b := newSandbox(t, Yaegi, func(c *Config) { c.AdmissionKey = []byte("b") })
	seen := map[uint64]string{}
	for _, id := range []string{"p1", "p2"} {
		for _, check := range []string{"smoke", "episode", "between 0"} {
			s := a.admissionSeed(id, check)
			if s == 0 || s == 1 {
				t.Errorf("%s %s: seed %d", id, check, s)
			}
			if prev, ok := seen[s]; ok {
				t.Errorf("%s %s: the same seed as %s", id, check, prev)
			}
			seen[s] = id + " " + check
			if a2.admissionSeed(id, check) != s {
				t.Errorf("%s %s: another seed with the same key", id, check)
			}
			if b.admissionSeed(id, check) == s {
				t.Errorf("%s %s: the same seed with another key", id, check)
			}
		}
	}
	cache := t.TempDir()
	m1 := newSandbox(t, Yaegi, func(c *Config) { c.CacheDir = cache })
	m2 := newSandbox(t, Yaegi, func(c *Config) { c.CacheDir = cache })
	if m1.admissionSeed("p", "smoke") != m2.admissionSeed("p", "smoke") {
		t.Error("two sandboxes of one machine draw different seeds")
	}
}

// episodeCounter counts the episodes its worker played in a variable the
// reset zeroes, and stands still late in the fifth and later ones.
const episodeCounter = `package policy

import "ssd"

var episodes int

func Policy(v *ssd.View, agent int) int {
	if v.Step() == 0 && agent == 0 {
		episodes++
	}
	if episodes >= 5 && v.Step() > 60 {
		return ssd.Stand
	}
	return v.GreedyAction(agent)
}
`

// TestWholeEpisodeAfterOthers: a policy whose state survives from
// episode to episode (here the reset is broken on purpose: a stand-in for
// a way around it no one has found yet) and that behaves for its first
// four episodes in a worker is refused by admission, which plays its
// whole episode in a fresh worker and again after other episodes in the
// same worker; with the reset intact it is admitted.
func TestWholeEpisodeAfterOthers(t *testing.T) {
	if raceEnabled {
		t.Skip("the yaegi worker cannot run under the race detector")
	}
	sb := newSandbox(t, Yaegi, func(c *Config) { c.SkipCrossCheck = true; c.AdmissionSteps = 100 })
	ctx := context.Background()
	p, rep, err := sb.CheckReport(ctx, []byte(episodeCounter), ssd.Gathering)
	if err != nil {
		t.Fatalf("with the reset: %v", err)
	}
	p.Close()
	if rep.Seed != sb.admissionSeed(p.ID, "smoke") || rep.EpisodeSeed != sb.admissionSeed(p.ID, "episode") {
		t.Errorf("seeds played %d and %d, want the admission seeds", rep.Seed, rep.EpisodeSeed)
	}
	rewriteHook = func(b []byte) []byte {
		out := bytes.Replace(b, []byte("episodes = "+reservedPrefix+"zero"), []byte("_ = "+reservedPrefix+"zero"), 1)
		if bytes.Equal(out, b) {
			t.Error("the hook found no reset of episodes to break")
		}
		return out
	}
	defer func() { rewriteHook = nil }()
	_, _, err = sb.CheckReport(ctx, []byte(episodeCounter), ssd.Gathering)
	var pe *PolicyError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNondeterministic) || pe.Step != 61 ||
		!strings.Contains(err.Error(), "in a fresh worker and after 4 other episodes") {
		t.Fatalf("with the reset broken: %v, want it refused as not deterministic at step 61", err)
	}
}
