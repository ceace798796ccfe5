package episode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/sandbox"
	"policyevolve/store"
)

// Executor plays episodes: the arena's one way to have an episode played.
// The default plays it on this machine (Local); another may play it
// elsewhere (package distrib sends it to workers over NATS JetStream).
//
// Play is called concurrently and must be a pure function of the Episode:
// the same Episode gives the same result, wherever it is played. Its
// errors are those Local.Play gives: a policy's failure (PolicyFailure
// recognises it: an *envs.ActorError naming the failing agents, an error
// matching sandbox's or envs' failure kinds, or ErrJobFailed) is a result
// the caller records; any other error is the system's and stops the
// caller.
type Executor interface {
	Play(ctx context.Context, ep *Episode) (*envs.Result, error)
}

// ErrJobFailed is an episode that no executor could play to the end,
// every attempt failing the same way (a poison job: the worker crashed or
// broke on it each time). It is recorded as the episode's failure, like a
// policy's, so that a run goes on instead of waiting forever.
var ErrJobFailed = errors.New("episode job failed")

// Episode is one episode, self-contained: the policies with their
// sources, the environment, which policy plays which agent, the seed, and
// the sandbox limits it is played under. It is everything an executor on
// another machine needs, and nothing else; its ID is a content address.
//
// An Episode that comes from elsewhere is untrusted input: Validate it
// before playing it (the policies' sources are validated by the sandbox
// when they are compiled, as locally).
type Episode struct {
	Env      EnvSpec  `json:"env"`
	Policies []Policy `json:"policies"`
	// Side[i] is the index in Policies of the policy that plays agent i.
	Side   []int  `json:"side"`
	Seed   uint64 `json:"seed"`
	Limits Limits `json:"limits"`

	m *envs.Map // the parsed map, when the caller knows it (New)
}

// New describes the episode in which agent i is played by
// policies[side[i]] on env, on seed, under limits. The Episode keeps
// env's parsed map, so that playing it here does not parse it again.
func New(env Env, policies []Policy, side []int, seed uint64, limits Limits) *Episode {
	return &Episode{Env: EnvSpec{EnvConfig: env.Config, MapText: env.Map.Text}, Policies: policies, Side: side,
		Seed: seed, Limits: limits, m: env.Map}
}

// EnvSpec is an episode's environment: its store key and the map's
// text (a map file is known to the store only by a hash of its text).
type EnvSpec struct {
	store.EnvConfig
	MapText string `json:"map_text"`
}

// Policy is a policy of an episode, as stored: its source (whose
// hash is ID) and, for a built-in, its name (its source is then a marker,
// or a Q-table's file).
type Policy struct {
	ID      string `json:"id"`
	Builtin string `json:"builtin,omitempty"`
	Source  string `json:"source,omitempty"`
}

// Limits are the sandbox settings an episode's result depends on: where
// it is played, the sandbox must have the same.
type Limits struct {
	Backend     sandbox.Backend `json:"backend,omitempty"`
	StepTimeout time.Duration   `json:"step_timeout,omitempty"`
	CostBudget  time.Duration   `json:"cost_budget,omitempty"`
}

// LimitsOf returns the limits of a sandbox (zero for nil: built-ins only).
func LimitsOf(sb *sandbox.Sandbox) Limits {
	if sb == nil {
		return Limits{}
	}
	c := sb.Config()
	return Limits{Backend: sb.Backend(), StepTimeout: c.StepTimeout, CostBudget: c.CostBudget}
}

// episodeVersion is part of every Episode's ID: a change to what an
// Episode means, or to how it is played, must change it.
const episodeVersion = "policyevolve episode v1"

// ID is the Episode's content address: a hex SHA-256 of its meaning. The
// same Episode has the same ID in any process, and so the same result.
func (e *Episode) ID() string {
	data, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("episode id: %v", err)) // plain data: cannot happen
	}
	h := sha256.New()
	h.Write([]byte(episodeVersion + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Bounds on an Episode, far above any real one: an episode from
// elsewhere is refused beyond them, and the command line's --agents and
// --steps stop at them.
const (
	MaxAgents          = 64
	MaxSteps           = 100_000
	maxEpisodePolicies = MaxAgents
)

// Validate checks an Episode's shape, for one that came from elsewhere:
// the game and map parse, the seats cover every agent, every policy plays
// and is what its ID says (a source's hash, a known built-in).
func (e *Episode) Validate() error {
	g, err := ssd.ParseGame(e.Env.Game)
	if err != nil {
		return err
	}
	c := e.Env.EnvConfig
	switch {
	case c.Agents < 1 || c.Agents > MaxAgents:
		return fmt.Errorf("episode: %d agents (want 1-%d)", c.Agents, MaxAgents)
	case c.MaxSteps < 1 || c.MaxSteps > MaxSteps:
		return fmt.Errorf("episode: %d steps (want 1-%d)", c.MaxSteps, MaxSteps)
	case len(e.Side) != c.Agents:
		return fmt.Errorf("episode: %d seats for %d agents", len(e.Side), c.Agents)
	case len(e.Policies) < 1 || len(e.Policies) > maxEpisodePolicies:
		return fmt.Errorf("episode: %d policies", len(e.Policies))
	}
	if _, err := envs.ParseMap(g, c.Map, e.Env.MapText); err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	plays := make([]bool, len(e.Policies))
	for i, s := range e.Side {
		if s < 0 || s >= len(e.Policies) {
			return fmt.Errorf("episode: agent %d is played by policy %d of %d", i, s, len(e.Policies))
		}
		plays[s] = true
	}
	for k, p := range e.Policies {
		if !plays[k] {
			return fmt.Errorf("episode: policy %d plays no agent", k)
		}
		if store.SourceID(p.Source) != p.ID {
			return fmt.Errorf("episode: policy %.12s: its source does not hash to its id", p.ID)
		}
		if p.Builtin != "" && p.Builtin != QLearnBuiltin {
			if _, err := envs.Builtin(p.Builtin); err != nil {
				return fmt.Errorf("episode: %w", err)
			}
		}
	}
	if e.Limits.Backend != "" {
		if _, err := sandbox.ParseBackend(string(e.Limits.Backend)); err != nil || e.Limits.Backend == sandbox.Auto {
			return fmt.Errorf("episode: backend %q", e.Limits.Backend)
		}
	}
	return nil
}

// config is the episode's environment configuration, the map parsed (or
// the one New was given).
func (e *Episode) config() (envs.Config, error) {
	m := e.m
	if m == nil {
		g, err := ssd.ParseGame(e.Env.Game)
		if err != nil {
			return envs.Config{}, err
		}
		if m, err = envs.ParseMap(g, e.Env.Map, e.Env.MapText); err != nil {
			return envs.Config{}, err
		}
	}
	return envs.Config{Map: m, Agents: e.Env.Agents, MaxSteps: e.Env.MaxSteps}, nil
}

// PolicyOf is how an episode carries a stored policy.
func PolicyOf(p *store.Policy) Policy {
	return Policy{ID: p.ID, Builtin: p.Builtin, Source: p.Source}
}
