package grammar

import (
	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Factory returns the genome as an in-process policy: a fresh instance
// (its own memory) per episode, playing exactly as its rendered source
// does in the sandbox. Use it only for genomes: it runs this package's
// code, which is trusted; Policy of a rendered source runs the same code.
func (g Genome) Factory() envs.PolicyFactory {
	g = g.Canonical()
	return func(envs.EpisodeInfo) ssd.Policy {
		k := newKit()
		return func(v *ssd.View, agent int) int { return g.act(k, v, agent) }
	}
}

// Actor returns the genome as an envs.Actor, without compiling anything.
func (g Genome) Actor() envs.Actor { return &envs.PolicyActor{New: g.Factory()} }

// act is Policy of the rendered source, module by module (see Render).
func (g *Genome) act(k *kit, v *ssd.View, agent int) int {
	k.begin(v, agent)
	if !v.Active(agent) {
		return k.done(agent, ssd.Stand)
	}
	var a int
	ok := false
	switch c := &g.Cleaning; c.Kind {
	case Fixed:
		a, ok = k.cleanFixed(v, agent, &c.Fixed)
	case Adaptive:
		a, ok = k.cleanAdaptive(v, agent, &c.Adaptive)
	}
	if ok {
		return k.done(agent, a)
	}
	switch p := &g.Aggression; p.Kind {
	case Opportunistic:
		a, ok = k.aggressOpportunistic(v, agent, &p.Opportunistic)
	case Territorial:
		a, ok = k.aggressTerritorial(v, agent, &p.Territorial)
	case Retaliate:
		a, ok = k.aggressRetaliate(v, agent, &p.Retaliate)
	}
	if ok {
		return k.done(agent, a)
	}
	switch h := &g.Harvest; h.Kind {
	case Nearest:
		a = k.harvestNearest(v, agent, &h.Nearest)
	case Territory:
		a = k.harvestTerritory(v, agent, &h.Territory)
	case Zones:
		a = k.harvestZones(v, agent, &h.Zones)
	case Cycle:
		a = k.harvestCycle(v, agent, &h.Cycle)
	default:
		a = k.harvestStrips(v, agent, &h.Strips)
	}
	return k.done(agent, a)
}
