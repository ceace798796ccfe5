package critic

import "policyevolve/envs/ssd"

// Reflection is one finding of the critic: what happened, with its
// numbers, and what to change.
type Reflection struct {
	// Code identifies the kind of finding, stably across runs, e.g.
	// "waste-high" or "idle".
	Code string `json:"code"`
	// Text states the finding with its numbers and a direction, in a
	// sentence or two meant for a planner's prompt.
	Text string `json:"text"`
	// Stake estimates the per-agent reward at stake; reflections are
	// ranked by it, largest first.
	Stake float64 `json:"stake"`
}

// Diagnostics are the numbers the critic computes from a policy's
// episodes (see Diagnose); reflections are derived from them.
//
// Units: a "share" is a fraction in [0, 1]; "per agent" means per agent of
// the policy under study and per episode, averaged over its episodes; a
// rate of behaviour is a share of the agent's active agent-steps (steps at
// which it was not tagged out and so could act).
type Diagnostics struct {
	Game     string     `json:"game"`
	Params   ssd.Params `json:"params"` // the game's rules
	Height   int        `json:"height"`
	Width    int        `json:"width"`
	Agents   int        `json:"agents"`   // agents per episode, all policies
	Steps    int        `json:"steps"`    // steps of the longest episode
	Episodes int        `json:"episodes"` // episodes diagnosed
	Seeds    []uint64   `json:"seeds"`
	// Mine is the mean number of agents the policy plays per episode.
	Mine float64 `json:"mine"`

	// Reward is the policy's mean per-agent return; Apples its apples.
	Reward float64 `json:"reward"`
	Apples float64 `json:"apples"`
	// Equality is 1 - Gini of the policy's agents' returns, mean over
	// episodes (1 when they earned nothing).
	Equality float64 `json:"equality"`
	// ActiveSteps is the mean number of steps an agent could act.
	ActiveSteps float64 `json:"active_steps"`
	// Rate is the policy's apples per active agent-step; Supply is the
	// game's apple supply per agent-step (see supply). Stakes use Rate, or
	// Supply when the policy collects nothing.
	Rate   float64 `json:"rate"`
	Supply float64 `json:"supply"`

	// Actions is the action mix: the share of active agent-steps spent on
	// each action, by action name.
	Actions map[string]float64 `json:"actions"`
	// Idle is the share of active agent-steps spent standing;
	// IdleWithApples counts, per agent, the steps it stood while at least
	// one apple was on the map.
	Idle           float64 `json:"idle"`
	IdleWithApples float64 `json:"idle_with_apples"`
	// Oscillation is the share of active agent-steps that undid the
	// previous step's move or turn (back where it stood two steps ago,
	// facing the same way).
	Oscillation float64 `json:"oscillation"`

	Beams    Beams    `json:"beams"`
	Contest  Contest  `json:"contest"`
	Coverage Coverage `json:"coverage"`

	// PerAgent holds one entry per agent id the policy played in at least
	// one episode, in id order.
	PerAgent []Agent `json:"per_agent"`
	// Starving lists the agents whose mean return is below StarveShare
	// (Config.StarveShare) of the policy's mean (none when that is <= 0).
	Starving    []int   `json:"starving"`
	StarveShare float64 `json:"starve_share"`

	Cleanup   *Cleanup   `json:"cleanup,omitempty"`   // Cleanup only
	Opponents []Opponent `json:"opponents,omitempty"` // one per opponent met in matches
}

// Beams are the tagging (Gathering) or penalty (Cleanup) beams of the
// policy's agents, per agent.
type Beams struct {
	Fired   float64 `json:"fired"`
	HitRate float64 `json:"hit_rate"` // share of beams that hit at least one agent
	Hits    float64 `json:"hits"`     // agents hit
	Tags    float64 `json:"tags"`     // agents tagged out
	// Friendly is the share of the hits that landed on the policy's own
	// agents (all of them in self-play).
	Friendly     float64 `json:"friendly"`
	HitsSuffered float64 `json:"hits_suffered"`
	TagsSuffered float64 `json:"tags_suffered"`
	// TaggedOut is the steps spent tagged out (timeout > 0 after a step).
	TaggedOut float64 `json:"tagged_out"`
	// Cost is the reward lost to penalty beams (Cleanup): firing costs
	// plus penalties suffered.
	Cost float64 `json:"cost"`
}

// Contest measures agents chasing the same apples. An agent heads for an
// apple at a step when that apple is the nearest alive one (by shortest
// path) from where it stood and its move brought it closer.
type Contest struct {
	// Share is the share of the policy's active agent-steps spent heading
	// for an apple another agent headed for at the same step.
	Share float64 `json:"share"`
	// Apples is the mean number of apples per step that several agents
	// headed for.
	Apples float64 `json:"apples"`
	// Wasted is the steps per agent spent heading for an apple that another
	// agent collected first.
	Wasted float64 `json:"wasted"`
}

// Coverage says where the policy's agents collected.
type Coverage struct {
	Spawns int `json:"spawns"` // apple spawn cells
	// Never is the mean number of spawn cells per episode where the
	// policy's agents collected nothing.
	Never float64 `json:"never"`
	// Respawned counts apples that reappeared, per episode; Uncollected
	// those of them still uncollected at the end of the episode.
	Respawned   float64 `json:"respawned"`
	Uncollected float64 `json:"uncollected"`
	// Map draws the grid, one string per row: '@' wall, '~' river, '='
	// stream, ' ' other cells, and at each apple spawn '.' when the
	// policy's agents never collected there, else a digit 1-9 scaled to
	// the most harvested spawn (9).
	Map []string `json:"map"`
}

// Agent is one agent id's behaviour over the episodes in which the
// policy played it, per episode.
type Agent struct {
	ID       int `json:"id"`
	Episodes int `json:"episodes"`

	Return      float64   `json:"return"`
	Apples      float64   `json:"apples"`
	ActiveSteps float64   `json:"active_steps"`
	Actions     []float64 `json:"actions"` // share of active steps, by action number
	Idle        float64   `json:"idle"`
	Oscillation float64   `json:"oscillation"`

	Beams        float64 `json:"beams"`
	BeamsHit     float64 `json:"beams_hit"` // beams that hit someone
	Hits         float64 `json:"hits"`
	Tags         float64 `json:"tags"`
	HitsSuffered float64 `json:"hits_suffered"`
	TagsSuffered float64 `json:"tags_suffered"`
	TaggedOut    float64 `json:"tagged_out"`

	Cleans  float64 `json:"cleans,omitempty"`
	Removed float64 `json:"removed,omitempty"` // waste cells its clean beams removed
}

// Cleanup holds what only Cleanup has: waste, regrowth and cleaning.
type Cleanup struct {
	// Threshold is the depletion threshold: at or above this waste density
	// no apple regrows (Params.ThresholdDepletion).
	Threshold float64 `json:"threshold"`
	// Waste is the mean waste density after a step; AtThreshold the share
	// of steps ending at or above Threshold; Min and Max the extremes.
	Waste       float64 `json:"waste"`
	AtThreshold float64 `json:"at_threshold"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	// WasteOverTime is the mean density in Config.Bins equal slices of the
	// episode.
	WasteOverTime []float64 `json:"waste_over_time"`
	// Regrowth counts apples that grew back, per episode;
	// RegrowthOverTime splits them over the same slices.
	Regrowth         float64   `json:"regrowth"`
	RegrowthOverTime []float64 `json:"regrowth_over_time"`
	// LostRegrowth is the expected number of regrowths per episode that
	// the waste prevented: at each step, the dead apples not under an
	// agent times the gap between the regrowth probability of a clean
	// river and the probability at that step's density.
	LostRegrowth float64 `json:"lost_regrowth"`
	// Collapsed counts the episodes in which no apple regrew during their
	// last CollapseWindow steps.
	Collapsed      int `json:"collapsed"`
	CollapseWindow int `json:"collapse_window"`

	// CleanBeams per agent; WastePerBeam cells removed per clean beam;
	// Empty the share of clean beams that removed nothing.
	CleanBeams   float64 `json:"clean_beams"`
	WastePerBeam float64 `json:"waste_per_beam"`
	Empty        float64 `json:"empty"`
	// CleanersPerStep is the mean number of the policy's agents firing a
	// clean beam at a step; Cleaners the mean number per episode that
	// cleaned at least once.
	CleanersPerStep float64 `json:"cleaners_per_step"`
	Cleaners        float64 `json:"cleaners"`
	// FreeRiding is the share of the episode's apples (every agent's)
	// taken by agents that never fired a clean beam in that episode.
	FreeRiding float64 `json:"free_riding"`
}

// Opponent sums up the matches against one opponent.
type Opponent struct {
	Name     string `json:"name"`
	Episodes int    `json:"episodes"`
	// Mine and Theirs are the mean per-agent returns of each side over
	// all the episodes, as a match scores them; Margin is Theirs - Mine,
	// positive when the opponent did better.
	Mine   float64 `json:"mine"`
	Theirs float64 `json:"theirs"`
	Margin float64 `json:"margin"`
	// Beaten: the opponent won by the match rule (elo.Outcome): by more
	// than the draw margin.
	Beaten bool `json:"beaten"`
	// Tags between the sides per episode: of the policy's agents by the
	// opponent's (Suffered) and the other way (Dealt).
	TagsSuffered float64 `json:"tags_suffered"`
	TagsDealt    float64 `json:"tags_dealt"`
	// Seats is the policy's share of the agents; AppleShare and CleanShare
	// its share of the apples collected and of the clean beams fired.
	Seats      float64 `json:"seats"`
	AppleShare float64 `json:"apple_share"`
	CleanShare float64 `json:"clean_share"`
	// Exploited: the opponent did better and either tagged the policy's
	// agents more than it was tagged, or (Cleanup) the policy did more than
	// its share of the cleaning and got less than its share of the apples.
	Exploited bool `json:"exploited"`
}
