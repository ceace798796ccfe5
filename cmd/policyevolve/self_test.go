package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestInvocation: hints name the command as it was run — go run (from the
// checkout or from inside it), installed on the PATH, or by its path.
func TestInvocation(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "cmd", "policyevolve"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module policyevolve\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	bin := filepath.Join(other, "policyevolve")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	onPath := func(name string) (string, error) {
		if name == "policyevolve" {
			return bin, nil
		}
		return "", errors.New("not found")
	}
	notOnPath := func(string) (string, error) { return "", errors.New("not found") }
	goRunBinary := "/tmp/go-build1234567/b001/exe/policyevolve"
	cachedGoRun := "/root/.cache/go-build/cc/cce836c2e4a85cca67105614a332a08e4e0fb724d4a667691c2de26b76cd2104-d/policyevolve"
	for _, c := range []struct {
		argv0, wd string
		look      func(string) (string, error)
		want      string
	}{
		{goRunBinary, repo, notOnPath, "go run ./cmd/policyevolve"},
		{goRunBinary, filepath.Join(repo, "cmd", "policyevolve"), notOnPath, "go run ."},
		{goRunBinary, filepath.Join(repo, "cmd"), notOnPath, "go run ./policyevolve"},
		{goRunBinary, other, notOnPath, "go run ./cmd/policyevolve"}, // outside the checkout: the README's spelling
		{cachedGoRun, repo, notOnPath, "go run ./cmd/policyevolve"},  // go run's binary found again in the build cache
		{"/srv/builds/cc/not-a-hash-d/policyevolve", other, notOnPath, "/srv/builds/cc/not-a-hash-d/policyevolve"},
		{"policyevolve", other, onPath, "policyevolve"},
		{bin, other, onPath, "policyevolve"}, // found on the PATH as the same file
		{bin, other, notOnPath, bin},         // not on the PATH: the path typed
		{"./policyevolve", other, notOnPath, "./policyevolve"},
		{"/tmp/go-build1234567/b001/policyevolve.test", repo, notOnPath, "/tmp/go-build1234567/b001/policyevolve.test"},
	} {
		if got := invocation(c.argv0, c.wd, c.look); got != c.want {
			t.Errorf("invocation(%q, %q) = %q, want %q", c.argv0, c.wd, got, c.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	names := []string{"evolve", "compare", "experiment", "runs", "report", "render", "serve", "store", "pool"}
	for _, c := range []struct{ word, want string }{
		{"evolv", " (did you mean evolve?)"},
		{"evovle", " (did you mean evolve?)"}, // a swap is one edit
		{"comapre", " (did you mean compare?)"},
		{"exp", " (did you mean experiment?)"}, // a prefix
		{"rnus", " (did you mean runs?)"},
		{"xyz", ""},
		{"deploy", ""},
		{"ru", " (did you mean runs?)"}, // the only command it starts
		{"re", ""},                      // report or render: no guess
	} {
		if got := didYouMean(c.word, names, ""); got != c.want {
			t.Errorf("didYouMean(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	pool := mapKeys(poolCommands)
	if got, want := didYouMean("sh", pool, ""), " (did you mean show?)"; got != want {
		t.Errorf("pool: didYouMean(sh) = %q, want %q", got, want)
	}
}
