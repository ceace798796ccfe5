package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// TestDeathInAChunkNamesItsStep: a worker that dies inside a self-play
// chunk (out of memory, a stack overflow, past the output limit) is
// reported at the step and agent it died in, read from its progress page,
// not at the chunk's first step (step 0 for a crash at step 57).
func TestDeathInAChunkNamesItsStep(t *testing.T) {
	const at, agent = 57, 1
	trigger := fmt.Sprintf("if v.Step() == %d && agent == %d {\n\t\t", at, agent)
	cases := []struct {
		name string
		src  string
		kind error
		want string
		only Backend
	}{
		{"out of memory", policyWith(trigger + "b := make([]byte, 1<<40)\n\t\tb[len(b)-1] = 1\n\t\treturn int(b[0])\n\t}\n\treturn ssd.Stand"),
			ErrCrashed, "out of memory", ""},
		{"stack overflow", policyWith(trigger+"return deep(1)\n\t}\n\treturn ssd.Stand") + "\nfunc deep(n int) int {\n\tvar pad [64]int\n\tpad[n%64] = n\n\treturn deep(n+1) + pad[0]\n}\n",
			ErrCrashed, "stack overflow", ""},
		{"output limit", policyWith(trigger + "for i := 0; i < 40000; i++ {\n\t\t\tprintln(\"spam spam spam spam spam spam spam spam spam spam spam spam\")\n\t\t}\n\t}\n\treturn ssd.Stand"),
			ErrOutputLimit, "printed more than", Native}, // println is outside the yaegi subset
		// The watchdog's own report names its step too.
		{"endless Error of a panic value", policyWith(trigger+"panic(stuck{})\n\t}\n\treturn ssd.Stand") + "\ntype stuck struct{}\n\nfunc (stuck) Error() string {\n\tfor {\n\t}\n}\n",
			ErrTimeout, "describing its panic value", Native},
	}
	m, _ := envs.BuiltinMap(ssd.Gathering, "small")
	cfg := envs.Config{Map: m, Agents: 3, MaxSteps: 100}
	for _, be := range backends {
		for _, c := range cases {
			if c.only != "" && c.only != be {
				continue
			}
			t.Run(string(be)+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				sb := newSandbox(t, be, func(c *Config) { c.StepTimeout = 20 * time.Second })
				if c.kind == ErrTimeout {
					sb = newSandbox(t, be)
				}
				p := compile(t, sb, c.src)
				_, err := p.SelfPlay(context.Background(), cfg, envs.Options{Seed: 1})
				var ae *envs.ActorError
				var pe *PolicyError
				if !errors.As(err, &ae) || !errors.As(err, &pe) || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got %v, want %v containing %q", err, c.kind, c.want)
				}
				if ae.Step != at || pe.Step != at || pe.Agent != agent {
					t.Fatalf("%v: reported at step %d (episode) / %d (policy), agent %d; want step %d, agent %d", err, ae.Step, pe.Step, pe.Agent, at, agent)
				}
			})
		}
	}
}
