package episode

import (
	"fmt"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
	"policyevolve/store"
)

// Env is an environment configuration resolved for playing: its key in the
// store and the map it runs on.
type Env struct {
	Config store.EnvConfig
	Map    *envs.Map
}

// ResolveEnv turns command-line choices into an Env. mapSpec is a
// built-in map name ("" for the game's default) or a map file, which the
// store knows by a hash of its text.
func ResolveEnv(game, mapSpec string, agents, steps int) (Env, error) {
	g, err := ssd.ParseGame(game)
	if err != nil {
		return Env{}, err
	}
	if mapSpec == "" {
		mapSpec = envs.DefaultMap(g)
	}
	m, err := ResolveMap(g, mapSpec)
	if err != nil {
		return Env{}, err
	}
	name := mapKey(g, mapSpec, m)
	if agents < 1 {
		return Env{}, fmt.Errorf("%d agents (need at least 1)", agents)
	}
	if steps < 1 {
		return Env{}, fmt.Errorf("%d steps (need at least 1)", steps)
	}
	// Build once to catch a map that cannot seat the agents.
	if _, err := envs.New(envs.Config{Map: m, Agents: agents, MaxSteps: steps}); err != nil {
		return Env{}, err
	}
	return Env{Config: store.EnvConfig{Game: g.String(), Map: name, Agents: agents, MaxSteps: steps}, Map: m}, nil
}

// mapKey is the name the store knows a map by: a built-in's name, or
// "file:" and a hash of a map file's text.
func mapKey(g ssd.Game, spec string, m *envs.Map) string {
	if _, err := envs.BuiltinMap(g, spec); err == nil {
		return spec
	}
	return "file:" + store.SourceID(m.Text)[:12]
}

// MapKey returns the name the store knows the map spec by, for filtering
// pools by map: spec itself for a built-in map, the file's key for a map
// file (parsed for game).
func MapKey(game, spec string) (string, error) {
	g, err := ssd.ParseGame(game)
	if err != nil {
		return "", err
	}
	m, err := ResolveMap(g, spec)
	if err != nil {
		return "", err
	}
	return mapKey(g, spec, m), nil
}
