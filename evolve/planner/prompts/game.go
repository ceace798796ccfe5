package prompts

import (
	"fmt"
	"strings"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
)

// Game is what the prompts say about the environment, every number taken
// from the map, the agent count, the episode length and the game's
// parameters.
type Game struct {
	Name       string // "gathering"
	Title      string // "Gathering"
	Cleanup    bool
	Agents     int
	Width      int
	Height     int
	MaxSteps   int
	Apples     int // apple spawn cells
	NumActions int
	Actions    []Action
	Params     ssd.Params
	// Cleanup only.
	RiverCells   int
	StreamCells  int
	InitialWaste int
	// DepletionPct and RestorationPct are the waste thresholds as percents.
	DepletionPct, RestorationPct  float64
	WasteSpawnPct, AppleRegrowPct float64
	// The policy contract, from the sandbox.
	Signature string
	Imports   []string
	// API is the ssd package as a policy sees it (see API).
	API string
	// Example is a working policy (examples/policies/bfs.go).
	Example string
	// Style is the prompting style (see the Style constants): the
	// standard prompts, naive or chain-of-thought.
	Style string
	// Adversarial tells the model it may do anything to maximise its
	// reward (the paper's adaptive attacker), to measure how often the
	// sandbox must refuse what it writes.
	Adversarial bool
	// Legacy renders the prompts as they were before they were built per
	// game (see LegacyGame).
	Legacy bool
	// Exploit, when set, says the policy is an invader: it plays agents
	// 0…Invaders−1 among residents running a fixed policy, scored by its
	// own agents' reward (the exploit objective; docs/objectives.md).
	Exploit *Exploit
}

// Exploit is whom an exploit run's policy plays against.
type Exploit struct {
	// Residents names the residents' policy; Source is its code when it
	// is a source policy (shown in full: a white-box attacker is the
	// honest worst case), empty for a built-in.
	Residents, Source string
	Invaders          int
}

// Prompt styles, as in PolicyEvolve's baselines.
const (
	// StyleStandard is the paper's prompts: the rules, the API, the
	// contract, a working example, and reasoning before the code.
	StyleStandard = ""
	// StyleNaive is the task only: the rules, the API and the contract,
	// no example, and the code without an explanation.
	StyleNaive = "naive"
	// StyleCoT asks the model to reason step by step, in named steps,
	// before the code.
	StyleCoT = "cot"
	// StyleReact is ReAct: reason–act turns in which the model may test a
	// draft (it is played for every agent on a few seeds and its scores
	// come back) before its final answer.
	StyleReact = "react"
)

// Action is one action as the prompts list it.
type Action struct {
	Value int
	Const string // "ssd.Forward"
	Name  string // "forward"
}

// NewGame describes an environment for the prompts.
func NewGame(m *envs.Map, agents, maxSteps int) (Game, error) {
	g := m.Game
	api, err := API(g)
	if err != nil {
		return Game{}, err
	}
	p := ssd.DefaultParams(g)
	out := Game{
		Name: g.String(), Title: strings.ToUpper(g.String()[:1]) + g.String()[1:], Cleanup: g == ssd.Cleanup,
		Agents: agents, Width: m.Width, Height: m.Height, MaxSteps: maxSteps, Apples: len(m.Apples),
		NumActions: g.NumActions(), Params: p,
		RiverCells: len(m.River), StreamCells: len(m.Stream),
		DepletionPct: 100 * p.ThresholdDepletion, RestorationPct: 100 * p.ThresholdRestoration,
		WasteSpawnPct: 100 * p.WasteSpawnProb, AppleRegrowPct: 100 * p.AppleRespawnProb,
		Signature: sandbox.Signature, Imports: sandbox.AllowedImports, API: api, Example: bfsExample,
	}
	for _, d := range m.Dirty {
		if d {
			out.InitialWaste++
		}
	}
	consts := []string{"Forward", "Backward", "StepLeft", "StepRight", "RotateLeft", "RotateRight", "Beam", "Stand", "Clean"}
	for a := 0; a < out.NumActions; a++ {
		out.Actions = append(out.Actions, Action{Value: a, Const: "ssd." + consts[a], Name: ssd.ActionName(a)})
	}
	if out.Actions[len(out.Actions)-1].Name != ssd.ActionName(out.NumActions-1) {
		return Game{}, fmt.Errorf("prompts: action list out of step with ssd")
	}
	return out, nil
}

// LegacyGame is g as the prompts described it before they were built per
// game: the API of both games in every system message, and a failed
// attempt's errors appended to the first prompt (line:column counted in
// the code block) rather than sent as a reply to the failed answer. A run
// recorded then asked its questions in these words: its answers are
// found again under them (planner.LLMPlanner looks them up first).
func (g Game) LegacyGame() (Game, error) {
	api, err := legacyAPI()
	g.API, g.Legacy = api, true
	return g, err
}

// MaxAction is the largest valid action.
func (g Game) MaxAction() int { return g.NumActions - 1 }
