package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"policyevolve/store"
)

// TestCompareEndToEnd runs compare on a CI-sized budget: chain and
// population get the same budget of planner calls, every run is stored and
// named in the JSON, the baselines are in the league, and comparing again
// with the same flags reuses the stored runs and prints the same table.
func TestCompareEndToEnd(t *testing.T) {
	dir := t.TempDir()
	db, prefix := filepath.Join(dir, "s.db"), filepath.Join(dir, "cmp")
	args := append([]string{"compare", "--store", db, "--budget", "4", "--runs", "2", "--candidates", "2",
		"--local-rounds", "0", "--seeds", "0-1", "-o", prefix}, "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "100")
	out, _ := cli(t, args...)
	for _, want := range []string{"| method | efficiency |", "| chain |", "| population |", "| bfs |", "| exploit |", "| coop |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(prefix + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rep compareReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(prefix + ".csv")
	if err != nil || !strings.HasPrefix(string(csv), "method,") {
		t.Fatalf("csv %q, %v", csv, err)
	}
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, row := range rep.Rows {
		methods = append(methods, row.Method)
		if row.Method != "chain" && row.Method != "population" {
			if len(row.Runs) != 0 || len(row.Champions) != 1 {
				t.Errorf("baseline row %+v", row)
			}
			continue
		}
		if len(row.Runs) != 2 || len(row.Champions) != 2 {
			t.Fatalf("%s: runs %v champions %v", row.Method, row.Runs, row.Champions)
		}
		if row.PlannerCalls.Min != 4 || row.PlannerCalls.Max != 4 {
			t.Errorf("%s: planner calls %+v, want 4 in every run", row.Method, row.PlannerCalls)
		}
		for i, id := range row.Runs {
			var run *store.Run
			if err := s.View(func(tx *store.Tx) (err error) {
				run, err = tx.Run(id)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if run.Mode != row.Method || run.Champion != row.Champions[i] || run.Usage.Proposals != 4 {
				t.Errorf("%s row names run %s: %+v", row.Method, id, run)
			}
		}
	}
	if !slices.Equal(methods, []string{"chain", "population", "bfs", "exploit", "coop"}) {
		t.Errorf("rows %v", methods)
	}

	again, _ := cli(t, args...)
	if table(again) != table(out) {
		t.Errorf("compare again gave another table:\n%s\nfirst:\n%s", table(again), table(out))
	}
}

// table is the Markdown table of compare's output without the wall time
// column, which differs between runs.
func table(out string) string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "|") {
			cells := strings.Split(l, "|")
			rows = append(rows, strings.Join(cells[:len(cells)-2], "|"))
		}
	}
	return strings.Join(rows, "\n")
}
