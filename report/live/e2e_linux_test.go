package live

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/planner"
	"policyevolve/internal/storetest"
	"policyevolve/llm"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// jobTimeout bounds the small job of the end-to-end test: about half a
// minute idle, minutes on a busy 2-core machine.
const jobTimeout = 8 * time.Minute

// TestLiveRunPageInChromium starts a small job and the live view of its
// store, opens /runs/run-1 in headless Chromium while the job is between
// its two iterations, and sees the page change as the second iteration
// finishes, without a reload (a mark left in the page's window survives;
// a reload would clear it). In the same browser, the page of a policy
// whose source holds </script><script> shows it as text and runs nothing.
func TestLiveRunPageInChromium(t *testing.T) {
	chromiumPath(t)
	if testing.Short() {
		t.Skip("runs an evolution job and a browser: not in -short")
	}
	if raceEnabled {
		// The yaegi workers are this test binary run again; built with the
		// race detector it cannot start under the sandbox's memory limit.
		t.Skip("the job's sandbox workers do not run in a -race test binary")
	}
	path := filepath.Join(t.TempDir(), "live.db")
	s := storetest.Open(t, path)
	evil := putPolicy(t, s, evilSource)
	sb, err := sandbox.New(sandbox.Config{Backend: sandbox.Yaegi})
	if err != nil {
		t.Fatal(err)
	}
	between := make(chan struct{}) // closed when the second iteration begins
	gate := make(chan struct{})    // closed to let it run
	cfg := evolve.JobConfig{Mode: evolve.ModePopulation, Game: "gathering", Map: "small", Agents: 4, Steps: 100, Seed: 7,
		EvalSeeds: []uint64{0, 1}, Iterations: 2, Candidates: 2, LocalRounds: evolve.On(1), Backend: "yaegi"}
	job := &evolve.Job{Config: cfg, Store: s, Sandbox: sb,
		Planner: func(spec, run string, _ llm.Gate) (planner.Planner, error) {
			return &planner.GrammarPlanner{PopSize: 4, Generations: 1}, nil
		},
		Events: evolve.ReporterFunc(func(e evolve.Event) {
			if e.Kind == evolve.EventIteration && e.Iteration == 1 {
				close(between)
				<-gate
			}
		})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := job.Run(ctx)
		done <- err
	}()
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
		cancel()
		<-done
	}()
	select {
	case <-between:
	case err := <-done:
		done <- err // for the deferred wait
		t.Fatalf("the job ended before its second iteration: %v", err)
	case <-time.After(jobTimeout):
		t.Fatalf("the job's first iteration took over %v", jobTimeout)
	}

	ro, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(ro, Options{Poll: 100 * time.Millisecond, Sandbox: sb})
	go srv.Watch(ctx)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close() // first: it ends the event streams, which hs.Close waits for

	b := startBrowser(t)
	page := b.open(hs.URL + "/runs/run-1")
	if !page.waitFor(ctx, `document.querySelector("#live-status.live") !== null && document.body.textContent.includes("1 of 2 done")`, browserTimeout) {
		var text string
		page.eval(`document.body.textContent`, &text)
		t.Fatalf("the run's page did not show 1 of 2 iterations done with its live status on:\n%.2000s", text)
	}
	if err := page.eval(`window.policyevolveMark = "kept"; true`, nil); err != nil {
		t.Fatal(err)
	}
	close(gate)
	select {
	case err := <-done:
		done <- err // for the deferred wait
		if err != nil {
			t.Fatalf("job: %v", err)
		}
	case <-time.After(jobTimeout):
		t.Fatalf("the job's second iteration took over %v", jobTimeout)
	}
	if !page.waitFor(ctx, `document.body.textContent.includes("2 of 2 done")`, browserTimeout) {
		t.Fatal("the page did not change to 2 of 2 iterations done")
	}
	var mark string
	var updates string
	if err := page.eval(`window.policyevolveMark`, &mark); err != nil || mark != "kept" {
		t.Errorf("the page was reloaded: its mark is %q (%v)", mark, err)
	}
	page.eval(`document.documentElement.getAttribute("data-live-updates")`, &updates)
	var run *store.Run
	if err := ro.View(func(tx *store.Tx) (err error) {
		run, err = tx.Run("run-1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !page.waitFor(ctx, `document.getElementById("champion-id").textContent === "`+run.Champion+`"`, browserTimeout) {
		t.Errorf("the page does not name the run's champion %.12s", run.Champion)
	}
	if !page.waitFor(ctx, `(function(){var i = document.querySelector(".replay img"); return i !== null && i.complete && i.naturalWidth > 0})()`, browserTimeout) {
		t.Error("the champion's replay did not load")
	}
	t.Logf("the page updated itself %s times without a reload", updates)

	// A source that tries to break out of its page is shown as text.
	pol := b.open(hs.URL + "/policies/" + evil)
	if !pol.waitFor(ctx, `document.getElementById("source-code") !== null`, browserTimeout) {
		t.Fatal("the policy's page shows no source")
	}
	var src string
	var scripts int
	var pwned bool
	pol.eval(`document.getElementById("source-code").textContent`, &src)
	pol.eval(`document.scripts.length`, &scripts)
	pol.eval(`window.pwned === 1 || document.querySelector("img[onerror]") !== null`, &pwned)
	if src != evilSource || scripts != 1 || pwned {
		t.Errorf("the policy's source: read back %q (want %q), %d scripts in the page (want the site's 1), broke out: %v", src, evilSource, scripts, pwned)
	}
}
