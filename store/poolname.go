package store

import (
	"fmt"
	"strings"
)

// UntaggedObjective is the selection objective of a global pool whose name
// names none: pools were rated by mixed matches (the elo objective) before
// runs chose an objective, so the names of those pools keep meaning what
// they meant.
const UntaggedObjective = "elo"

// PoolKey identifies a global pool: its environment, the selection
// objective whose games rate its members (a pool per objective, so that a
// rating never mixes two meanings), and a tag that sets it apart from the
// environment's shared pool (a run of compare starts in a pool of its
// own).
type PoolKey struct {
	Env EnvConfig
	// Objective is "" or UntaggedObjective for the untagged pool.
	Objective string
	Tag       string // "" for the shared pool
}

// String is the pool's name: GlobalPool(env), then "@" and the objective
// unless it is UntaggedObjective, then "#" and the tag if any —
// "global/gathering/large/10/1000@welfare#cmp-1a2b3c4d-population-0".
func (k PoolKey) String() string {
	name := GlobalPool(k.Env)
	if k.Objective != "" && k.Objective != UntaggedObjective {
		name += "@" + k.Objective
	}
	if k.Tag != "" {
		name += "#" + k.Tag
	}
	return name
}

// ParseGlobalPool reads the name of a global pool (PoolKey.String): its
// environment, objective (UntaggedObjective when the name has none) and
// tag. ok is false for any other name, a local pool's for one.
func ParseGlobalPool(name string) (key PoolKey, ok bool) {
	rest, ok := strings.CutPrefix(name, "global/")
	if !ok {
		return PoolKey{}, false
	}
	rest, key.Tag, _ = strings.Cut(rest, "#")
	rest, key.Objective, ok = strings.Cut(rest, "@")
	if !ok {
		key.Objective = UntaggedObjective
	} else if key.Objective == "" || key.Objective == UntaggedObjective {
		return PoolKey{}, false // one name per pool
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return PoolKey{}, false
	}
	key.Env = EnvConfig{Game: parts[0], Map: parts[1]}
	if _, err := fmt.Sscanf(parts[2]+" "+parts[3], "%d %d", &key.Env.Agents, &key.Env.MaxSteps); err != nil || key.Env.Key() != rest {
		return PoolKey{}, false
	}
	return key, true
}
