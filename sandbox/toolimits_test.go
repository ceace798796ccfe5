package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// compileBomb is a policy of a few hundred bytes whose generic functions
// each call the next at two new struct types: the compiler's work doubles
// per level (13 levels took 85 s and 1.86 GB; 16 would need over 10 GB).
func compileBomb(levels int) string {
	var b strings.Builder
	b.WriteString("package policy\n\nimport \"ssd\"\n\ntype pair[A, B any] struct {\n\ta A\n\tb B\n}\n\nfunc f0[T any](x T) int { return 1 }\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "\nfunc f%d[T any](x T) int { return f%d(pair[T, int]{x, 0}) + f%d(pair[T, string]{x, \"\"}) }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "\nfunc Policy(v *ssd.View, agent int) int { return f%d(agent) %% 8 }\n", levels)
	return b.String()
}

// TestCompileBombIsRefused: a build whose compiler passes the build's
// memory or CPU bound (injected small, so that it trips in seconds)
// refuses the policy, saying which bound, while an honest policy builds
// under the same bounds.
func TestCompileBombIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a compile bomb")
	}
	example(t, Native, "bfs") // the standard library built, under the default bounds
	for _, c := range []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"memory", func(c *Config) { c.BuildMemory = 300 << 20 }, "compiling this policy needed more memory than the build's bound of 300 MiB per process"},
		{"cpu", func(c *Config) { c.BuildCPU = 2 * time.Second }, "compiling this policy needed more CPU time than the build's bound of 2s per process"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := newSandbox(t, Native, c.cfg, func(c *Config) { c.CacheDir = t.TempDir() })
			compile(t, sb, policyWith("return v.GreedyAction(agent)"))
			_, err := sb.Compile(context.Background(), []byte(compileBomb(14)))
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a refusal containing %q", err, c.want)
			}
		})
	}
}
