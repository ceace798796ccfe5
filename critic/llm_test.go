package critic_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/envs/ssd"
)

// fakeModel is a Model whose answer a test chooses.
type fakeModel struct {
	generate func(ctx context.Context, system, user string) (string, error)
}

func (f *fakeModel) Generate(ctx context.Context, system, user string) (string, error) {
	return f.generate(ctx, system, user)
}

const testSource = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return v.GreedyAction(agent) }\n"

// TestPromptGolden pins the LLM critic's messages for both games; every
// number in them comes from the diagnostics and the game's parameters.
func TestPromptGolden(t *testing.T) {
	for _, game := range []ssd.Game{ssd.Gathering, ssd.Cleanup} {
		d := diagnose(t, selfPlay(t, game, "bfs")...)
		system, user, err := critic.Prompt(d, testSource, 3)
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "prompt/"+game.String()+"_system.golden", []byte(system))
		checkGolden(t, "prompt/"+game.String()+"_user.golden", []byte(user))
		if !strings.Contains(user, testSource) || !strings.Contains(system, "at most 3 findings") {
			t.Errorf("%s: prompt lacks the source or the count", game)
		}
	}
}

func TestLLMCritic(t *testing.T) {
	d := diagnose(t, selfPlay(t, ssd.Cleanup, "random")...)
	analytic := critic.Analytic{Max: 3}.Reflect(d)
	wantSystem, wantUser, err := critic.Prompt(d, testSource, 3)
	if err != nil {
		t.Fatal(err)
	}
	good := "Here is my analysis.\n```json\n[{\"code\": \"Friendly Fire\", \"text\": \"Agents beam each other.\", \"stake\": 5},\n" +
		" {\"code\": \"waste\", \"text\": \"The river  stays\\ndirty.\", \"stake\": 40}]\n```\n"
	for _, c := range []struct {
		name         string
		answer       string
		err          error
		wantBy       string
		wantFallback string
		want         []critic.Reflection
	}{
		{"a good answer", good, nil, "llm:fake:m", "", []critic.Reflection{
			{Code: "waste", Text: "The river stays dirty.", Stake: 40}, {Code: "friendly-fire", Text: "Agents beam each other.", Stake: 5}}},
		{"the call fails", "", errors.New("HTTP 503"), "analytic", "the LLM call failed: HTTP 503", analytic},
		{"no JSON", "I think the policy is fine.", nil, "analytic", "the LLM's answer was unusable: no JSON array", analytic},
		{"a reflection without a stake", "[{\"code\": \"x\", \"text\": \"y\"}]", nil, "analytic", "reflection 1 has no stake", analytic},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := &fakeModel{generate: func(_ context.Context, system, user string) (string, error) {
				if system != wantSystem || user != wantUser {
					t.Error("the model was not shown the critic's prompt")
				}
				return c.answer, c.err
			}}
			rep, err := (&critic.LLM{Model: model, Name: "fake:m", Max: 3}).Critique(context.Background(), d, testSource)
			if err != nil {
				t.Fatal(err)
			}
			if rep.By != c.wantBy || !strings.Contains(rep.Fallback, c.wantFallback) || (c.wantFallback == "") != (rep.Fallback == "") {
				t.Errorf("by %q, fallback %q; want %q, %q", rep.By, rep.Fallback, c.wantBy, c.wantFallback)
			}
			if !equalReflections(rep.Reflections, c.want) {
				t.Errorf("reflections %+v, want %+v", rep.Reflections, c.want)
			}
		})
	}
	t.Run("a cancelled context is an error, not a fallback", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		model := &fakeModel{generate: func(ctx context.Context, _, _ string) (string, error) {
			cancel()
			return "", ctx.Err()
		}}
		if _, err := (&critic.LLM{Model: model}).Critique(ctx, d, testSource); !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
	t.Run("no model", func(t *testing.T) {
		rep, err := (&critic.LLM{}).Critique(context.Background(), d, testSource)
		if err != nil || rep.By != "analytic" || rep.Fallback == "" || len(rep.Reflections) == 0 {
			t.Fatalf("report %+v, error %v", rep, err)
		}
	})
}

func equalReflections(a, b []critic.Reflection) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseReflections(t *testing.T) {
	one := []critic.Reflection{{Code: "idle", Text: "Stands.", Stake: 2}}
	for _, c := range []struct {
		name, answer string
		want         []critic.Reflection
		err          string
	}{
		{"bare array", `[{"code":"idle","text":"Stands.","stake":2}]`, one, ""},
		{"wrapped", `{"reflections":[{"code":"idle","text":"Stands.","stake":2}]}`, one, ""},
		{"prose around an unlabelled fence", "Sure.\n```\n[{\"code\":\"idle\",\"text\":\"Stands.\",\"stake\":2}]\n```\nDone [1].", one, ""},
		{"a broken block before a good one", "```json\n[{oops\n```\n```json\n[{\"code\":\"idle\",\"text\":\"Stands.\",\"stake\":2}]\n```", one, ""},
		{"codes normalised, ranks by stake, max kept", `[{"code":"","text":"a","stake":1},{"code":"  Too MANY__beams!! ","text":"b","stake":3},{"code":"c","text":"c","stake":2},{"code":"d","text":"d","stake":0}]`,
			[]critic.Reflection{{Code: "too-many-beams", Text: "b", Stake: 3}, {Code: "c", Text: "c", Stake: 2}, {Code: "llm", Text: "a", Stake: 1}}, ""},
		{"nothing", "The policy looks fine to me.", nil, "no JSON array"},
		{"empty array", "[]", nil, "no reflections"},
		{"no text", `[{"code":"x","text":"  ","stake":1}]`, nil, "no text"},
		{"negative stake", `[{"code":"x","text":"y","stake":-1}]`, nil, "stake -1"},
		{"stake in words", `[{"code":"x","text":"y","stake":"high"}]`, nil, "does not parse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := critic.ParseReflections(c.answer, 3)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !equalReflections(got, c.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func FuzzParseReflections(f *testing.F) {
	for _, s := range []string{
		`[{"code":"idle","text":"Stands.","stake":2}]`,
		"```json\n[{\"code\":\"a b\",\"text\":\"t\",\"stake\":1e300}]\n```",
		`{"reflections":[{"code":"x","text":"y","stake":0}]}`,
		"prose [ ] { } ```",
		`[{"code":"` + strings.Repeat("é", 60) + `","text":"` + strings.Repeat("ü", 900) + `","stake":1}]`,
	} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, answer string, max int) {
		refl, err := critic.ParseReflections(answer, max)
		if err != nil {
			return
		}
		limit := max
		if limit <= 0 {
			limit = critic.DefaultMax
		}
		if len(refl) == 0 || len(refl) > limit {
			t.Fatalf("%d reflections for max %d", len(refl), max)
		}
		for i, r := range refl {
			if r.Text == "" || len(r.Text) > 800 || r.Code == "" || len(r.Code) > 40 || strings.Trim(r.Code, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
				t.Fatalf("bad reflection %+v", r)
			}
			if math.IsNaN(r.Stake) || math.IsInf(r.Stake, 0) || r.Stake < 0 || (i > 0 && r.Stake > refl[i-1].Stake) {
				t.Fatalf("stakes %+v", refl)
			}
		}
	})
}
