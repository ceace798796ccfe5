package evolve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"policyevolve/envs/ssd"
	"policyevolve/evolve/arena"
	"policyevolve/evolve/gepa"
	"policyevolve/evolve/grammar"
	"policyevolve/evolve/internal/evolvetest"
	"policyevolve/evolve/planner"
	"policyevolve/llm"
	"policyevolve/store"
)

// Policies the recording planner writes, by guidance: each plays
// differently, so that their scores differ.
const (
	standSrc   = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn ssd.Stand\n}\n"
	greedySrc  = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.GreedyAction(agent)\n}\n"
	halfSrc    = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\tif agent%2 == 0 {\n\t\treturn v.GreedyAction(agent)\n\t}\n\treturn ssd.Stand\n}\n"
	exploitSrc = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.ExploitAction(agent)\n}\n"
)

// recordingPlanner is a GuidedPlanner for tests: under guidance G its
// Init writes policies[G]; its k-th reflection answers reflections[k]
// ("" for an answer without guidance); every call is recorded in log.
type recordingPlanner struct {
	policies    map[string]string
	reflections []string
	guidance    string
	log         *plannerLog
}

type plannerLog struct {
	mu       sync.Mutex
	writes   []string // the guidance of each Init
	reflects []planner.ReflectRequest
}

func newRecordingPlanner() *recordingPlanner {
	return &recordingPlanner{
		policies: map[string]string{"": standSrc, "collect greedily": greedySrc,
			"only even agents collect": halfSrc, "beam the others": exploitSrc},
		reflections: []string{"collect greedily", "only even agents collect", "beam the others"},
		log:         &plannerLog{},
	}
}

func (p *recordingPlanner) Name() string { return "recording" }

func (p *recordingPlanner) Init(_ context.Context, req planner.InitRequest) (*planner.Proposal, error) {
	p.log.mu.Lock()
	p.log.writes = append(p.log.writes, p.guidance)
	p.log.mu.Unlock()
	src, ok := p.policies[p.guidance]
	if !ok {
		return nil, fmt.Errorf("recording planner: no policy for guidance %q", p.guidance)
	}
	return &planner.Proposal{Source: []byte(src), Origin: store.Origin{Planner: p.Name(), Operator: planner.OpInit}}, nil
}

func (p *recordingPlanner) Improve(context.Context, planner.ImproveRequest) (*planner.Proposal, error) {
	return nil, errors.New("recording planner: gepa does not improve")
}

func (p *recordingPlanner) Crossover(context.Context, planner.CrossoverRequest) (*planner.Proposal, error) {
	return nil, errors.New("recording planner: gepa does not cross")
}

func (p *recordingPlanner) Fix(_ context.Context, req planner.FixRequest) (*planner.Proposal, error) {
	return nil, fmt.Errorf("recording planner: unexpected fix of %v", req.Problem)
}

func (p *recordingPlanner) Guide(g string) (planner.Planner, error) {
	q := *p
	q.guidance = g
	return &q, nil
}

func (p *recordingPlanner) Reflect(_ context.Context, req planner.ReflectRequest) (*planner.Reflection, error) {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	k := req.Iteration - 1 // one reflection per iteration after the seed
	p.log.reflects = append(p.log.reflects, req)
	if k >= len(p.reflections) || p.reflections[k] == "" {
		return &planner.Reflection{Problem: planner.ErrNoGuidance}, nil
	}
	return &planner.Reflection{Guidance: p.reflections[k], Notes: fmt.Sprintf("reflection %d", k+1)}, nil
}

// gepaConfig is a GEPA job of a few seconds.
func gepaConfig() JobConfig {
	cfg := tinyConfig(ModeGEPA)
	cfg.Iterations = 3
	return cfg
}

func gepaJob(t *testing.T, path string, p planner.GuidedPlanner) *Job {
	t.Helper()
	j := newJobAt(t, path, gepaConfig())
	j.Config.Planners = []string{p.Name()}
	j.Planner = func(spec, run string, _ llm.Gate) (planner.Planner, error) { return p, nil }
	return j
}

// gepaIterations reads a run's iterations.
func gepaIterations(t *testing.T, j *Job, run string) []store.Iteration {
	t.Helper()
	var its []store.Iteration
	if err := j.Store.View(func(tx *store.Tx) (err error) {
		its, err = tx.Iterations(run)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return its
}

// gepaOutcome is what a GEPA run leaves: its champion and, per
// iteration, the candidate, its policy, scores, acceptance and front.
func gepaOutcome(t *testing.T, j *Job, run *store.Run) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "champion %s after %d iterations, %d planner calls\n", run.Champion, run.Iterations, run.Usage.Proposals)
	for _, it := range gepaIterations(t, j, run.ID) {
		p, c := it.Prompt, it.Candidate(0)
		fmt.Fprintf(&b, "%d: parent %d guidance %q problem %q policy %s %s scores %v accepted %v front %v\n",
			p.ID, p.Parent, p.Guidance, p.Problem, c.Policy, c.Status, p.Scores, p.Accepted, it.Front)
	}
	return b.String()
}

// TestGEPAJob runs GEPA end to end with the recording planner: prompt
// candidates, their scores, reflection requests that carry the parent's
// scores (and, at the paper's sparse level, nothing else), GEPA's
// acceptance test, the Pareto front stored with every iteration, the
// champion, the budget of planner calls; and the same seed gives the same
// run.
func TestGEPAJob(t *testing.T) {
	var outcomes []string
	for round := 0; round < 2; round++ {
		p := newRecordingPlanner()
		j := gepaJob(t, filepath.Join(t.TempDir(), "gepa.db"), p)
		t.Logf("seed: %d", j.Config.Seed)
		run, err := j.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if run.Status != store.StatusDone || run.Iterations != 4 || run.Mode != ModeGEPA {
			t.Fatalf("run %+v", run)
		}
		// Four policies written and three reflections: seven planner calls.
		if run.Usage.Proposals != 7 {
			t.Errorf("%d planner calls, want 7", run.Usage.Proposals)
		}
		its := gepaIterations(t, j, run.ID)
		if want := []string{"", "collect greedily", "only even agents collect", "beam the others"}; !slices.Equal(p.log.writes, want) {
			t.Errorf("policies written under guidance %q, want %q", p.log.writes, want)
		}
		if len(p.log.reflects) != 3 {
			t.Fatalf("%d reflections, want 3", len(p.log.reflects))
		}
		var accepted []gepa.Scored
		bestTotal, champion := 0.0, ""
		for i, it := range its {
			pc, c := it.Prompt, it.Candidate(0)
			if pc == nil || pc.ID != i || c == nil || c.Status != store.CandidateEvaluated || !pc.Scored {
				t.Fatalf("iteration %d: prompt %+v candidate %+v", i, pc, c)
			}
			// Scores: the mean per-agent return on each seed.
			ev, err := j.arena.Evaluate(context.Background(), c.Policy)
			if err != nil {
				t.Fatal(err)
			}
			for k, sr := range ev.PerSeed {
				var sum float64
				for _, r := range sr.Returns {
					sum += r
				}
				if want := sum / float64(len(sr.Returns)); pc.Scores[k] != want || sr.Seed != j.Config.EvalSeeds[k] {
					t.Errorf("iteration %d seed %d: score %v, want %v", i, sr.Seed, pc.Scores[k], want)
				}
			}
			total := (gepa.Scored{Scores: pc.Scores}).Total()
			if i == 0 {
				if pc.Parent != -1 || pc.Guidance != "" || pc.Reflected || !pc.Accepted {
					t.Errorf("seed candidate %+v", pc)
				}
			} else {
				req := p.log.reflects[i-1]
				parent := its[pc.Parent]
				if !slices.ContainsFunc(accepted, func(s gepa.Scored) bool { return s.ID == pc.Parent }) {
					t.Errorf("iteration %d reflected on candidate %d, not in the pool %v", i, pc.Parent, accepted)
				}
				if req.Guidance != parent.Prompt.Guidance || req.Policy.Policy.ID != parent.Candidate(0).Policy {
					t.Errorf("iteration %d: reflection on %q / %.12s, want candidate %d", i, req.Guidance, req.Policy.Policy.ID, pc.Parent)
				}
				for k, s := range req.Seeds {
					if s.Seed != j.Config.EvalSeeds[k] || s.Score != parent.Prompt.Scores[k] {
						t.Errorf("iteration %d: the reflection saw seed %d score %v, the parent scored %v", i, s.Seed, s.Score, parent.Prompt.Scores[k])
					}
				}
				if req.Feedback != planner.Sparse || req.Reflections != nil || req.Diagnostics != nil {
					t.Errorf("iteration %d: the reflection saw more than the reward: %+v", i, req)
				}
				if !pc.Reflected || pc.Guidance != p.reflections[i-1] || pc.Notes != fmt.Sprintf("reflection %d", i) {
					t.Errorf("iteration %d: prompt %+v", i, pc)
				}
				want := total > (gepa.Scored{Scores: parent.Prompt.Scores}).Total()
				if pc.Accepted != want {
					t.Errorf("iteration %d: accepted %v, scores %v against the parent's %v", i, pc.Accepted, pc.Scores, parent.Prompt.Scores)
				}
			}
			if pc.Accepted {
				accepted = append(accepted, gepa.Scored{ID: pc.ID, Scores: pc.Scores})
				if champion == "" || total > bestTotal {
					champion, bestTotal = c.Policy, total
				}
			}
			// The front: per seed, the best accepted score and who has it.
			for k, f := range it.Front {
				best, who := 0.0, []int(nil)
				for _, a := range accepted {
					switch {
					case who == nil || a.Scores[k] > best:
						best, who = a.Scores[k], []int{a.ID}
					case a.Scores[k] == best:
						who = append(who, a.ID)
					}
				}
				if f.Seed != j.Config.EvalSeeds[k] || f.Best != best || !slices.Equal(f.Candidates, who) {
					t.Errorf("iteration %d: front %+v, want best %v by %v", i, f, best, who)
				}
			}
			if it.Champion != champion {
				t.Errorf("iteration %d: champion %.12s, want %.12s", i, it.Champion, champion)
			}
		}
		// The greedy collector beats standing still: the search moved.
		if !its[1].Prompt.Accepted || its[0].Prompt.Scores[0] != 0 {
			t.Errorf("greedy %+v after stand %+v", its[1].Prompt, its[0].Prompt)
		}
		outcomes = append(outcomes, gepaOutcome(t, j, run))
	}
	t.Logf("\n%s", outcomes[0])
	if outcomes[0] != outcomes[1] {
		t.Fatalf("the same seed gave two runs:\n%s\n%s", outcomes[0], outcomes[1])
	}
}

// TestGEPABudgetAndRefusals: a reflection that gives no guidance leaves
// its candidate refused (one call spent); the budget stops the run when a
// reflection and its policy no longer fit; a planner that cannot take
// guidance is refused with a clear error.
func TestGEPABudgetAndRefusals(t *testing.T) {
	p := newRecordingPlanner()
	p.reflections[0] = ""
	j := gepaJob(t, filepath.Join(t.TempDir(), "gepa.db"), p)
	j.Config.MaxPlannerCalls = 5 // 1 + 1 (refused) + 2, then 1 left
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusStopped || run.Iterations != 3 || !strings.Contains(run.StopReason, "2 calls, 1 left") {
		t.Fatalf("run: %s after %d iterations (%s)", run.Status, run.Iterations, run.StopReason)
	}
	its := gepaIterations(t, j, run.ID)
	c := its[1].Candidate(0)
	if c.Status != store.CandidateRefused || !strings.Contains(c.Problem, "reflection: no guidance") || its[1].Prompt.Accepted || its[1].Usage.Proposals != 1 {
		t.Errorf("iteration 1: %+v %+v", c, its[1].Prompt)
	}
	if !slices.Equal(p.log.writes, []string{"", "only even agents collect"}) {
		t.Errorf("writes %q", p.log.writes)
	}

	plain := gepaJob(t, filepath.Join(t.TempDir(), "plain.db"), newRecordingPlanner())
	plain.Planner = func(spec, run string, _ llm.Gate) (planner.Planner, error) {
		return struct{ planner.Planner }{newRecordingPlanner()}, nil
	}
	if _, err := plain.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot write under strategy guidance") {
		t.Errorf("a planner without guidance: %v", err)
	}
	cfg := gepaConfig()
	cfg.Planners = []string{"grammar", "llm:replay:x"}
	if err := cfg.WithDefaults().Validate(); err == nil || !strings.Contains(err.Error(), "one planner") {
		t.Errorf("two planners: %v", err)
	}
}

// TestGEPAResume: a run stopped after a reflection resumes without
// reflecting again and ends as an uninterrupted run does.
func TestGEPAResume(t *testing.T) {
	ref := gepaJob(t, filepath.Join(t.TempDir(), "ref.db"), newRecordingPlanner())
	refRun, err := ref.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := gepaOutcome(t, ref, refRun)

	path := filepath.Join(t.TempDir(), "stopped.db")
	p := newRecordingPlanner()
	j := gepaJob(t, path, p)
	j.Events = ReporterFunc(func(e Event) {
		if e.Kind == EventPhase && e.Phase == "reflect" && e.Iteration == 2 {
			j.Stop() // the reflection runs; the job stops before writing
		}
	})
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusStopped || run.Iterations != 2 || len(p.log.reflects) != 2 || len(p.log.writes) != 2 {
		t.Fatalf("stopped run %+v after %d reflections, %d writes", run, len(p.log.reflects), len(p.log.writes))
	}
	p2 := newRecordingPlanner()
	j2 := gepaJob(t, path, p2)
	j2.RunID = run.ID
	run2, err := j2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := gepaOutcome(t, j2, run2); got != want {
		t.Fatalf("stopped and resumed:\n%s\nuninterrupted:\n%s", got, want)
	}
	if len(p2.log.reflects) != 1 || p2.log.reflects[0].Iteration != 3 {
		t.Errorf("the resumed run reflected %d times (%+v), want once, for iteration 3", len(p2.log.reflects), p2.log.reflects)
	}
}

// TestGEPAWithLLMReplay: the LLM planner's side of GEPA, through the
// ledger: the reflection prompt carries the parent's reward per seed and
// its policy, and the next policy's system message ends with the new
// guidance.
func TestGEPAWithLLMReplay(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST"} {
		t.Setenv(v, "")
	}
	stand := "Stand still.\n\n```go\n" + standSrc + "```\n"
	reflection := "It stood still and earned nothing.\n\n```\nWalk to the nearest apple by BFS; never beam.\n```\n"
	answers := filepath.Join(t.TempDir(), "answers.txt")
	if err := os.WriteFile(answers, []byte(llm.FormatReplay([]string{stand, reflection, evolvetest.ValidAnswer})), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := gepaConfig()
	cfg.Iterations = 1
	j := newJob(t, cfg)
	spec := "llm:replay:" + answers
	j.Config.Planners = []string{spec}
	j.Planner = func(_, run string, _ llm.Gate) (planner.Planner, error) {
		return evolvetest.PlannerFor(t, &arena.Arena{Store: j.Store}, "replay:"+answers, run), nil
	}
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusDone || run.Usage.Proposals != 3 || run.Usage.LLMCalls != 3 {
		t.Fatalf("run %+v", run)
	}
	cs := evolvetest.Calls(t, j.Store, run.ID)
	if len(cs) != 3 {
		t.Fatalf("%d calls", len(cs))
	}
	if strings.Contains(cs[0].System, "Strategy guidance") {
		t.Error("the seed candidate's system message has guidance")
	}
	r := cs[1]
	for _, want := range []string{"seed 0: reward per agent 0.00", "seed 1: reward per agent 0.00", "mean reward per agent: 0.00",
		"return ssd.Stand", "None yet"} {
		if !strings.Contains(r.Prompt, want) {
			t.Errorf("the reflection prompt lacks %q:\n%s", want, r.Prompt)
		}
	}
	if r.Purpose != planner.OpReflect || strings.Contains(r.Prompt, "efficiency") {
		t.Errorf("reflection call: purpose %q; sparse feedback shows no social metric", r.Purpose)
	}
	if !strings.HasSuffix(cs[2].System, "## Strategy guidance\n\nFollow this guidance when you design the policy:\n\nWalk to the nearest apple by BFS; never beam.\n") {
		t.Errorf("the second policy's system message ends %q", cs[2].System[max(0, len(cs[2].System)-200):])
	}
	its := gepaIterations(t, j, run.ID)
	p := its[1].Prompt
	if p.Guidance != "Walk to the nearest apple by BFS; never beam." || p.Notes != "It stood still and earned nothing." ||
		p.Call != fmt.Sprintf("llm-call:%d", r.ID) || !p.Accepted || run.Champion != its[1].Candidate(0).Policy {
		t.Errorf("candidate 1 %+v, champion %.12s", p, run.Champion)
	}
}

// TestGEPAWithTheGrammarPlanner: GEPA runs offline; every candidate is
// grammar guidance that reads back, the reflections say they are random
// at the sparse level, and the policies are the planner's renderings.
func TestGEPAWithTheGrammarPlanner(t *testing.T) {
	j := newJob(t, gepaConfig())
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusDone || run.Iterations != 4 || run.Champion == "" {
		t.Fatalf("run %+v", run)
	}
	for _, it := range gepaIterations(t, j, run.ID) {
		p, c := it.Prompt, it.Candidate(0)
		t.Logf("%d: parent %d scores %v accepted %v\n%s", p.ID, p.Parent, p.Scores, p.Accepted, p.Guidance)
		if _, err := grammar.ParseGuidance(p.Guidance, ssd.Gathering); err != nil {
			t.Errorf("candidate %d: %v", p.ID, err)
		}
		if p.ID > 0 && (p.Guidance == "" || !strings.Contains(p.Notes, "at random")) {
			t.Errorf("candidate %d: guidance %q, notes %q", p.ID, p.Guidance, p.Notes)
		}
		var pol *store.Policy
		j.Store.View(func(tx *store.Tx) (err error) {
			pol, err = tx.Policy(c.Policy)
			return err
		})
		if pol == nil || pol.Origin.Planner != planner.GrammarName || !strings.Contains(pol.Source, "// genome:") {
			t.Errorf("candidate %d's policy %+v", p.ID, pol)
		}
	}
}

// TestGEPAResumeAfterKill: a GEPA run with the offline planner killed
// with SIGKILL while it reflects, writes or evaluates resumes and ends as
// an uninterrupted run of the same seed does.
func TestGEPAResumeAfterKill(t *testing.T) {
	resumeAfterKill(t, ModeGEPA, gepaConfig(), gepaOutcome, "1 reflect", "2 propose", "3 evaluate")
}

// TestGEPACriticFeedback: the richer variant (docs/decisions.md: a flag, a
// separate row) shows the reflection the critic's findings and numbers.
func TestGEPACriticFeedback(t *testing.T) {
	p := newRecordingPlanner()
	j := gepaJob(t, filepath.Join(t.TempDir(), "gepa.db"), p)
	j.Config.Iterations, j.Config.Feedback = 1, string(planner.Critic)
	if _, err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(p.log.reflects) != 1 {
		t.Fatalf("%d reflections", len(p.log.reflects))
	}
	req := p.log.reflects[0]
	if req.Feedback != planner.Critic || req.Diagnostics == nil || len(req.Reflections) == 0 {
		t.Errorf("the reflection on standing still saw feedback %q, diagnostics %v, reflections %v", req.Feedback, req.Diagnostics != nil, req.Reflections)
	}
}

// TestGEPAScoresKnownPolicies: guidance that leads to a policy written
// before is scored by that policy, not refused as a duplicate (the
// recording planner fails the test if asked to fix).
func TestGEPAScoresKnownPolicies(t *testing.T) {
	p := newRecordingPlanner()
	p.reflections = []string{"stand still too"}
	p.policies["stand still too"] = standSrc
	j := gepaJob(t, filepath.Join(t.TempDir(), "gepa.db"), p)
	j.Config.Iterations = 1
	run, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	its := gepaIterations(t, j, run.ID)
	c0, c1 := its[0].Candidate(0), its[1].Candidate(0)
	if c1.Status != store.CandidateEvaluated || c1.Policy != c0.Policy || its[1].Prompt.Accepted ||
		!slices.Equal(its[1].Prompt.Scores, its[0].Prompt.Scores) || run.Usage.Proposals != 3 {
		t.Errorf("candidate 1 %+v %+v after %+v; %d calls", c1, its[1].Prompt, c0, run.Usage.Proposals)
	}
}
