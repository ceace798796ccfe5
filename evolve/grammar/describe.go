package grammar

import (
	"fmt"

	"policyevolve/envs/ssd"
)

// Describe says in words what each module of g does, one line per family
// (harvesting, aggression, and cleaning in Cleanup).
func (g *Genome) Describe() []string {
	out := []string{"harvesting: " + g.describeHarvest(), "aggression: " + g.describeAggression()}
	if g.Game == ssd.Cleanup {
		out = append(out, "cleaning: "+g.describeCleaning())
	}
	return out
}

func (g *Genome) describeHarvest() string {
	h := g.Harvest
	switch h.Kind {
	case Nearest:
		if !h.Nearest.Avoid {
			return "walk to the nearest alive apple (BFS)"
		}
		return fmt.Sprintf("walk to the nearest alive apple (BFS), skipping apples another agent is more than %d steps nearer to", h.Nearest.Margin)
	case Territory:
		t := h.Territory
		s := "own Voronoi territory first"
		if t.Slack > 0 {
			s += fmt.Sprintf(" (an apple counts as own up to %d steps farther than its nearest agent)", t.Slack)
		}
		return s + then(t.Roam, t.Wait, "territory")
	case Strips:
		t := h.Strips
		axis := "columns"
		if t.Rows {
			axis = "rows"
		}
		return fmt.Sprintf("own strip of %s by agent id first (widened by %d on each side)", axis, t.Overlap) +
			then(t.Roam, t.Wait, "strip")
	case Zones:
		z := h.Zones
		s := "own zone first: the apple spawns cut into compact zones of equal counts by bisection"
		if z.Refine > 0 {
			s += fmt.Sprintf(" and %d rounds of balanced k-means", z.Refine)
		}
		if z.Share {
			s += ", among the active harvesters (cut again when they change)"
		} else {
			s += ", one per agent"
		}
		if z.Match {
			s += ", each zone to the agent nearest its centre"
		} else {
			s += ", by agent id"
		}
		paths := ""
		if z.Paths {
			paths = "; of the shortest paths to an apple, walk the one passing the most apples"
		}
		if z.Tour {
			s += "; walk the zone's spawns in a cycle (nearest neighbour, shortened by 2-opt), heading for the next one whose apple is alive"
			if z.Timed {
				s += fmt.Sprintf(" or, counting regrowth, grows back by the time one gets there plus %d steps, waiting on it", z.Patience)
			}
			return s + then(z.Roam, z.Wait, "zone") + paths
		}
		if z.Timed {
			s += "; go where an own apple can be picked soonest, counting regrowth, and wait on it"
			if z.Roam > 0 {
				s += fmt.Sprintf(" unless an apple within %d steps is nearer", z.Roam)
			}
			return s + then(0, z.Wait, "zone")
		}
		return s + then(z.Roam, z.Wait, "zone") + paths
	case Cycle:
		c := h.Cycle
		spawns, skip := "every apple spawn", ""
		if c.Drop > 0 {
			spawns = "the apple spawns"
			skip = fmt.Sprintf(", then skipping up to %d spawns, the one whose removal shortens it most first, while it is longer than %d steps an agent", c.Drop, c.Spacing)
		}
		s := fmt.Sprintf("one cycle through %s (nearest neighbour from the spawn %d‰ along the map's, shortened by 2-opt%s; until then the nearest alive apple), ", spawns, c.Start, skip)
		s += fmt.Sprintf("every agent walking its own place along it, the places evenly spaced and going round once a period (the cycle's length, or %d steps an agent when longer)", c.Spacing)
		if c.Sorted {
			s += ", given to the agents in the order they stand along the cycle"
		} else {
			s += ", given by agent id"
		}
		if c.Lead > 0 {
			s += fmt.Sprintf(", reckoned %d steps ahead", c.Lead)
		}
		return s + "; each agent heads for the first spawn ahead of its place it can reach before its place does, and waits there"
	}
	return h.Kind
}

func then(roam int, wait bool, area string) string {
	s := ""
	if roam > 0 {
		s = fmt.Sprintf("; with none alive there, an apple within %d steps", roam)
	}
	if wait {
		return s + "; else wait on the nearest apple spawn of the " + area
	}
	return s + "; else the nearest apple anywhere"
}

func (g *Genome) describeAggression() string {
	a := g.Aggression
	aim := func(reach int, turn bool, rest int) string {
		s := fmt.Sprintf(" within %d cells ahead", reach)
		if reach >= ssd.DefaultParams(g.Game).BeamLength {
			s = " anywhere in the beam's reach"
		}
		if turn {
			s += ", turning toward them"
		}
		if rest > 0 {
			s += fmt.Sprintf(", holding fire %d steps after a tag", rest)
		}
		return s
	}
	switch a.Kind {
	case Never:
		return "never beam"
	case Opportunistic:
		p := a.Opportunistic
		return "beam any rival" + aim(p.Reach, p.Turn, p.Rest)
	case Territorial:
		p := a.Territorial
		return fmt.Sprintf("beam rivals within %d steps of an apple of one's territory", p.Near) + aim(p.Reach, p.Turn, p.Rest)
	case Retaliate:
		p := a.Retaliate
		return fmt.Sprintf("beam agents that beamed one of us in the last %d steps", p.Memory) + aim(p.Reach, p.Turn, p.Rest)
	}
	return a.Kind
}

func (g *Genome) describeCleaning() string {
	c := g.Cleaning
	roles := func(r RoleParams) string {
		who := "lowest ids"
		if r.ByRiver {
			who = "nearest the river"
		}
		how := "fire from where they stand, turning or walking toward waste"
		if r.Search {
			how = fmt.Sprintf("search %d steps around for the beam that clears most", r.Radius)
		}
		if r.Split {
			how += ", each in its own section of the river"
		}
		if r.Stay {
			how += ", waiting by the river when there is nothing to clean"
		}
		return fmt.Sprintf(", chosen %s, roles held %d steps; cleaners %s, firing when a beam clears at least %d", who, r.Hold, how, r.MinWaste)
	}
	switch c.Kind {
	case NoCleaning:
		return "nobody cleans"
	case Fixed:
		return cleaners(c.Fixed.Cleaners) + roles(c.Fixed.Roles)
	case Adaptive:
		p := c.Adaptive
		return fmt.Sprintf("%s below waste density %g, %d from %g, %d from %g", cleaners(p.Few), p.Low, p.Some, p.Low, p.Many, p.High) + roles(p.Roles)
	}
	return c.Kind
}

func cleaners(n int) string {
	if n == 1 {
		return "1 cleaner"
	}
	return fmt.Sprintf("%d cleaners", n)
}
