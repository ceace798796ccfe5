package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Sources whose analysis once took the host down or kept it busy for
// minutes (red team, round three), and variants of each shape.

// constantBomb doubles a constant string levels times through a call
// the old size rule measured as 0 bytes.
func constantBomb(levels int, call string) string {
	var b strings.Builder
	b.WriteString("package policy\n\nimport \"ssd\"\n\nconst s0 = \"abcdefghijklmnop\"\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "const s%d = %s\n", i, strings.ReplaceAll(call, "X", fmt.Sprintf("s%d", i-1)))
	}
	fmt.Fprintf(&b, "\nfunc Policy(v *ssd.View, agent int) int { return len(s%d) %% 5 }\n", levels)
	return b.String()
}

// nestedGeneric nests a generic type depth deep.
func nestedGeneric(depth int) string {
	return "package policy\n\nimport \"ssd\"\n\ntype T[X any] struct{ x X }\n\nvar g " +
		strings.Repeat("T[", depth) + "int" + strings.Repeat("]", depth) +
		"\n\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n"
}

// longSum is a constant sum of terms ones.
func longSum(terms int) string {
	return "package policy\n\nimport \"ssd\"\n\nconst n = " + strings.Repeat("1+", terms-1) + "1\n\n" +
		"func Policy(v *ssd.View, agent int) int { return n % 5 }\n"
}

// TestCostlySourcesAreRefused: each shape is refused by the checks of
// the syntax, in the analysing child, with a message naming the rule —
// a constant is measured by what it evaluates to (a min or max is as
// long as its longest argument), so 16 MiB is refused like the
// documented 1 MiB; nesting is bounded before type checking; and the
// check is linear (99,000 terms once took it minutes).
func TestCostlySourcesAreRefused(t *testing.T) {
	sb := newSandbox(t, Yaegi)
	for _, c := range []struct {
		name, src, want string
	}{
		{"min, 40 levels", constantBomb(40, "min(X, X) + min(X, X)"), "constants are limited to 1048576"},
		{"min, 20 levels (16 MiB)", constantBomb(20, "min(X, X) + min(X, X)"), "constants are limited to 1048576"},
		{"max of three", constantBomb(20, "max(X, X, X) + X"), "constants are limited to 1048576"},
		{"min alone, nested", constantBomb(20, "min(X+X, X)"), "constants are limited to 1048576"},
		{"conversion", constantBomb(20, "string(X) + (X)"), "constants are limited to 1048576"},
		{"generic type 20,000 deep", nestedGeneric(20000), "nested 20004 levels deep; the limit is 1000"},
		{"sum of 99,000 terms", longSum(99000), "nested 99003 levels deep"},
		{"sum of 20,000 terms", longSum(20000), "the limit is 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := sb.Compile(context.Background(), []byte(c.src))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %.300v, want a refusal containing %q", err, c.want)
			}
			t.Logf("refused in %v", time.Since(start).Round(time.Millisecond))
		})
	}
	// Within the rules: a 1 MiB constant is admitted (by the analysis).
	if _, err := sb.analyse(context.Background(), []byte(constantBomb(15, "X + X")), Yaegi); err != nil {
		t.Errorf("a 512 KiB constant: %v", err)
	}
}

// TestAnalysisBoundsStopCostlySources: with the checks of the syntax
// left out, the same shapes are stopped by the analysing child's bounds
// (made small here), as a refusal of the policy; the host carries on, and
// the next source is admitted.
func TestAnalysisBoundsStopCostlySources(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector the analyser runs without a memory bound")
	}
	sb := newSandbox(t, Yaegi, func(c *Config) {
		c.AnalysisMemory = 200 << 20
		c.AnalysisCPU = 2 * time.Second
	})
	sb.noPrechecks = true
	for _, c := range []struct {
		name, src, want string
	}{
		{"min, 40 levels", constantBomb(40, "min(X, X) + min(X, X)"), "of memory"},
		{"sum of 99,000 terms", longSum(99000), "too costly to analyse"},
		{"generic type 20,000 deep", nestedGeneric(20000), "too costly to analyse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := sb.Compile(context.Background(), []byte(c.src))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "policy source too costly to analyse: ") ||
				!strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %.300v, want a refusal containing %q", err, c.want)
			}
			t.Logf("%v (after %v)", err.(*ValidationError).Issues[0].Msg, time.Since(start).Round(time.Millisecond))
		})
	}
	if _, err := sb.Compile(context.Background(), []byte(policyWith("return v.GreedyAction(agent)"))); err != nil {
		t.Fatalf("the next source: %v", err)
	}
}

// TestAnalysisInChild: the child prepares exactly what the analysis in
// this process prepares, for both backends; a wall-clock bound passed is
// a refusal, a cancelled context is not.
func TestAnalysisInChild(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "examples", "policies", "bfs.go"))
	if err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, Yaegi)
	for _, be := range []Backend{Native, Yaegi} {
		want, err := prepare(src, be)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sb.analyse(context.Background(), src, be)
		if err != nil {
			t.Fatalf("%s: %v", be, err)
		}
		if got.id != want.id || !bytes.Equal(got.code, want.code) || got.reset != want.reset || got.reusable != want.reusable {
			t.Errorf("%s: the child prepared other code than this process", be)
		}
	}
	quick := newSandbox(t, Yaegi, func(c *Config) { c.AnalysisWall = time.Nanosecond })
	if _, err := quick.analyse(context.Background(), src, Yaegi); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "gave no result within 1ns") {
		t.Errorf("past the wall-clock bound: %v, want a refusal", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sb.analyse(ctx, src, Yaegi); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	var ve *ValidationError
	if _, err := sb.analyse(context.Background(), []byte("package policy\n\nfunc Policy() {}\n"), Yaegi); !errors.As(err, &ve) ||
		ve.Issues[0].Line != 3 {
		t.Errorf("a refusal with its line: %v", err)
	}
}

// TestErrorsQuoteControlCharacters: text a policy wrote (its panic value,
// a comment in a refused line) reaches error strings with control
// characters as Go escapes, never raw: a terminal escape cannot act on
// the terminal it is printed on.
func TestErrorsQuoteControlCharacters(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"panic text", &PolicyError{Kind: ErrPanic, Agent: -1, Step: 3, Detail: "boom \x1b[2J\x1b]0;x\x07 \u202e"},
			`panic at step 3: boom \x1b[2J\x1b]0;x\a \u202e`},
		{"snippet", &ValidationError{Issues: []Issue{{Line: 2, Col: 1, Msg: "bad", Snippet: "x := 1 // \x1b[31mred\u009b"}}},
			"2:1: bad\n\tx := 1 // \\x1b[31mred\\u009b"},
		{"invalid byte", &PolicyError{Kind: ErrPanic, Agent: -1, Step: -1, Detail: "a\x9bb"}, "panic: a\uFFFDb"},
		{"plain text kept", &PolicyError{Kind: ErrPanic, Agent: -1, Step: -1, Detail: "line one\n\tline two é"},
			"panic: line one\n\tline two é"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
