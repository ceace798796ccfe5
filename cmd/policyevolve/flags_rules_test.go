package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEveryNumericFlagHasARule reads every command's flags: each numeric
// one has a rule in flagRules, its default is inside it (or the value that
// stands for "not given"), and every rule names a flag that exists.
func TestEveryNumericFlagHasARule(t *testing.T) {
	used := map[string]bool{}
	for path, fs := range commandFlagSets() {
		fs.VisitAll(func(f *flag.Flag) {
			rv, ruled := f.Value.(*ruledValue)
			if !ruled {
				if kindOf(f.Value) != "" {
					t.Errorf("%s --%s is numeric and has no rule in flagRules", path, f.Name)
				}
				return
			}
			name := f.Name
			if a, ok := fs.aliases[name]; ok {
				name = a
			}
			if _, ok := flagRules[path+" "+name]; ok {
				used[path+" "+name] = true
			} else {
				used[name] = true
			}
			// An empty default is a flag with no value until given.
			if f.DefValue != rv.r.unset && f.DefValue != "" {
				if err := rv.r.test(f.DefValue, rv.kind); err != nil {
					t.Errorf("%s --%s: default %q is outside its rule: %v", path, f.Name, f.DefValue, err)
				}
			}
		})
	}
	for key := range flagRules {
		if !used[key] {
			t.Errorf("flagRules[%q] names no flag of any command", key)
		}
	}
}

// badValues returns values a rule refuses, for a flag of kind.
func badValues(r rule, kind string) []string {
	if r.check != nil {
		return []string{",,,", "x"}
	}
	var out []string
	switch kind {
	case "uint":
		out = append(out, "-1")
		if r.hi < math.MaxUint64 {
			out = append(out, strconv.FormatUint(uint64(r.hi)+1, 10))
		}
	case "int":
		out = append(out, strconv.FormatInt(int64(r.lo)-1, 10))
		if r.hi < math.MaxInt64 {
			out = append(out, strconv.FormatInt(int64(r.hi)+1, 10))
		}
	case "float":
		lo, hi := r.lo-0.5, r.hi+0.5
		if r.loOpen {
			lo = r.lo
		}
		if r.hiOpen {
			hi = r.hi
		}
		out = append(out, strconv.FormatFloat(lo, 'g', -1, 64), strconv.FormatFloat(hi, 'g', -1, 64))
	case "duration":
		out = append(out, (time.Duration(r.lo) - time.Millisecond).String(), (time.Duration(r.hi) + time.Second).String())
	}
	return append(out, "x")
}

// TestOutOfRangeValuesAreUsageErrors runs every command with values
// outside each of its flags' rules: each is a usage error (exit 2) that
// names the flag and says what it wants. The values come from the flags'
// definitions, so a new flag is tested as soon as it has a rule.
func TestOutOfRangeValuesAreUsageErrors(t *testing.T) {
	t.Setenv("POLICYEVOLVE_STORE", filepath.Join(t.TempDir(), "none.db"))
	// Cancelled: a value wrongly let through fails at once, not after a job.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sets := commandFlagSets()
	paths := make([]string, 0, len(sets))
	for p := range sets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	tried := 0
	for _, path := range paths {
		sets[path].VisitAll(func(f *flag.Flag) {
			rv, ok := f.Value.(*ruledValue)
			if !ok {
				return
			}
			for _, bad := range badValues(rv.r, rv.kind) {
				args := append(strings.Fields(path), "--"+f.Name+"="+bad)
				var stdout, stderr bytes.Buffer
				code := dispatch(ctx, args, &stdout, &stderr)
				msg := stderr.String()
				want := rv.r.describe(rv.kind)
				if code != exitUsage || !strings.Contains(msg, "--"+f.Name+" ") || !strings.Contains(msg, want) {
					t.Errorf("%s: exit %d, stderr %q; want exit 2 naming --%s and %q", strings.Join(args, " "), code, msg, f.Name, want)
				}
				tried++
			}
		})
	}
	if tried < 100 {
		t.Errorf("only %d out-of-range values tried: the flag sets were not found", tried)
	}
}

// TestConfigFileValuesFollowTheRules: a configuration file's key is held
// to its flag's rule, as the command line is.
func TestConfigFileValuesFollowTheRules(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct{ file, text, want string }{
		{"a.toml", "iterations = -3\n", "--config %s: --iterations -3: out of range; want an integer from 1 to 100000"},
		{"b.yaml", "candidates: 0\n", "--candidates 0: out of range; want an integer from 1 to 1000"},
		{"c.toml", "workers = -4\n", "--workers -4: out of range; want an integer from 1 to 1024"},
		{"d.toml", "seeds = \",,,\"\n", `--seeds ",,,": malformed seed list item ""`},
	} {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := dispatch(ctx, []string{"evolve", "--config", path, "--store", filepath.Join(dir, "s.db")}, &stdout, &stderr)
		want := c.want
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, path)
		}
		if code != exitUsage || !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", c.text, code, stderr.String(), want)
		}
		if _, err := os.Stat(filepath.Join(dir, "s.db")); err == nil {
			t.Fatalf("%s: a store was created before the value was refused", c.text)
		}
	}
}

// TestHelpStatesRangesAndDefaultsOnce: --help shows each flag's range, and
// a default once (--store's help names its own; a secret from the
// environment is never printed).
func TestHelpStatesRangesAndDefaultsOnce(t *testing.T) {
	t.Setenv("POLICYEVOLVE_SERVE_TOKEN", "a-secret-token-of-some-length-0123456789")
	for _, c := range []struct {
		args           []string
		want, unwanted []string
	}{
		{[]string{"evolve", "--help"},
			[]string{"  --candidates int\n    \tcandidates per population iteration (M) (1 to 1000; default 4)\n",
				"  --store string\n    \tstore file (default: $POLICYEVOLVE_STORE, else ./policyevolve.db)\n",
				"  --time duration\n", "(0s to 8760h)", "  --promote-threshold float\n", "(above 0, below 1; default 0.6)",
				"  --seed uint\n    \trun seed: every random choice derives from it (default 1)\n"},
			[]string{`(default "policyevolve.db")`}},
		{[]string{"league", "--help"},
			[]string{"  --match-seeds string\n", "  --seeds\n    \talias of --match-seeds\n"}, nil},
		{[]string{"serve", "--help"}, []string{"$POLICYEVOLVE_SERVE_TOKEN"}, []string{"a-secret-token"}},
		{[]string{"render", "--help"}, []string{"  -o string\n", "(above 0, at most 50; default 10)"}, nil},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(context.Background(), c.args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("%v: no %q in\n%s", c.args, w, stdout.String())
			}
		}
		for _, u := range c.unwanted {
			if strings.Contains(stdout.String(), u) {
				t.Errorf("%v: %q in\n%s", c.args, u, stdout.String())
			}
		}
	}
}

// TestAliasesSetTheSameValue: an old spelling kept as an alias sets the
// flag, and a bad value names the spelling typed.
func TestAliasesSetTheSameValue(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), []string{"league", "--seeds", ",,,"}, &stdout, &stderr)
	if code != exitUsage || !strings.HasPrefix(stderr.String(), `policyevolve league: --seeds ",,,": malformed seed list item ""`) {
		t.Errorf("exit %d, %q", code, stderr.String())
	}
	fs := commandFlagSets()["match"]
	if err := fs.Parse([]string{"--seeds", "3-4"}); err != nil {
		t.Fatal(err)
	}
	if got := fs.Lookup("match-seeds").Value.String(); got != "3-4" {
		t.Errorf("--seeds 3-4 set --match-seeds to %q", got)
	}
}

// TestDocsStateEveryRange: docs/cli.md's table of ranges is flagRules'.
func TestDocsStateEveryRange(t *testing.T) {
	sets := commandFlagSets()
	kind := func(key string) string {
		cmd, name, scoped := strings.Cut(key, " ")
		if !scoped {
			name = cmd
		} else if i := strings.LastIndex(key, " "); i >= 0 {
			cmd, name = key[:i], key[i+1:]
		}
		for path, fs := range sets {
			if scoped && path != cmd {
				continue
			}
			if f := fs.Lookup(name); f != nil {
				if rv, ok := f.Value.(*ruledValue); ok {
					return rv.kind
				}
			}
		}
		return ""
	}
	var plain, scoped []string
	for key := range flagRules {
		if strings.Contains(key, " ") {
			scoped = append(scoped, key)
		} else {
			plain = append(plain, key)
		}
	}
	sort.Strings(plain)
	sort.Strings(scoped)
	var b strings.Builder
	b.WriteString("| flag | takes |\n|---|---|\n")
	for _, key := range append(plain, scoped...) {
		r := flagRules[key]
		k := kind(key)
		takes := r.span(k)
		switch {
		case r.check != nil:
			takes = r.what
		case takes == "":
			takes = "any seed, " + r.describe(k)[len("an integer from "):]
		}
		if r.unset != "" {
			takes += " (not given: " + r.unset + ")"
		}
		label := "`--" + key + "`"
		if i := strings.LastIndex(key, " "); i >= 0 {
			label = "`--" + key[i+1:] + "` (" + key[:i] + ")"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", label, takes)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "<!-- ranges: written from flagRules; TestDocsStateEveryRange checks it -->\n")
	table, _, _ := strings.Cut(rest, "<!-- end of ranges -->")
	if table != b.String() {
		t.Errorf("docs/cli.md's table of ranges is not flagRules'; it should read:\n%s", b.String())
	}
}
