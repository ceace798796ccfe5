package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// objectiveNamers are the only non-test files outside pool that may name
// an objective (pool.Welfare, pool.Elo, pool.Robust), each for a reason
// docs/objectives.md ("In the code") gives: a chain, and a population's
// lead, are crowned by self-play whatever the run's objective; a
// comparison's id leaves elo out of its hash.
var objectiveNamers = []string{
	"evolve/chain/chain.go",
	"evolve/population/population.go",
	"evolve/experiment/experiment.go",
}

// TestObjectiveAsked: outside pool, code asks an objective what it
// decides (pool.Objective's methods) rather than switching on its name,
// so that an objective is added in one place (pool/rules.go). A file that
// names one beyond objectiveNamers fails here, naming it.
func TestObjectiveAsked(t *testing.T) {
	root := filepath.Join("..", "..")
	named := regexp.MustCompile(`\bpool\.(Welfare|Elo|Robust)\b`)
	read := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (rel == "pool" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || slices.Contains(objectiveNamers, rel) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		read++
		if m := named.Find(b); m != nil {
			t.Errorf("%s names %s: ask the objective (pool.Objective's methods, docs/objectives.md) instead", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if read < 100 {
		t.Errorf("read %d Go files: the walk missed the repository", read)
	}
}
