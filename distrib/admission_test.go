package distrib

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"policyevolve/evolve/episode"
	"policyevolve/sandbox"
)

// constantBomb doubles a constant string until it is far beyond
// sandbox.MaxConstantString: the shape of issue 43's finding 1 (there,
// min(s, s) hid the size from the check, and the host's type checker died
// folding it). The sandbox's admission refuses this form today.
func constantBomb() string {
	var b strings.Builder
	b.WriteString("package policy\n\nimport \"ssd\"\n\nconst s0 = \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n")
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&b, "const s%d = s%d + s%d\n", i, i-1, i-1)
	}
	b.WriteString("\nfunc Policy(v *ssd.View, agent int) int {\n\tif len(s16) == 1 {\n\t\treturn 1\n\t}\n\treturn v.GreedyAction(agent)\n}\n")
	return b.String()
}

// TestWorkerRefusesABombJob: a job whose policy is a bomb — sent by a
// client holding the token, not by a coordinator — goes through the
// sandbox's admission in the worker (sandbox.Compile, the path the
// coordinator's validation takes) and comes back as the policy's failure
// (sandbox.ErrInvalid), not as a dead worker: the same worker process
// then plays a good job. (When the admission's analysis is bounded in a
// child process, a bomb that gets past today's size check must give the
// same answer; this test is the place for it.)
func TestWorkerRefusesABombJob(t *testing.T) {
	sb := newSandbox(t, noCost)
	srv := startServer(t)
	r := newRemote(t, srv.url())
	w := startWorker(t, srv.url(), "target", 1)
	bomb := episodeOf(t, sb, constantBomb(), 5, 1)
	_, err := r.Play(context.Background(), bomb)
	if !episode.PolicyFailure(err) || !errors.Is(err, sandbox.ErrInvalid) || !strings.Contains(err.Error(), "constants are limited") {
		t.Fatalf("a bomb's job: %v, want the policy refused as invalid", err)
	}
	select {
	case <-w.exited:
		t.Fatalf("the worker died on the bomb: %v", w.cmd.ProcessState)
	default:
	}
	good := episodeOf(t, sb, slowPolicy, 5, 2)
	if _, err := r.Play(context.Background(), good); err != nil {
		t.Fatalf("a good job after the bomb: %v", err)
	}
	var s WorkerStats
	waitFor(t, "the worker's statistics", func() bool {
		s, _ = stats(t, r, "target")
		return s.Jobs >= 2
	})
	if s.Jobs != 2 || s.Failed != 1 || s.Errors != 0 {
		t.Fatalf("the worker's statistics: %d jobs, %d policy failures, %d errors; want 2, 1, 0 (both played by the one worker)", s.Jobs, s.Failed, s.Errors)
	}
}
