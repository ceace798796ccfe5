package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"policyevolve/envs"
	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// wireExecutor plays episodes as a remote worker would: the episode.Episode and
// its result cross a JSON encoding, the episode is validated and played
// on a Local of its own, and the result is checked.
type wireExecutor struct {
	local  *episode.Local
	played *atomic.Int64
}

func (w wireExecutor) Play(ctx context.Context, ep *episode.Episode) (*envs.Result, error) {
	w.played.Add(1)
	data, err := json.Marshal(ep)
	if err != nil {
		return nil, err
	}
	var got episode.Episode
	if err := json.Unmarshal(data, &got); err != nil {
		return nil, err
	}
	if err := got.Validate(); err != nil {
		return nil, err
	}
	if got.ID() != ep.ID() {
		return nil, errors.New("the episode's id changed on the wire")
	}
	res, err := w.local.Play(ctx, &got)
	out, err := episode.NewResult(got.ID(), res, err)
	if err != nil {
		return nil, err
	}
	if data, err = json.Marshal(out); err != nil {
		return nil, err
	}
	var back episode.Result
	if err := json.Unmarshal(data, &back); err != nil {
		return nil, err
	}
	if err := back.Check(ep); err != nil {
		return nil, err
	}
	return back.Played()
}

// records is what an Arena stored of its evaluations and matches, with
// the times left out.
func records(t *testing.T, a *Arena, ids []string) string {
	t.Helper()
	var b strings.Builder
	err := a.Store.View(func(tx *store.Tx) error {
		for _, id := range ids {
			ev, err := tx.Evaluation(id, a.Env.Config, a.EvalSeeds)
			if err != nil {
				return err
			}
			data, _ := json.Marshal(struct {
				Status, Error string
				PerSeed       []store.SeedResult
				Mean          store.Metrics
			}{ev.Status, ev.Error, ev.PerSeed, ev.Mean})
			fmt.Fprintf(&b, "evaluation %.8s %s\n", id, data)
			ms, err := tx.MatchesOf(id)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if m.A == id {
					fmt.Fprintf(&b, "match %.8s %.8s %d: %v %v %v %q\n", m.A, m.B, m.Seed, m.ScoreA, m.ScoreB, m.Outcome, m.Error)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestExecutorGivesTheSameRecords: an Arena whose episodes cross the wire
// to an executor of their own (as to a remote worker) stores the same
// evaluations and matches, failures included, as one that plays them
// itself.
func TestExecutorGivesTheSameRecords(t *testing.T) {
	late := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif v.Step() == 120 {\n\t\tpanic(\"late\")\n\t}\n\treturn v.GreedyAction(agent)\n}\n"
	bad := "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif agent == 1 && v.Step() == 30 {\n\t\treturn 99\n\t}\n\treturn v.GreedyAction(agent)\n}\n"
	var got []string
	var played atomic.Int64
	for _, remote := range []bool{false, true} {
		a := newArena(t)
		a.MatchSeeds = []uint64{0, 3}
		if remote {
			sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Native, CacheDir: sharedCache})
			if err != nil {
				t.Fatal(err)
			}
			local := &episode.Local{Sandbox: sb, MaxPrograms: 1}
			t.Cleanup(local.Close)
			a.Executor = wireExecutor{local, &played}
		}
		t.Cleanup(a.Close)
		ctx := context.Background()
		if err := a.EnsureBaselines(ctx); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, src := range []string{string(example(t, "voronoi")), late, bad} {
			p := &store.Policy{Source: src}
			if err := a.Store.Update(func(tx *store.Tx) (err error) { _, err = tx.PutPolicy(p); return err }); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
			if _, err := a.Evaluate(ctx, p.ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.League(ctx, append(ids, store.SourceID(episode.BuiltinSource("exploit"))), a.MatchSeeds); err != nil {
			t.Fatal(err)
		}
		got = append(got, records(t, a, ids))
	}
	if got[0] != got[1] {
		t.Fatalf("played here:\n%s\nacross the wire:\n%s", got[0], got[1])
	}
	// The baselines' and three policies' evaluations on two seeds, a
	// league of four on two seeds (two episodes a match).
	if want := int64(7*2 + 6*2*2); played.Load() != want {
		t.Errorf("%d episodes crossed the wire, want %d", played.Load(), want)
	}
	for _, want := range []string{"panic at step 120", "invalid action at step 30 (agent 1)", `"ok"`} {
		if !strings.Contains(got[0], want) {
			t.Errorf("the records lack %q:\n%s", want, got[0])
		}
	}
}

func TestEpisodeValidate(t *testing.T) {
	a := newArena(t)
	p := &store.Policy{Source: string(example(t, "bfs"))}
	a.Store.Update(func(tx *store.Tx) (err error) { _, err = tx.PutPolicy(p); return err })
	a.EnsureBaselines(context.Background())
	good, err := a.episode([]string{p.ID, store.SourceID(episode.BuiltinSource("coop"))}, []int{0, 1, 0, 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good episode: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(e *episode.Episode)
		want string
	}{
		{"game", func(e *episode.Episode) { e.Env.Game = "chess" }, "chess"},
		{"agents", func(e *episode.Episode) { e.Env.Agents = 1000 }, "1000 agents"},
		{"steps", func(e *episode.Episode) { e.Env.MaxSteps = 0 }, "0 steps"},
		{"seats", func(e *episode.Episode) { e.Side = e.Side[:3] }, "3 seats"},
		{"seat", func(e *episode.Episode) { e.Side[2] = 5 }, "played by policy 5"},
		{"idle", func(e *episode.Episode) { e.Side = []int{0, 0, 0, 0} }, "plays no agent"},
		{"map", func(e *episode.Episode) { e.Env.MapText = "@@@\n@x@" }, "unexpected character"},
		{"source", func(e *episode.Episode) { e.Policies[0].Source += "// changed\n" }, "does not hash"},
		{"builtin", func(e *episode.Episode) {
			e.Policies[1] = episode.Policy{ID: store.SourceID(episode.BuiltinSource("nope")), Builtin: "nope", Source: episode.BuiltinSource("nope")}
		}, "unknown policy"},
		{"backend", func(e *episode.Episode) { e.Limits.Backend = "wasm" }, "backend"},
	} {
		data, _ := json.Marshal(good)
		var e episode.Episode
		json.Unmarshal(data, &e)
		c.edit(&e)
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	// The id is a content address: the same content, the same id; any
	// change, another.
	again, _ := a.episode([]string{p.ID, store.SourceID(episode.BuiltinSource("coop"))}, []int{0, 1, 0, 1}, 3)
	other, _ := a.episode([]string{p.ID, store.SourceID(episode.BuiltinSource("coop"))}, []int{0, 1, 0, 1}, 4)
	if good.ID() != again.ID() || good.ID() == other.ID() {
		t.Fatalf("ids %s %s %s", good.ID(), again.ID(), other.ID())
	}
}

func TestEpisodeResultCheck(t *testing.T) {
	a := newArena(t)
	a.EnsureBaselines(context.Background())
	ep, err := a.episode([]string{store.SourceID(episode.BuiltinSource("bfs"))}, []int{0, 0, 0, 0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.local.Play(context.Background(), ep)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := episode.NewResult(ep.ID(), res, nil)
	if err := good.Check(ep); err != nil {
		t.Fatalf("a good result: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(o *episode.Result)
		want string
	}{
		{"job", func(o *episode.Result) { o.Job = "abc" }, "another episode"},
		{"steps", func(o *episode.Result) { o.Steps = 201 }, "201 steps"},
		{"short", func(o *episode.Result) { o.Steps = 100 }, "without a failure"},
		{"returns", func(o *episode.Result) { o.Returns = o.Returns[:3] }, "3 returns"},
		{"huge", func(o *episode.Result) { o.Returns[0] = 1e12 }, "beyond"},
		{"efficiency", func(o *episode.Result) { o.Metrics.Efficiency = 1e9 }, "efficiency"},
		{"peace", func(o *episode.Result) { o.Metrics.Peace = 5 }, "peace"},
		{"agent", func(o *episode.Result) { o.Failure = &episode.Failure{Message: "x", Agents: []int{4}, Actor: true} }, "agent 4"},
		{"message", func(o *episode.Result) { o.Failure = &episode.Failure{} }, "without a message"},
	} {
		o := *good
		o.Returns = append([]float64(nil), good.Returns...)
		c.edit(&o)
		if err := o.Check(ep); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
