package envs

import (
	"errors"
	"fmt"
	"math/bits"

	"policyevolve/envs/ssd"
)

// DefaultMaxSteps is the episode length of both papers.
const DefaultMaxSteps = 1000

// Config describes one environment. The zero value is not runnable: Map
// and Agents are required; everything else has the reference's default.
type Config struct {
	Map      *Map        // the map; its Game decides the rules
	Agents   int         // number of agents (at least 1)
	MaxSteps int         // episode length; 0 means DefaultMaxSteps
	Params   *ssd.Params // rules; nil means ssd.DefaultParams(Map.Game)
}

// Env is one Gathering or Cleanup environment, reproducing the reference
// Python environments step for step: the same random draws in the same
// order, the same quirks (agents act in index order; timeouts are
// decremented before actions; a beam skips wall cells but continues past
// them; a tag resets the hit counter; in Gathering apples respawn before
// they are collected).
//
// An Env is not safe for concurrent use; run one per goroutine.
type Env struct {
	cfg    Config // as given to New, defaults applied
	lay    *ssd.Layout
	game   ssd.Game
	p      ssd.Params
	h, w   int
	spawns []ssd.Pos
	open   []ssd.Pos
	dirty  []bool // per river cell: polluted at reset

	appleAt []int32 // cell -> apple index or -1
	riverAt []int32 // cell -> river index or -1

	rng     RNG
	step    int
	pos     []ssd.Pos
	orient  []int
	timeout []int
	hits    []int
	alive   []bool
	timer   []int  // Gathering: steps until a dead apple respawns
	waste   []bool // Cleanup: per river cell
	nWaste  int

	rewards   []float64
	available []ssd.Pos
	occ       []uint32 // occ[cell] == occGen: an agent stands there
	occGen    uint32
	cand      []int32
}

// Errors of Step.
var (
	ErrEpisodeOver   = errors.New("episode is over")
	ErrInvalidAction = errors.New("invalid action")
)

// New builds an environment. Call Reset before the first Step.
func New(cfg Config) (*Env, error) {
	m := cfg.Map
	if m == nil {
		return nil, errors.New("env: no map")
	}
	if cfg.Agents < 1 {
		return nil, fmt.Errorf("env: %d agents (need at least 1)", cfg.Agents)
	}
	if cfg.MaxSteps < 0 {
		return nil, fmt.Errorf("env: max steps %d is negative", cfg.MaxSteps)
	}
	steps := cfg.MaxSteps
	if steps == 0 {
		steps = DefaultMaxSteps
	}
	p := ssd.DefaultParams(m.Game)
	if cfg.Params != nil {
		p = *cfg.Params
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("env: %w", err)
	}
	cfg.MaxSteps, cfg.Params = steps, &p
	e := &Env{
		cfg:    cfg,
		game:   m.Game,
		p:      p,
		h:      m.Height,
		w:      m.Width,
		spawns: m.spawnPoints(),
		open:   m.openCells(),
		dirty:  append([]bool(nil), m.Dirty...),
	}
	if cfg.Agents > len(e.spawns) && len(e.open) == 0 {
		return nil, &MapError{File: m.Name, Msg: fmt.Sprintf(
			"%d agents need %d more cells than the %d spawn points, and the map has no open cell to place them",
			cfg.Agents, cfg.Agents-len(e.spawns), len(e.spawns))}
	}
	e.lay = &ssd.Layout{
		Game:      m.Game,
		Height:    m.Height,
		Width:     m.Width,
		Walls:     append([]bool(nil), m.Walls...),
		Apples:    append([]ssd.Pos(nil), m.Apples...),
		River:     append([]ssd.Pos(nil), m.River...),
		Stream:    append([]ssd.Pos(nil), m.Stream...),
		NumAgents: cfg.Agents,
		MaxSteps:  steps,
		Params:    p,
	}
	if err := e.lay.Check(); err != nil {
		return nil, fmt.Errorf("env: %w", err)
	}
	n := cfg.Agents
	cells := e.h * e.w
	e.appleAt = make([]int32, cells)
	e.riverAt = make([]int32, cells)
	for i := range e.appleAt {
		e.appleAt[i], e.riverAt[i] = -1, -1
	}
	for k, q := range m.Apples {
		e.appleAt[q.R*e.w+q.C] = int32(k)
	}
	for k, q := range m.River {
		e.riverAt[q.R*e.w+q.C] = int32(k)
	}
	e.pos = make([]ssd.Pos, n)
	e.orient = make([]int, n)
	e.timeout = make([]int, n)
	e.hits = make([]int, n)
	e.rewards = make([]float64, n)
	e.alive = make([]bool, len(m.Apples))
	e.timer = make([]int, len(m.Apples))
	e.waste = make([]bool, len(m.River))
	e.available = make([]ssd.Pos, 0, len(e.spawns))
	e.occ = make([]uint32, cells)
	e.cand = make([]int32, 0, len(m.River))
	e.Reset(0)
	return e, nil
}

// Config returns the configuration the environment was built from, with
// its defaults applied: New(env.Config()) builds an identical replica.
func (e *Env) Config() Config {
	c := e.cfg
	p := *c.Params
	c.Params = &p
	return c
}

// Layout is the immutable description of the game, shared by all snapshots.
func (e *Env) Layout() *ssd.Layout { return e.lay }

// Game is the game the environment plays.
func (e *Env) Game() ssd.Game { return e.game }

// NumAgents is the number of agents.
func (e *Env) NumAgents() int { return len(e.pos) }

// MaxSteps is the episode length.
func (e *Env) MaxSteps() int { return e.lay.MaxSteps }

// StepCount is the number of steps taken since Reset.
func (e *Env) StepCount() int { return e.step }

// Done reports whether the episode has run all its steps.
func (e *Env) Done() bool { return e.step >= e.lay.MaxSteps }

// Timeout is agent i's remaining timeout after the last step.
func (e *Env) Timeout(i int) int { return e.timeout[i] }

// Reset starts a new episode from seed, drawing as the reference does: a
// shuffle of the spawn points, then per agent an open cell (only for agents
// beyond the spawn points) and an orientation.
func (e *Env) Reset(seed uint64) {
	e.rng.Seed(seed)
	e.step = 0
	av := append(e.available[:0], e.spawns...)
	e.rng.Shuffle(len(av), func(i, j int) { av[i], av[j] = av[j], av[i] })
	e.available = av
	for i := range e.pos {
		if i < len(av) {
			e.pos[i] = av[i]
		} else {
			e.pos[i] = e.open[e.rng.Integers(int64(len(e.open)))]
		}
		e.orient[i] = int(e.rng.Integers(4))
		e.timeout[i] = 0
		e.hits[i] = 0
	}
	for k := range e.alive {
		e.alive[k] = true
		e.timer[k] = 0
	}
	e.nWaste = 0
	for k, d := range e.dirty {
		e.waste[k] = d
		if d {
			e.nWaste++
		}
	}
}

// Step applies one action per agent and returns the rewards of the step.
// The rewards slice belongs to the Env and is overwritten by the next Step.
// An action out of range is an error and changes nothing.
func (e *Env) Step(actions []int) ([]float64, error) {
	if len(actions) != len(e.pos) {
		return nil, fmt.Errorf("step: %d actions for %d agents", len(actions), len(e.pos))
	}
	if e.step >= e.lay.MaxSteps {
		return nil, ErrEpisodeOver
	}
	na := e.game.NumActions()
	for i, a := range actions {
		if a < 0 || a >= na {
			return nil, fmt.Errorf("step: agent %d: %w %d (%s has actions 0-%d)", i, ErrInvalidAction, a, e.game, na-1)
		}
	}
	e.step++
	r := e.rewards
	clear(r)
	for i := range e.timeout {
		if e.timeout[i] > 0 {
			e.timeout[i]--
		}
	}
	for i, a := range actions {
		if e.timeout[i] > 0 {
			continue
		}
		switch a {
		case ssd.Forward, ssd.Backward, ssd.StepLeft, ssd.StepRight:
			e.move(i, a)
		case ssd.RotateLeft:
			e.orient[i] = (e.orient[i] + 3) % 4
		case ssd.RotateRight:
			e.orient[i] = (e.orient[i] + 1) % 4
		case ssd.Beam:
			e.fire(i)
		case ssd.Clean:
			e.clean(i)
		}
	}
	if e.game == ssd.Cleanup {
		e.markOccupied()
		e.spawnWaste()
		e.spawnApples()
	} else {
		e.respawnFixed()
	}
	for i, q := range e.pos {
		if e.timeout[i] > 0 {
			continue
		}
		if k := e.appleAt[q.R*e.w+q.C]; k >= 0 && e.alive[k] {
			e.alive[k] = false
			if e.game == ssd.Gathering {
				e.timer[k] = e.p.AppleRespawnTime
			}
			r[i] += 1
		}
	}
	return r, nil
}

func (e *Env) move(i, a int) {
	fa, fb, fc, fd := ssd.Rotation(e.orient[i])
	var dr, dc int
	switch a {
	case ssd.Forward:
		dr, dc = fa, fc
	case ssd.Backward:
		dr, dc = -fa, -fc
	case ssd.StepLeft:
		dr, dc = -fb, -fd
	case ssd.StepRight:
		dr, dc = fb, fd
	}
	nr, nc := e.pos[i].R+dr, e.pos[i].C+dc
	if nr >= 0 && nr < e.h && nc >= 0 && nc < e.w && !e.lay.Walls[nr*e.w+nc] {
		e.pos[i] = ssd.Pos{R: nr, C: nc}
	}
}

// fire shoots the tagging (Gathering) or penalty (Cleanup) beam. The beam
// covers every non-wall cell of its rectangle; agents stand only on
// non-wall cells, so an agent is hit exactly when it is inside the
// rectangle.
func (e *Env) fire(i int) {
	cleanup := e.game == ssd.Cleanup
	if cleanup {
		e.rewards[i] -= e.p.FireCost
	}
	a, b, c, d := ssd.Rotation(e.orient[i])
	me := e.pos[i]
	halfW := e.p.BeamWidth / 2
	for j, q := range e.pos {
		if j == i || e.timeout[j] > 0 {
			continue
		}
		dr, dc := q.R-me.R, q.C-me.C
		fwd := b*dc - d*dr
		right := c*dr - a*dc
		if fwd < 1 || fwd > e.p.BeamLength || right < -halfW || right > halfW {
			continue
		}
		e.hits[j]++
		if cleanup {
			e.rewards[j] -= e.p.FirePenalty
		}
		if e.hits[j] >= e.p.HitsToTag {
			e.timeout[j] = e.p.TimeoutSteps
			e.hits[j] = 0
		}
	}
}

// clean fires the cleaning beam: every polluted river cell in the beam's
// rectangle becomes clean.
func (e *Env) clean(i int) {
	e.rewards[i] -= e.p.CleanCost
	a, b, c, d := ssd.Rotation(e.orient[i])
	me := e.pos[i]
	halfW := e.p.BeamWidth / 2
	for f := 1; f <= e.p.BeamLength; f++ {
		for off := -halfW; off <= halfW; off++ {
			r, cc := me.R+a*f+b*off, me.C+c*f+d*off
			if r < 0 || r >= e.h || cc < 0 || cc >= e.w {
				continue
			}
			if k := e.riverAt[r*e.w+cc]; k >= 0 && e.waste[k] {
				e.waste[k] = false
				e.nWaste--
			}
		}
	}
}

// respawnFixed counts down the timers of collected apples (Gathering).
func (e *Env) respawnFixed() {
	for k, a := range e.alive {
		if a {
			continue
		}
		e.timer[k]--
		if e.timer[k] <= 0 {
			e.alive[k] = true
			e.timer[k] = 0
		}
	}
}

func (e *Env) markOccupied() {
	e.occGen++
	if e.occGen == 0 {
		clear(e.occ)
		e.occGen = 1
	}
	for _, q := range e.pos {
		e.occ[q.R*e.w+q.C] = e.occGen
	}
}

func (e *Env) wasteDensity() float64 {
	if len(e.waste) == 0 {
		return 0
	}
	return float64(e.nWaste) / float64(len(e.waste))
}

// spawnWaste pollutes one clean, unoccupied river cell with probability
// WasteSpawnProb while the density is below the depletion threshold.
func (e *Env) spawnWaste() {
	if e.wasteDensity() >= e.p.ThresholdDepletion {
		return
	}
	if e.rng.Random() >= e.p.WasteSpawnProb {
		return
	}
	cand := e.cand[:0]
	for k, q := range e.lay.River {
		if !e.waste[k] && e.occ[q.R*e.w+q.C] != e.occGen {
			cand = append(cand, int32(k))
		}
	}
	e.cand = cand
	if len(cand) > 0 {
		k := cand[e.rng.Integers(int64(len(cand)))]
		e.waste[k] = true
		e.nWaste++
	}
}

// appleSpawnProb interpolates the regrowth probability linearly between
// the restoration threshold (full rate) and the depletion threshold (none).
func (e *Env) appleSpawnProb(density float64) float64 {
	p := &e.p
	if density >= p.ThresholdDepletion {
		return 0
	}
	if density <= p.ThresholdRestoration {
		return p.AppleRespawnProb
	}
	frac := (density - p.ThresholdRestoration) / (p.ThresholdDepletion - p.ThresholdRestoration)
	return (1.0 - frac) * p.AppleRespawnProb
}

// spawnApples regrows each collected apple whose cell no agent occupies,
// one random draw per such apple (Cleanup).
func (e *Env) spawnApples() {
	prob := e.appleSpawnProb(e.wasteDensity())
	if prob <= 0 {
		return
	}
	for k, a := range e.alive {
		if a {
			continue
		}
		q := e.lay.Apples[k]
		if e.occ[q.R*e.w+q.C] != e.occGen && e.rng.Random() < prob {
			e.alive[k] = true
		}
	}
}

// Snapshot writes the current state into dst, reusing its slices. dst
// shares only the immutable Layout with the Env.
func (e *Env) Snapshot(dst *ssd.State) {
	dst.Layout = e.lay
	dst.Step = e.step
	dst.Pos = append(dst.Pos[:0], e.pos...)
	dst.Orient = append(dst.Orient[:0], e.orient...)
	dst.Timeout = append(dst.Timeout[:0], e.timeout...)
	dst.Hits = append(dst.Hits[:0], e.hits...)
	dst.AppleAlive = append(dst.AppleAlive[:0], e.alive...)
	dst.Waste = append(dst.Waste[:0], e.waste...)
}

// Hash returns a hash of the whole dynamic state: what a snapshot holds
// plus the apple timers and the random generator, so that any change to the
// environment between two calls shows.
func (e *Env) Hash() uint64 {
	has := uint64(0)
	if e.rng.hasUint32 {
		has = 1
	}
	h := ssd.HashState(e.step, e.pos, e.orient, e.timeout, e.hits, e.alive, e.waste,
		e.rng.hi, e.rng.lo, e.rng.incHi, e.rng.incLo, uint64(e.rng.uinteger), uint64(e.nWaste), has)
	// The timers two to a word, as ssd hashes ints: half the chain of
	// multiplications.
	t := e.timer
	for ; len(t) >= 2; t = t[2:] {
		h = (h ^ uint64(t[0]) ^ bits.RotateLeft64(uint64(t[1]), 32)) * 1099511628211
	}
	if len(t) == 1 {
		h = (h ^ uint64(t[0])) * 1099511628211
	}
	return h
}
