package qlearn

import (
	"errors"
	"fmt"
	"math"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Params are the learner's hyperparameters and the reward shaping.
type Params struct {
	Alpha    float64 `json:"alpha"`     // learning rate
	Gamma    float64 `json:"gamma"`     // discount
	EpsStart float64 `json:"eps_start"` // exploration rate in episode 0
	EpsEnd   float64 `json:"eps_end"`   // exploration rate from EpsDecay episodes on
	// EpsDecay is the number of episodes over which ε falls linearly from
	// EpsStart to EpsEnd (values below 1 count as 1).
	EpsDecay int `json:"eps_decay_episodes"`

	WInd        float64 `json:"w_ind"`       // weight of the agent's own reward
	WTeam       float64 `json:"w_team"`      // weight of the mean reward of all agents
	BeamPenalty float64 `json:"beam_pen"`    // subtracted when the agent fires the beam
	CleanBonus  float64 `json:"clean_bonus"` // Cleanup: added when it cleans with waste in reach
}

// DefaultParams returns the values of the reference's main programs, the
// paper's runs: α 0.1, γ 0.99, ε from 1 to 0.05 over 100 episodes
// (Gathering) or 200 (Cleanup), rewards weighted half own, half team;
// firing costs 0.1 (Gathering) or 2 (Cleanup), and a useful clean earns
// 1.5.
func DefaultParams(game ssd.Game) Params {
	p := Params{Alpha: 0.1, Gamma: 0.99, EpsStart: 1, EpsEnd: 0.05, EpsDecay: 100,
		WInd: 0.5, WTeam: 0.5, BeamPenalty: 0.1}
	if game == ssd.Cleanup {
		p.EpsDecay, p.BeamPenalty, p.CleanBonus = 200, 2, 1.5
	}
	return p
}

// Validate reports parameters training cannot use.
func (p Params) Validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"alpha", p.Alpha}, {"gamma", p.Gamma}, {"eps_start", p.EpsStart}, {"eps_end", p.EpsEnd},
		{"w_ind", p.WInd}, {"w_team", p.WTeam}, {"beam_pen", p.BeamPenalty}, {"clean_bonus", p.CleanBonus}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return fmt.Errorf("%s is %v", v.name, v.x)
		}
	}
	return nil
}

// DefaultEpisodes and DefaultSeed are the reference's training run: 1000
// episodes from seed 40.
const (
	DefaultEpisodes = 1000
	DefaultSeed     = 40
)

// Config describes one training run. Map and Agents are required;
// Episodes, MaxSteps and Params take the reference's values when zero. Seed
// 0 is a seed like any other (DefaultSeed is the paper's).
type Config struct {
	Map      *envs.Map
	MapName  string // recorded in the table's Info
	Agents   int
	Episodes int     // 0: DefaultEpisodes
	Seed     uint64  // episode e resets the game with Seed+e; the learner draws from NewRNG(Seed)
	MaxSteps int     // 0: envs.DefaultMaxSteps
	Params   *Params // nil: DefaultParams(Map.Game)

	// OnEpisode, when set, is called after every episode, from the
	// training goroutine.
	OnEpisode func(EpisodeStats)
}

// EpisodeStats summarise one training episode.
type EpisodeStats struct {
	Episode    int     // 0-based
	Episodes   int     // of the run
	TeamReward float64 // sum of all agents' raw rewards
	Epsilon    float64 // the exploration rate of the episode
	States     int     // visited states so far
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Map == nil {
		return out, errors.New("no map")
	}
	if out.Agents < 1 {
		return out, fmt.Errorf("%d agents (need at least 1)", out.Agents)
	}
	if out.Episodes < 0 {
		return out, fmt.Errorf("%d episodes is negative", out.Episodes)
	}
	if out.Episodes == 0 {
		out.Episodes = DefaultEpisodes
	}
	if out.MaxSteps == 0 {
		out.MaxSteps = envs.DefaultMaxSteps
	}
	p := DefaultParams(out.Map.Game)
	if out.Params != nil {
		p = *out.Params
	}
	if err := p.Validate(); err != nil {
		return out, err
	}
	out.Params = &p
	return out, nil
}
