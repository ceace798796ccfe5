package store

import (
	"fmt"
	"strings"
)

// TaggedGlobalPool names the global pool of an environment that a tag
// sets apart from the environment's shared one: GlobalPool(env), "#" and
// the tag (a run of compare starts in a pool of its own). The empty tag
// names the shared pool.
func TaggedGlobalPool(env EnvConfig, tag string) string {
	if tag == "" {
		return GlobalPool(env)
	}
	return GlobalPool(env) + "#" + tag
}

// ParseGlobalPool reads the name of a global pool (GlobalPool or
// TaggedGlobalPool): its environment and tag. ok is false for any other
// name, a local pool's for one.
func ParseGlobalPool(name string) (env EnvConfig, tag string, ok bool) {
	rest, ok := strings.CutPrefix(name, "global/")
	if !ok {
		return EnvConfig{}, "", false
	}
	rest, tag, _ = strings.Cut(rest, "#")
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return EnvConfig{}, "", false
	}
	env = EnvConfig{Game: parts[0], Map: parts[1]}
	if _, err := fmt.Sscanf(parts[2]+" "+parts[3], "%d %d", &env.Agents, &env.MaxSteps); err != nil || env.Key() != rest {
		return EnvConfig{}, "", false
	}
	return env, tag, true
}
