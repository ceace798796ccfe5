package grammar

import "policyevolve/envs/ssd"

// NearestParams: walk to the nearest alive apple by BFS.
type NearestParams struct {
	// Avoid skips apples another agent is nearer to, by more than
	// Margin steps (it is presumed to be heading for them), unless every
	// apple is such. The agent's own distance is reckoned as the crow
	// walks (rows plus columns): exact on open ground, cheap everywhere.
	Avoid  bool
	Margin int
}

// TerritoryParams: collect in one's own Voronoi territory first (the
// cells one reaches before every other active agent).
type TerritoryParams struct {
	// Slack counts an apple as one's own when one is at most Slack steps
	// farther from it (rows plus columns) than the agent whose territory
	// it is in.
	Slack int
	// Roam: with no own apple alive, go for an apple anywhere within Roam
	// steps.
	Roam int
	// Wait: else stand on (or walk to) the nearest own apple spawn, to be
	// there when it grows back; without Wait, go for the nearest apple
	// anywhere.
	Wait bool
}

// StripsParams: the apple spawns are cut into as many strips as there are
// agents (equal counts, along columns or rows) and agent i collects in
// strip i first.
type StripsParams struct {
	Rows bool // strips of rows instead of columns
	// Overlap widens each strip by this many columns (rows) on each side.
	Overlap int
	Roam    int  // as TerritoryParams.Roam
	Wait    bool // as TerritoryParams.Wait, on the strip's spawns
}

// harvestNearest walks to the nearest alive apple.
func (k *kit) harvestNearest(v *ssd.View, agent int, p *NearestParams) int {
	apples := v.Apples()
	if p.Avoid && len(apples) > 0 {
		k.voronoi(v)
		me := v.AgentPos(agent)
		w := v.Width()
		var free []ssd.Pos
		for _, a := range apples {
			c := a.R*w + a.C
			if k.owner[c] == agent || k.owner[c] < 0 || walk(me, a) <= k.odist[c]+p.Margin {
				free = append(free, a)
			}
		}
		if len(free) > 0 {
			apples = free
		}
	}
	if a, ok := moveTo(v, agent, apples); ok {
		return a
	}
	return ssd.Stand
}

// harvestTerritory collects the apples of the agent's territory.
func (k *kit) harvestTerritory(v *ssd.View, agent int, p *TerritoryParams) int {
	k.voronoi(v)
	w := v.Width()
	me := v.AgentPos(agent)
	own, spawns := k.own[:0], k.spawns[:0]
	for i := 0; i < v.NumApples(); i++ {
		a := v.ApplePos(i)
		c := a.R*w + a.C
		if k.owner[c] != agent && (p.Slack == 0 || k.owner[c] < 0 || walk(me, a) > k.odist[c]+p.Slack) {
			continue
		}
		if v.AppleAlive(i) {
			own = append(own, a)
		} else {
			spawns = append(spawns, a)
		}
	}
	k.own, k.spawns = own, spawns
	return fallback(v, agent, own, spawns, p.Roam, p.Wait)
}

// harvestStrips collects the apples of the agent's strip.
func (k *kit) harvestStrips(v *ssd.View, agent int, p *StripsParams) int {
	if k.strip == nil {
		k.strip = strips(v, p.Rows, p.Overlap)
	}
	return k.collect(v, agent, k.strip[agent], p.Roam, p.Wait)
}

// collect goes for the nearest alive apple of the agent's own (apple
// indices), else falls back (see fallback) with roam and wait.
func (k *kit) collect(v *ssd.View, agent int, mine []int, roam int, wait bool) int {
	own, spawns := k.own[:0], k.spawns[:0]
	for _, i := range mine {
		if v.AppleAlive(i) {
			own = append(own, v.ApplePos(i))
		} else {
			spawns = append(spawns, v.ApplePos(i))
		}
	}
	k.own, k.spawns = own, spawns
	return fallback(v, agent, own, spawns, roam, wait)
}

// fallback goes for the nearest own alive apple; with none, for an apple
// within roam steps; else waits on the nearest own spawn (wait) or goes
// for the nearest apple anywhere.
func fallback(v *ssd.View, agent int, own, spawns []ssd.Pos, roam int, wait bool) int {
	if a, ok := moveTo(v, agent, own); ok {
		return a
	}
	apples := v.Apples()
	if roam > 0 && len(apples) > 0 {
		d := v.Distance(v.AgentPos(agent), apples)
		if d != ssd.Unreachable && d <= roam {
			if a, ok := moveTo(v, agent, apples); ok {
				return a
			}
		}
	}
	if wait {
		if a, ok := moveTo(v, agent, spawns); ok {
			return a
		}
	}
	if a, ok := moveTo(v, agent, apples); ok {
		return a
	}
	return ssd.Stand
}

// strips cuts the apple spawns, sorted by column (or row), into one strip
// per agent of as equal counts as can be, each widened by overlap columns
// (rows) on both sides; it returns each agent's apple indices.
func strips(v *ssd.View, rows bool, overlap int) [][]int {
	n := v.NumAgents()
	na := v.NumApples()
	key := make([]int, na)
	order := make([]int, na)
	for i := 0; i < na; i++ {
		p := v.ApplePos(i)
		key[i] = p.C*v.Height() + p.R
		if rows {
			key[i] = p.R*v.Width() + p.C
		}
		order[i] = i
	}
	for i := 1; i < na; i++ { // insertion sort: stable, and run once
		for j := i; j > 0 && key[order[j]] < key[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	out := make([][]int, n)
	for s := 0; s < n; s++ {
		lo, hi := s*na/n, (s+1)*na/n
		if lo >= hi {
			continue
		}
		first, last := line(v.ApplePos(order[lo]), rows), line(v.ApplePos(order[hi-1]), rows)
		for i := 0; i < na; i++ {
			l := line(v.ApplePos(i), rows)
			if l >= first-overlap && l <= last+overlap {
				out[s] = append(out[s], i)
			}
		}
	}
	return out
}

// walk is the distance from a to b in rows plus columns, a path's length
// when no wall is in the way.
func walk(a, b ssd.Pos) int { return abs(a.R-b.R) + abs(a.C-b.C) }

// line is a cell's column, or its row for strips of rows.
func line(p ssd.Pos, rows bool) int {
	if rows {
		return p.R
	}
	return p.C
}
