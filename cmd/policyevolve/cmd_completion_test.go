package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completionScript writes the script for shell to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, errOut := runCLI(t, context.Background(), "completion", shell)
	if code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errOut)
	}
	path := filepath.Join(t.TempDir(), "policyevolve."+shell)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// needShell skips a test whose shell is not installed (.ci/run installs
// bash, zsh and fish).
func needShell(t *testing.T, shell string) {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("%s is not installed: its completion script is not tried (apt-get install %s)", shell, shell)
	}
}

// TestCompletionScriptsKnowEveryCommandAndFlag: each script names every
// command, subcommand and flag, as the command table and the flag sets
// have them.
func TestCompletionScriptsKnowEveryCommandAndFlag(t *testing.T) {
	sets := commandFlagSets()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		b, err := os.ReadFile(completionScript(t, shell))
		if err != nil {
			t.Fatal(err)
		}
		script := string(b)
		for path, fs := range sets {
			for _, word := range strings.Fields(path) {
				if !strings.Contains(script, word) {
					t.Errorf("%s: no command %q", shell, word)
				}
			}
			for _, f := range flagWordsOf(fs) {
				if !strings.Contains(script, f) {
					t.Errorf("%s: %s: no flag %s", shell, path, f)
				}
			}
		}
	}
	code, _, errOut := runCLI(t, context.Background(), "completion", "bsh")
	if code != exitUsage || !strings.Contains(errOut, `unknown shell "bsh": bash, zsh or fish (did you mean bash?)`) {
		t.Errorf("completion bsh: exit %d, %q", code, errOut)
	}
}

func flagWordsOf(fs *flagSet) []string {
	var out []string
	for _, f := range completionFlags(fs) {
		out = append(out, f.name)
	}
	return out
}

// TestCompletionBash, TestCompletionZsh, TestCompletionFish run each
// script's completion of a few command lines in its shell.
func TestCompletionBash(t *testing.T) {
	needShell(t, "bash")
	script := completionScript(t, "bash")
	for _, c := range []struct{ line, want string }{
		{"policyevolve ev", "evolve"},
		{"policyevolve evolve --iter", "--iterations"},
		{"policyevolve pool sh", "show"},
		{"policyevolve pool show --st", "--store"},
		{"policyevolve evolve --game cl", "cleanup"},
		{"policyevolve runs ", "ls show"},
		{"policyevolve completion ", ""},
	} {
		words := strings.Fields(c.line)
		if strings.HasSuffix(c.line, " ") {
			words = append(words, "")
		}
		prog := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _policyevolve; echo "${COMPREPLY[*]}"`
		out, err := exec.Command("bash", append([]string{"-c", prog, "bash", script}, words...)...).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("%q: %v %q, want %q", c.line, err, out, c.want)
		}
	}
}

func TestCompletionZsh(t *testing.T) {
	needShell(t, "zsh")
	script := completionScript(t, "zsh")
	if out, err := exec.Command("zsh", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	// zsh's completion functions stubbed: what the script hands them.
	prog := `compdef(){}; _describe(){ print -l -- "${(@P)2}" }; _arguments(){ print -l -- "$@" }
source "$1"; shift; words=("$@"); CURRENT=$#words; _policyevolve`
	for _, c := range []struct{ line, want string }{
		{"policyevolve ev", "evolve:run an evolution job"},
		{"policyevolve evolve --it", "--iterations[population iterations (default 3), or chain refinements / gepa reflect…]:iterations: "},
		{"policyevolve evolve --ga", "--game[game - gathering or cleanup]:game:(gathering cleanup)"},
		{"policyevolve pool s", "show:show a policy"},
		{"policyevolve pool show --st", "--store[store file (default - $POLICYEVOLVE_STORE, else ./policyevolve.db)]:store:_files"},
	} {
		out, err := exec.Command("zsh", append([]string{"-c", prog, "zsh", script}, strings.Fields(c.line)...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%q: %v, want %q in\n%s", c.line, err, c.want, out)
		}
	}
}

func TestCompletionFish(t *testing.T) {
	needShell(t, "fish")
	script := completionScript(t, "fish")
	for _, c := range []struct{ line, want string }{
		{"policyevolve ev", "evolve\trun an evolution job"},
		{"policyevolve evolve --ite", "--iterations\t"},
		{"policyevolve pool s", "show\tshow a policy"},
		{"policyevolve pool show --st", "--store\t"},
		{"policyevolve evolve --game ", "cleanup\t"},
		{"policyevolve runs ", "ls\tlist the evolution runs"},
	} {
		out, err := exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, c.line).CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%q: %v, want %q in\n%s", c.line, err, c.want, out)
		}
	}
}
