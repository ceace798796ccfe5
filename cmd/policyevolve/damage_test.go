package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"policyevolve/store"
)

// damageFixture writes a store as the commands leave one, big enough to
// have branch pages and records over several pages: a league of the
// baselines (played by the league command), then through the store's API
// a run with iterations, 40 source policies with their evaluations,
// matches, critiques and a local pool, and a few LLM calls. It returns the
// store's path, a policy id and the run id.
func damageFixture(t *testing.T) (path, policy, run string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "sound.db")
	env := store.EnvConfig{Game: "gathering", Map: "small", Agents: 4, MaxSteps: 50}
	cli(t, "league", "--store", path, "--map", "small", "--agents", "4", "--steps", "50")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", "voronoi.go"))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx *store.Tx) error {
		members, err := tx.Members(store.PoolKey{Env: env, Objective: "welfare"}.String()) // league's default objective
		if err != nil || len(members) < 2 {
			return fmt.Errorf("the league left %d members: %v", len(members), err)
		}
		evs, err := tx.EvaluationsOf(members[0].Policy)
		if err != nil || len(evs) == 0 {
			return fmt.Errorf("the league left %d evaluations of a member: %v", len(evs), err)
		}
		base := &evs[0]
		r := &store.Run{Mode: "population", Seed: 1, Status: store.StatusStopped, Config: []byte(`{"game":"gathering"}`)}
		if err := tx.CreateRun(r); err != nil {
			return err
		}
		run = r.ID
		var parent string
		for i := range 40 {
			p := &store.Policy{Source: fmt.Sprintf("%s\n// variant %d\n", src, i),
				Origin: store.Origin{Run: run, Iteration: i / 4, Operator: "improve", Planner: "grammar"}}
			if parent != "" {
				p.Origin.Parents = []string{parent}
			}
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
			parent, policy = p.ID, p.ID
			ev := *base
			ev.Policy = p.ID
			if err := tx.PutEvaluation(&ev); err != nil {
				return err
			}
			for _, m := range members {
				if err := tx.PutMatch(&store.Match{A: p.ID, B: m.Policy, Env: env, ScoreA: float64(i), ScoreB: 3, Outcome: 1}); err != nil {
					return err
				}
			}
			if err := tx.AddMember(&store.Member{Policy: p.ID, Pool: store.LocalPool(run, i/4), Reason: "candidate"}); err != nil {
				return err
			}
			if err := tx.AddCritique(&store.Critique{Run: run, Policy: p.ID, Source: "analytic", Iteration: i / 4,
				Text: strings.Repeat(fmt.Sprintf("reflection %d on this policy. ", i), 30)}); err != nil {
				return err
			}
		}
		for i := range 10 {
			it := &store.Iteration{Run: run, Index: i, Done: true, Champion: policy, Started: time.Now().UTC(),
				Plan:       []store.PlannedCandidate{{Operator: "improve", Planner: "grammar", Parents: []string{policy}}},
				Candidates: []store.Candidate{{Policy: policy, Status: store.CandidateRejected, Attempts: 1}}}
			if err := tx.PutIteration(it); err != nil {
				return err
			}
			if err := tx.AddLLMCall(&store.LLMCall{Run: run, Provider: "replay", Model: "x", Prompt: strings.Repeat("prompt ", 800),
				Answer: string(src), Key: fmt.Sprint(i)}); err != nil {
				return err
			}
		}
		r.Iterations, r.Champion = 10, policy
		return tx.PutRun(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := s.Check(); err != nil || len(problems) > 0 {
		t.Fatalf("the fixture fails its check: %v %v", problems, err)
	}
	return path, policy, run
}

// bucketRoots returns the page ids of the root bucket and of each bucket
// of the store's root that has a page of its own, read from a bbolt file
// of 4 KiB pages (meta page 0 or 1, then the root page's leaf elements),
// and the bytes the pages in use take.
func bucketRoots(t *testing.T, data []byte) (root, freelist, used uint64, buckets map[string]uint64) {
	t.Helper()
	const ps = 4096
	ne := binary.NativeEndian
	m := 16 + ps // meta page 1, when its transaction is the newer
	if ne.Uint64(data[16+48:]) > ne.Uint64(data[m+48:]) {
		m = 16
	}
	root, freelist, used = ne.Uint64(data[m+16:]), ne.Uint64(data[m+32:]), ne.Uint64(data[m+40:])*ps
	page := data[root*ps:]
	buckets = map[string]uint64{}
	for i := range int(ne.Uint16(page[10:])) {
		e := 16 + 16*i
		pos, ksize := int(ne.Uint32(page[e+4:])), int(ne.Uint32(page[e+8:]))
		key := page[e+pos : e+pos+ksize]
		if id := ne.Uint64(page[e+pos+ksize:]); id != 0 {
			buckets[string(key)] = id
		}
	}
	if buckets["policies"] == 0 {
		t.Fatalf("the policies bucket has no page of its own: %v", buckets)
	}
	return root, freelist, used, buckets
}

// TestDamagedStores damages a sound store in many ways — empty, random
// bytes, not a store, truncated at several lengths, meta pages garbled,
// page headers flipped, random bits flipped — and runs every command that
// reads the store on each. None may panic or print anything but "the store
// is damaged: … (store check for details)" with exit status 1 (or
// succeed, where the damage is in a part the command does not read);
// store check lists the problems, exit 1; store compact never replaces a
// damaged file, nor makes an empty one a store.
func TestDamagedStores(t *testing.T) {
	sound, policy, run := damageFixture(t)
	data, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	root, freelist, used, buckets := bucketRoots(t, data)
	const ps = 4096
	flip := func(page uint64, offset int, mask byte) func([]byte) []byte {
		return func(b []byte) []byte { b[int(page)*ps+offset] ^= mask; return b }
	}
	const (
		all   = iota // every command fails
		check        // store check fails; the others may not read the damage
		some         // the damage may be harmless: no command may fail otherwise than said
	)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed: %d", seed)
	rng := rand.New(rand.NewPCG(seed, 23))
	cases := []struct {
		name   string
		damage func([]byte) []byte
		expect int
		reads  []string // commands that must fail too (for check)
	}{
		{"empty", func([]byte) []byte { return nil }, all, nil},
		{"random bytes", func(b []byte) []byte {
			r := rand.New(rand.NewPCG(1, 2))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		}, all, nil},
		{"a text file", func(b []byte) []byte { return []byte(strings.Repeat("not a store\n", 3000)) }, all, nil},
		{"truncated to one page", func(b []byte) []byte { return b[:ps] }, all, nil},
		{"truncated to 100 bytes", func(b []byte) []byte { return b[:100] }, all, nil},
		{"truncated to a quarter", func(b []byte) []byte { return b[:len(b)/4] }, all, nil},
		{"truncated by half", func(b []byte) []byte { return b[:len(b)/2] }, all, nil},
		{"the last page in use cut off", func(b []byte) []byte { return b[:used-ps] }, all, nil},
		{"the last byte in use cut off", func(b []byte) []byte { return b[:used-1] }, all, nil},
		{"both meta pages garbled", func(b []byte) []byte {
			for i := 16; i < 80; i++ {
				b[i] ^= 0x5a
				b[ps+i] ^= 0x5a
			}
			return b
		}, all, nil},
		{"root page type", flip(root, 8, 0x40), all, nil},
		{"root page count", flip(root, 11, 0x80), all, nil},
		{"root page id", flip(root, 2, 0x01), all, nil},
		{"root page keys", func(b []byte) []byte {
			for i := 16; i < ps; i++ {
				b[int(root)*ps+i] ^= 0xff
			}
			return b
		}, all, nil},
		{"freelist page type", flip(freelist, 8, 0x40), check, []string{"store compact"}},
		{"policies page type", flip(buckets["policies"], 8, 0x40), check, []string{"pool show", "pool export", "report"}},
		{"policies page count", flip(buckets["policies"], 11, 0x80), check, []string{"pool show", "pool export", "report"}},
		{"matches page count", flip(buckets["matches"], 11, 0x80), check, nil},
		// A record names a policy the store does not hold (a bit flipped
		// in its value, say): the pages pass their walk, the record
		// decodes, and the commands that follow the name must say the
		// store is damaged, not that the policy does not exist.
		{"a candidate names no policy", func(b []byte) []byte {
			ref := []byte(`"candidates":[{"sample":0,"policy":"` + policy)
			if bytes.Count(b, ref) == 0 {
				t.Fatal("no iteration's candidate names the policy in the file")
			}
			for at := bytes.Index(b, ref); at >= 0; at = bytes.Index(b, ref) {
				last := at + len(ref) - 1 // the policy id's last digit
				b[last] = map[bool]byte{true: '1', false: '0'}[b[last] == '0']
			}
			return b
		}, check, []string{"runs show", "report"}},
	}
	for i := range 6 {
		off := 2*ps + rng.IntN(len(data)-2*ps)
		bit := byte(1) << rng.IntN(8)
		cases = append(cases, struct {
			name   string
			damage func([]byte) []byte
			expect int
			reads  []string
		}{fmt.Sprintf("bit %d of byte %d (%d)", bit, off, i), func(b []byte) []byte { b[off] ^= bit; return b }, some, nil})
	}
	commands := map[string][]string{
		"pool ls":       {"pool", "ls", "--game", "gathering", "--map", "small", "--agents", "4"},
		"pool show":     {"pool", "show", policy[:12]},
		"pool lineage":  {"pool", "lineage", policy[:12]},
		"pool export":   {"pool", "export", policy[:12]},
		"runs ls":       {"runs", "ls"},
		"runs show":     {"runs", "show", run},
		"report":        {"report", run, "-o", "REPORT"},
		"league":        {"league", "--map", "small", "--agents", "4", "--steps", "50"},
		"store check":   {"store", "check"},
		"store compact": {"store", "compact"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "damaged.db")
			damaged := c.damage(append([]byte(nil), data...))
			failed := 0
			for name, args := range commands {
				if err := os.WriteFile(path, damaged, 0o644); err != nil {
					t.Fatal(err)
				}
				args := append(append([]string(nil), args...), "--store", path)
				for i, a := range args {
					if a == "REPORT" {
						args[i] = filepath.Join(dir, "report.html")
					}
				}
				code, out, errOut := runCLI(t, context.Background(), args...)
				if after, _ := os.ReadFile(path); code != 0 && string(after) != string(damaged) {
					t.Errorf("%s changed the damaged file, and failed", name)
				}
				mustFail := c.expect == all || (c.expect == check && name == "store check")
				for _, r := range c.reads {
					mustFail = mustFail || r == name
				}
				switch {
				case strings.Contains(errOut+out, "goroutine ") || strings.Contains(errOut, "panic"):
					t.Errorf("%s: exit %d with a stack trace:\n%s", name, code, errOut)
				case code == 0 && mustFail:
					t.Errorf("%s: exit 0 on the damaged store, want 1", name)
				case code == 0:
				case code != 1 || !strings.Contains(errOut, "the store is damaged: "):
					t.Errorf("%s: exit %d, %q; want exit 1 and \"the store is damaged: …\"", name, code, errOut)
				case name == "store check" && !strings.Contains(errOut, "problem"):
					t.Errorf("store check: %q does not count the problems", errOut)
				case name == "store check" && strings.TrimSpace(out) == "":
					t.Errorf("store check listed no problem; stderr %q", errOut)
				case name != "store check" && !strings.Contains(errOut, "(store check for details)"):
					t.Errorf("%s: %q does not point at store check", name, errOut)
				default:
					failed++
				}
				if code == 0 && name == "store compact" && c.expect != some {
					t.Errorf("store compact replaced a damaged store")
				}
			}
			if c.expect == all && failed != len(commands) {
				t.Errorf("%d of %d commands reported the damage", failed, len(commands))
			}
		})
	}
}
