package main

import (
	"policyevolve/evolve/episode"
)

// envOptions select an environment.
type envOptions struct {
	game   string
	mapArg string
	agents int
	steps  int
}

func (o *envOptions) register(fs *flagSet) {
	fs.StringVar(&o.game, "game", "gathering", "game: gathering or cleanup")
	fs.StringVar(&o.mapArg, "map", "", "built-in map or map file (default: the game's paper map)")
	fs.IntVar(&o.agents, "agents", 10, "number of agents")
	fs.IntVar(&o.steps, "steps", 1000, "steps per episode")
}

func (o *envOptions) resolve() (episode.Env, error) {
	e, err := episode.ResolveEnv(o.game, o.mapArg, o.agents, o.steps)
	if err != nil {
		return e, usagef("%v", err)
	}
	return e, nil
}
