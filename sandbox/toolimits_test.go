package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// hugeArrays declares n initialised arrays of mib MiB each (each within
// MaxStaticSize): the compiler and linker lay them out in the object file
// and the binary.
func hugeArrays(n, mib int) string {
	var b strings.Builder
	b.WriteString("package policy\n\nimport \"ssd\"\n\n")
	for i := range n {
		fmt.Fprintf(&b, "var a%d = [%d << 17]int{%d}\n", i, mib, i+1)
	}
	b.WriteString("\nfunc Policy(v *ssd.View, agent int) int { return a0[0] % 5 }\n")
	return b.String()
}

// TestHugeArraysAreRefused: a build that would write a file past the
// build's file-size bound (injected small) refuses the policy, saying
// so, instead of failing as the system (which stopped evolve and every
// resume); an honest policy builds under the same bound.
func TestHugeArraysAreRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large objects")
	}
	example(t, Native, "bfs") // the standard library built, under the default bounds
	sb := newSandbox(t, Native, func(c *Config) { c.CacheDir = t.TempDir(); c.BuildFileSize = 32 << 20 })
	compile(t, sb, policyWith("return v.GreedyAction(agent)"))
	for _, c := range []struct {
		name string
		src  string
	}{
		{"one array past the bound", hugeArrays(1, 40)},
		{"several within it each", hugeArrays(6, 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := sb.Compile(context.Background(), []byte(c.src))
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), "the build's bound of 32 MiB") {
				t.Fatalf("got %v, want a refusal naming the build's file-size bound", err)
			}
		})
	}
	if ents, _ := filepath.Glob(filepath.Join(sb.cfg.CacheDir, "build-*")); len(ents) > 0 {
		t.Errorf("build directories left: %v", ents)
	}
}

// TestStaleBuildsAreRemoved: the directory of a build whose process was
// killed (no one holds its lock) is removed at the next build; that of a
// build in progress (its lock held) is not.
func TestStaleBuildsAreRemoved(t *testing.T) {
	cache := t.TempDir()
	dead := filepath.Join(cache, "build-dead")
	live := filepath.Join(cache, "build-live")
	for _, d := range []string{dead, live} {
		if err := os.MkdirAll(filepath.Join(d, "tmp", "go-build1"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if os.WriteFile(filepath.Join(dead, ".lock"), nil, 0o600) != nil {
		t.Fatal("write lock")
	}
	unlock, err := lockBuildDir(live)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if n := removeStaleBuilds(cache); n != 1 {
		t.Errorf("removed %d directories, want 1", n)
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead build's directory stays: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live build's directory is gone: %v", err)
	}
}

// buildHostThatDies is TestBuildDiesWithTheHost's child: it starts a
// build with a stand-in for the go command (goCmd: a script whose build
// starts a long sleep, as the go command starts the compiler), prints the
// pid of the build's launcher (the leader of its process group) once the
// sleep runs in that group, and waits to be killed.
func buildHostThatDies(cache, goCmd string) int {
	sb, err := New(Config{Backend: Native, CacheDir: cache, GoCommand: goCmd})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go sb.Compile(context.Background(), []byte(policyWith("return v.GreedyAction(agent)")))
	for {
		for _, pid := range children() {
			for _, p := range groupMembers(pid) {
				if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(b)) == "sleep" {
					fmt.Println(pid)
					select {}
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupMembers lists the live processes of process group pgid.
func groupMembers(pgid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			out = append(out, pid)
		}
	}
	return out
}

// TestBuildDiesWithTheHost: when the host is killed (SIGKILL) while a
// build runs, the whole build — launcher, go command and what it started
// (the compiler; here a stand-in that would sleep ten minutes) — ends
// with it (the compiler once ran on ~40 s).
func TestBuildDiesWithTheHost(t *testing.T) {
	dir := t.TempDir()
	goCmd := filepath.Join(dir, "go")
	script := "#!/bin/sh\ncase \"$1\" in\nenv) echo go1.0-test ;;\nbuild) sleep 600 & wait ;;\n*) exit 1 ;;\nesac\n"
	if err := os.WriteFile(goCmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), "SANDBOX_TEST_BUILD_HOST="+filepath.Join(dir, "cache")+"|"+goCmd)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pgid int
	if _, err := fmt.Fscan(out, &pgid); err != nil || pgid <= 0 {
		host.Process.Kill()
		t.Fatalf("no build from the host: %v", err)
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	// The kernel tells the launcher at once; a minute is for a machine
	// slow to show it (the sleep would last ten).
	deadline := time.Now().Add(time.Minute)
	for {
		left := groupMembers(pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("processes %v of the build outlived its killed host", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
