package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"policyevolve/critic"
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// The trace file of "play --trace": JSON lines, episode after episode.
// Each episode is a header line, a reset line (t = 0), one line per step
// (the state after it) and an end line. Cells are [row, col] pairs.

// traceVersion is the format's version, in every header.
const traceVersion = 1

// traceHeader holds what a replay needs: the map itself, the rules, the
// agents, the seed and the episode length.
type traceHeader struct {
	Kind    string      `json:"kind"` // "header"
	Version int         `json:"version"`
	Game    string      `json:"game"`
	Map     string      `json:"map"`      // as given to --map
	MapText string      `json:"map_text"` // the map's text: envs.ParseMap reads it
	Agents  int         `json:"agents"`
	Seed    uint64      `json:"seed"`
	Steps   int         `json:"steps"` // episode length
	Policy  string      `json:"policy"`
	Params  traceParams `json:"params"`
	Apples  [][2]int    `json:"apple_spawns"`    // apple spawn cells; "collected" indexes them
	River   [][2]int    `json:"river,omitempty"` // Cleanup: river cells
}

// traceParams are the game's rules (ssd.Params) as the trace spells them.
type traceParams struct {
	BeamLength           int     `json:"beam_length"`
	BeamWidth            int     `json:"beam_width"`
	HitsToTag            int     `json:"hits_to_tag"`
	TimeoutSteps         int     `json:"timeout_steps"`
	AppleRespawnTime     int     `json:"apple_respawn_time,omitempty"`
	FireCost             float64 `json:"fire_cost,omitempty"`
	FirePenalty          float64 `json:"fire_penalty,omitempty"`
	CleanCost            float64 `json:"clean_cost,omitempty"`
	ThresholdDepletion   float64 `json:"threshold_depletion,omitempty"`
	ThresholdRestoration float64 `json:"threshold_restoration,omitempty"`
	WasteSpawnProb       float64 `json:"waste_spawn_prob,omitempty"`
	AppleRespawnProb     float64 `json:"apple_respawn_prob,omitempty"`
}

// traceStep is the state after step T (T = 0: after reset), with what
// happened during the step.
type traceStep struct {
	Kind    string        `json:"kind"` // "reset" or "step"
	T       int           `json:"t"`
	Actions []int         `json:"actions,omitempty"`
	Rewards []float64     `json:"rewards,omitempty"`
	Pos     [][2]int      `json:"pos"`
	Orient  []int         `json:"orient"`
	Timeout []int         `json:"timeout"`
	Hits    []int         `json:"hits"`
	Beams   []critic.Shot `json:"beams,omitempty"`  // beams fired: shooter, agents hit, agents tagged
	Cleans  []traceClean  `json:"cleans,omitempty"` // clean beams fired and the waste they removed
	// Collected[i] is the apple spawn agent i collected at the step, or -1.
	Collected []int    `json:"collected,omitempty"`
	Apples    [][2]int `json:"apples"`          // alive apples
	Waste     [][2]int `json:"waste,omitempty"` // Cleanup: polluted river cells
}

type traceClean struct {
	Agent   int      `json:"agent"`
	Removed [][2]int `json:"removed"`
}

// traceEnd closes an episode.
type traceEnd struct {
	Kind    string       `json:"kind"`  // "end"
	Steps   int          `json:"steps"` // steps completed
	Returns []float64    `json:"returns"`
	Metrics envs.Metrics `json:"metrics"`
	Error   string       `json:"error,omitempty"` // why the episode stopped early
}

// writeTrace appends one recorded episode to w. The events (beams, hits,
// cleaning, apples collected) are derived from the trajectory by the
// critic.
func writeTrace(w *bufio.Writer, h traceHeader, res *envs.Result, failure string) error {
	tr := res.Trajectory
	events, err := critic.Derive(tr)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	lay := tr.Layout
	h.Kind, h.Version, h.Seed = "header", traceVersion, tr.Seed
	h.Params, h.Apples = traceParams(lay.Params), pairs(lay.Apples)
	if lay.Game == ssd.Cleanup {
		h.River = pairs(lay.River)
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(h); err != nil {
		return err
	}
	if err := enc.Encode(traceState("reset", &tr.Reset)); err != nil {
		return err
	}
	for t := range tr.Steps {
		s := &tr.Steps[t]
		line := traceState("step", &s.State)
		line.Actions, line.Rewards = s.Actions, s.Rewards
		ev := &events[t]
		line.Beams, line.Collected = ev.Beams, ev.Collected
		for _, c := range ev.Cleans {
			line.Cleans = append(line.Cleans, traceClean{Agent: c.Agent, Removed: pairs(c.Removed)})
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return enc.Encode(traceEnd{Kind: "end", Steps: res.Steps, Returns: res.Returns, Metrics: res.Metrics, Error: failure})
}

func traceState(kind string, st *ssd.State) traceStep {
	line := traceStep{Kind: kind, T: st.Step, Pos: pairs(st.Pos), Orient: st.Orient, Timeout: st.Timeout, Hits: st.Hits,
		Apples: [][2]int{}}
	for k, alive := range st.AppleAlive {
		if alive {
			line.Apples = append(line.Apples, pair(st.Layout.Apples[k]))
		}
	}
	for k, w := range st.Waste {
		if w {
			line.Waste = append(line.Waste, pair(st.Layout.River[k]))
		}
	}
	return line
}

func pair(p ssd.Pos) [2]int { return [2]int{p.R, p.C} }

func pairs(ps []ssd.Pos) [][2]int {
	out := make([][2]int, len(ps))
	for i, p := range ps {
		out[i] = pair(p)
	}
	return out
}

// traceFile is an open --trace file.
type traceFile struct {
	c      io.Closer
	w      *bufio.Writer
	closed bool
}

// close flushes and closes the file; later calls do nothing.
func (f *traceFile) close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	err := f.w.Flush()
	if cerr := f.c.Close(); err == nil {
		err = cerr
	}
	return err
}
