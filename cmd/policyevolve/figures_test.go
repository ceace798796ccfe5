package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLabelledFigures: a champion's score reads the same wherever it is
// shown, or with the seeds it was measured on beside it: the end of the
// run, runs show, pool ls and pool show agree on its rechecked figure
// (the evaluation and recheck seeds together) and name those seeds; the
// record of a welfare pool says which games it counts and that the mixed
// matches are not among them; runs show says where the pool has the
// champion, or why it is not a member.
func TestLabelledFigures(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	out, _ := cli(t, "evolve", "--store", db, "--game", "gathering", "--map", "small", "--agents", "4", "--steps", "60",
		"--iterations", "1", "--candidates", "2", "--local-rounds", "0", "--seeds", "0-1", "--recheck", "2", "--opponents", "2")
	// End of run: the evaluation's mean names its seeds; the figure the
	// champion was crowned by names its own.
	crowned := regexp.MustCompile(`efficiency (\d\.\d{4}) on seeds 0–3, rechecked: the figure it was crowned by`).FindStringSubmatch(out)
	if !strings.Contains(out, "mean, seeds 0–1") || crowned == nil {
		t.Fatalf("the end of the run does not name the seeds of its figures:\n%s", out)
	}
	figure, _ := strconv.ParseFloat(crowned[1], 64)
	champ := regexp.MustCompile(`champion by welfare: ([0-9a-f]{64})`).FindStringSubmatch(out)
	if champ == nil {
		t.Fatalf("no champion in:\n%s", out)
	}
	id := champ[1]

	show, _ := cli(t, "runs", "show", "run-1", "--store", db)
	if !regexp.MustCompile(`efficiency \d\.\d{4} on seeds 0–1 \(` + crowned[1] + ` on seeds 0–3, rechecked\)`).MatchString(show) {
		t.Errorf("runs show does not give the champion's figures with their seeds:\n%s", show)
	}
	member := strings.Contains(show, "champion "+id[:12]+": member of pool global/gathering/small/4/60@welfare (pool ls lists it)")
	if !member && !strings.Contains(show, "champion "+id[:12]+": not a member of pool global/gathering/small/4/60@welfare: ") {
		t.Errorf("runs show does not say where the pool has the champion:\n%s", show)
	}

	// pool show and pool ls: the same figure, over seeds 0–3.
	want := fmt.Sprintf("%.3f", figure)
	ps, _ := cli(t, "pool", "show", id, "--store", db)
	if !strings.Contains(ps, "self-play on gathering/small/4/60, seeds 0–3 (all its evaluations there; the figure pool ls gives): efficiency "+want) {
		t.Errorf("pool show does not give %s on seeds 0–3:\n%s", want, ps)
	}
	if strings.Contains(ps, "matches (") && !strings.Contains(ps, "mixed: half the agents each, sides swapped; counted only by an elo pool's rating") {
		t.Errorf("pool show does not say the mixed matches are not the welfare pool's games:\n%s", ps)
	}
	if member {
		if !regexp.MustCompile(`pool     global/gathering/small/4/60@welfare: elo [\d.]+, \d+/\d+/\d+ \(won/drawn/lost\) in \d+ games counted by welfare \(self-play compared seed by seed\); the mixed matches are not counted`).MatchString(ps) {
			t.Errorf("pool show does not label the welfare pool's games:\n%s", ps)
		}
		ls, _ := cli(t, "pool", "ls", "--store", db)
		row := regexp.MustCompile(`(?m)^  ` + id[:12] + `\s.*$`).FindString(ls)
		if !strings.Contains(row, " "+want+" ") || !strings.Contains(row, " 0–3 ") {
			t.Errorf("pool ls does not give the champion %s on seeds 0–3: %q\n%s", want, row, ls)
		}
	}
}
