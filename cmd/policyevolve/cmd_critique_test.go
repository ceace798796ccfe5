package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"policyevolve/critic"
	"policyevolve/evolve/episode"
	"policyevolve/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// critiqueJSON runs "critique … --json" and decodes its output.
func critiqueJSON(t *testing.T, args ...string) critiqueOutput {
	t.Helper()
	out, _ := cli(t, append(append([]string{"critique"}, args...), "--json")...)
	var c critiqueOutput
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("critique --json: %v\n%s", err, out)
	}
	return c
}

// renderCritique is the reflections and table, as the critic's golden
// files hold them.
func renderCritique(t *testing.T, c critiqueOutput) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := critic.WriteReflections(&b, c.Critique.Reflections); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(&b)
	if err := c.Diagnostics.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCritiqueExamples: the example sources, run in the sandbox on the
// paper's maps, get the reflections of the built-ins they write out (the
// critic's golden files); voronoi.go has golden files of its own.
func TestCritiqueExamples(t *testing.T) {
	for _, game := range []string{"gathering", "cleanup"} {
		for _, name := range []string{"bfs", "exploit", "coop", "voronoi"} {
			t.Run(game+"_"+name, func(t *testing.T) {
				file := filepath.Join("..", "..", "examples", "policies", name+".go")
				c := critiqueJSON(t, file, "--game", game, "--seeds", "0-2", "--backend", "native", "--step-timeout", "1m")
				if c.Critique.By != "analytic" || c.Diagnostics.Episodes != 3 || c.Stored != 0 {
					t.Fatalf("critique %+v", c)
				}
				got := renderCritique(t, c)
				golden := filepath.Join("..", "..", "critic", "testdata", "critique", game+"_"+name+".golden")
				if name == "voronoi" {
					golden = filepath.Join("testdata", "critique", game+"_"+name+".golden")
					if *update {
						os.MkdirAll(filepath.Dir(golden), 0o755)
						if err := os.WriteFile(golden, got, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test ./cmd/policyevolve -run CritiqueExamples -update writes voronoi's)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s; got:\n%s", file, golden, got)
				}
			})
		}
	}
}

// TestCritiqueStored: with a store id the critique is stored with its
// level, environment, seeds, diagnostics and reflections.
func TestCritiqueStored(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", "exploit.go"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	coop := &store.Policy{Source: episode.BuiltinSource("coop"), Builtin: "coop"}
	exploit := &store.Policy{Source: string(src)}
	if err := s.Update(func(tx *store.Tx) error {
		for _, p := range []*store.Policy{coop, exploit} {
			if _, err := tx.PutPolicy(p); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--store", db, "--game", "gathering", "--map", "small", "--agents", "2", "--steps", "200", "--seeds", "0-1", "--step-timeout", "1m"}
	for k, p := range []*store.Policy{coop, exploit} {
		out, _ := cli(t, append([]string{"critique", p.ID[:8], "--vs", "bfs"}, flags...)...)
		if !strings.Contains(out, fmt.Sprintf("stored as critique %d of policy %.12s", k+1, p.ID)) || !strings.Contains(out, "against bfs") {
			t.Fatalf("output:\n%s", out)
		}
	}
	c := critiqueJSON(t, append([]string{exploit.ID[:8]}, flags...)...)
	err = s.View(func(tx *store.Tx) error {
		all, err := tx.Critiques(exploit.ID)
		if err != nil {
			return err
		}
		if len(all) != 2 {
			return fmt.Errorf("%d critiques of exploit, want 2", len(all))
		}
		got := all[1]
		if got.ID != c.Stored || got.Level != "critic" || got.Source != "analytic" || got.Env.Key() != "gathering/small/2/200" ||
			fmt.Sprint(got.Seeds) != "[0 1]" || len(got.Opponents) != 0 || fmt.Sprint(all[0].Opponents) != "[bfs]" {
			return fmt.Errorf("stored %+v", got)
		}
		var d critic.Diagnostics
		if err := json.Unmarshal(got.Diagnostics, &d); err != nil || d.Episodes != 2 || d.Beams.Fired != c.Diagnostics.Beams.Fired {
			return fmt.Errorf("stored diagnostics %+v, %v", d, err)
		}
		if len(got.Reflections) != len(c.Critique.Reflections) || len(got.Reflections) == 0 || got.Reflections[0].Code != c.Critique.Reflections[0].Code {
			return fmt.Errorf("stored reflections %+v, printed %+v", got.Reflections, c.Critique.Reflections)
		}
		if !strings.Contains(got.Text, got.Reflections[0].Text) {
			return fmt.Errorf("stored text %q", got.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := s.Check(); err != nil || len(problems) > 0 {
		t.Fatalf("store check: %v %v", problems, err)
	}
}

// TestCritiqueLLM: --critic llm uses the model's reflections, and falls
// back to the analytic critic, saying why, when there is no model or its
// answer is unusable.
func TestCritiqueLLM(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pe.db")
	args := []string{"bfs", "--game", "cleanup", "--map", "small", "--agents", "3", "--steps", "200", "--seeds", "0", "--critic", "llm", "--store", db}
	// No model named: a usage error, not a silent analytic answer.
	if code, _, errOut := runCLI(t, context.Background(), append([]string{"critique"}, args...)...); code != 2 || !strings.Contains(errOut, "--llm is required") {
		t.Fatalf("without --llm: exit %d, %q", code, errOut)
	}

	// Through the llm package: an exec: model, recorded in the ledger.
	dir := t.TempDir()
	script := filepath.Join(dir, "critic.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho '[{\"code\": \"clean-more\", \"text\": \"Nobody cleans.\", \"stake\": 9}]'\n"), 0o755)
	c := critiqueJSON(t, append(args, "--llm", "exec:"+script)...)
	if c.Critique.By != "llm:exec:"+script || c.Critique.Fallback != "" || len(c.Critique.Reflections) != 1 {
		t.Fatalf("with an exec: model: %+v", c.Critique)
	}
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls []store.LLMCall
	s.View(func(tx *store.Tx) (err error) {
		calls, err = tx.LLMCalls("")
		return err
	})
	if len(calls) != 1 || calls[0].Purpose != "critic" || !strings.Contains(calls[0].Prompt, "waste over time") {
		t.Fatalf("ledger: %+v", calls)
	}

	defer func(orig func(*critiqueOptions) (critic.Model, string, error)) { critiqueModel = orig }(critiqueModel)
	var asked string
	critiqueModel = func(*critiqueOptions) (critic.Model, string, error) {
		return modelFunc(func(_ context.Context, system, user string) (string, error) {
			asked = user
			return "```json\n[{\"code\": \"clean-more\", \"text\": \"Nobody cleans.\", \"stake\": 9}]\n```", nil
		}), "fake:m", nil
	}
	args = append(args, "--llm", "exec:unused") // the hook replaces the client
	c = critiqueJSON(t, args...)
	if c.Critique.By != "llm:fake:m" || c.Critique.Fallback != "" || len(c.Critique.Reflections) != 1 || c.Critique.Reflections[0].Code != "clean-more" {
		t.Fatalf("with a model: %+v", c.Critique)
	}
	if !strings.Contains(asked, "waste over time") {
		t.Errorf("the model was not shown the diagnostics:\n%s", asked)
	}
	critiqueModel = func(*critiqueOptions) (critic.Model, string, error) {
		return modelFunc(func(context.Context, string, string) (string, error) { return "", errors.New("quota exceeded") }), "fake:m", nil
	}
	out, _ := cli(t, append([]string{"critique"}, args...)...)
	if !strings.Contains(out, "the analytic critic answered: the LLM call failed: quota exceeded") || !strings.Contains(out, "waste-high") {
		t.Fatalf("failed call:\n%s", out)
	}
}

type modelFunc func(ctx context.Context, system, user string) (string, error)

func (f modelFunc) Generate(ctx context.Context, system, user string) (string, error) {
	return f(ctx, system, user)
}

func TestCritiqueBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"critique"}, 2, "want one policy"},
		{[]string{"critique", "bfs", "coop"}, 2, "got 2 arguments"},
		{[]string{"critique", "bfs", "--critic", "oracle"}, 2, "--critic: unknown critic"},
		{[]string{"critique", "bfs", "--game", "chess"}, 2, "unknown game"},
		{[]string{"critique", "bfs", "--seeds", "3-1"}, 2, "--seeds"},
		{[]string{"critique", "bfs", "--agents", "1", "--vs", "coop"}, 2, "matches need at least 2 agents"},
		{[]string{"critique", "nothere.go"}, 2, "nothere.go"},
		{[]string{"critique", "9f39", "--store", db}, 1, "must be a store id"},
	} {
		code, out, errOut := runCLI(t, context.Background(), c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
}
