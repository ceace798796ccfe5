package grammar

import (
	"context"
	"testing"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestEvaluatorInvasion: with Residents, a genome plays agents 0…K−1
// among them (its episodes are not its self-play's) and scores its own
// agents' mean return.
func TestEvaluatorInvasion(t *testing.T) {
	ctx := context.Background()
	g := Genome{Game: ssd.Gathering, Harvest: Harvest{Kind: Nearest, Nearest: NearestParams{Margin: 1}},
		Aggression: Aggression{Kind: Never}, Cleaning: Cleaning{Kind: NoCleaning}}
	coop, err := envs.Builtin("coop")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3} {
		ev := searchEvaluator(t, 1)
		ev.Residents, ev.Invaders = coop, k
		got, err := ev.Score(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ev.Play(ctx, g, ev.Seeds)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for _, r := range res {
			if len(r.Returns) != 4 {
				t.Fatalf("%d returns, want 4 agents", len(r.Returns))
			}
			for _, x := range r.Returns[:k] {
				want += x / float64(k*len(res))
			}
		}
		if got != want {
			t.Errorf("k = %d: score %v, want the invaders' mean return %v", k, got, want)
		}
		// The residents played: the episodes differ from the genome's
		// self-play.
		selfRes, err := searchEvaluator(t, 1).Play(ctx, g, ev.Seeds)
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for i := range res {
			for a := range res[i].Returns {
				same = same && res[i].Returns[a] == selfRes[i].Returns[a]
			}
		}
		if same {
			t.Errorf("k = %d: the same returns as the genome's self-play: the residents did not play", k)
		}
	}
}
