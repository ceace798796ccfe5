package grammar

import "policyevolve/envs/ssd"

// RoleParams say who cleans and how (Cleanup).
type RoleParams struct {
	// ByRiver chooses the agents nearest the river as cleaners; else the
	// lowest ids.
	ByRiver bool
	// Search looks at the cells within Radius steps and the four
	// orientations for the beam that clears the most waste, walks there
	// and fires; else a cleaner fires from where it stands, turning toward
	// waste or walking toward the nearest waste.
	Search bool
	Radius int
	// MinWaste: fire only a beam that clears at least this many cells.
	MinWaste int
	// Hold: roles are reassigned at most every Hold steps, and the number
	// of cleaners falls only Hold steps after the roles last changed
	// (hysteresis, so that roles do not flap).
	Hold int
	// Split cuts the river into one section per cleaner (in the order the
	// roles are given): a cleaner fires only from the cells nearer its
	// own section than any other, and walks toward only the waste of its
	// own section.
	Split bool
	// Stay: a cleaner with no waste to clean waits by the river (in its
	// section) instead of harvesting.
	Stay bool
}

// FixedParams: a fixed number of cleaners.
type FixedParams struct {
	Cleaners int
	Roles    RoleParams
}

// AdaptiveParams: the number of cleaners follows the river's waste
// density: Few below Low, Some from Low, Many from High.
type AdaptiveParams struct {
	Low, High       float64
	Few, Some, Many int
	Roles           RoleParams
}

// cleanFixed: the agent cleans when it is one of Cleaners cleaners.
func (k *kit) cleanFixed(v *ssd.View, agent int, p *FixedParams) (int, bool) {
	return k.clean(v, agent, p.Cleaners, &p.Roles)
}

// cleanAdaptive: the agent cleans when it is one of the cleaners the
// waste density asks for.
func (k *kit) cleanAdaptive(v *ssd.View, agent int, p *AdaptiveParams) (int, bool) {
	want := p.Few
	if d := v.WasteDensity(); d >= p.High {
		want = p.Many
	} else if d >= p.Low {
		want = p.Some
	}
	return k.clean(v, agent, want, &p.Roles)
}

// clean returns a cleaner's action, and false for an agent that is not a
// cleaner now (or has no waste to clean), which does something else.
func (k *kit) clean(v *ssd.View, agent, want int, r *RoleParams) (int, bool) {
	if k.roleAt != k.step {
		k.roleAt = k.step
		k.assign(v, want, r)
	}
	if !k.cleaner[agent] {
		return ssd.Stand, false
	}
	sec := -1
	if r.Split {
		sec = k.section(v, agent)
	}
	if v.NumWaste() > 0 {
		var a int
		var ok bool
		if r.Search {
			a, ok = k.cleanSearch(v, agent, r, sec)
		} else {
			a, ok = k.cleanHere(v, agent, r, sec)
		}
		if ok {
			return a, true
		}
	}
	if r.Stay {
		return k.stay(v, agent, sec)
	}
	return ssd.Stand, false
}

// stay keeps an idle cleaner by the river: it walks into its section
// (the river, without Split) and stands there.
func (k *kit) stay(v *ssd.View, agent, sec int) (int, bool) {
	me := v.AgentPos(agent)
	w := v.Width()
	if v.IsRiver(me.R, me.C) && (sec < 0 || k.secAt[me.R*w+me.C] == sec) {
		return ssd.Stand, true
	}
	var targets []ssd.Pos
	for _, p := range v.RiverCells() {
		if sec < 0 || k.secAt[p.R*w+p.C] == sec {
			targets = append(targets, p)
		}
	}
	if a, ok := moveTo(v, agent, targets); ok {
		return a, true
	}
	return ssd.Stand, true
}

// section returns the agent's section of the river, cutting the river
// into one section per cleaner (in rank order) when the cleaners changed.
func (k *kit) section(v *ssd.View, agent int) int {
	if k.secStep != k.roleStep || k.secOf == nil {
		k.secStep = k.roleStep
		k.cutSections(v)
	}
	return k.secOf[agent]
}

// cutSections cuts the river cells into as many sections of equal counts
// as there are cleaners, by recursive bisection, the sections going to
// the cleaners in rank order; secAt maps each cell to the section of its
// nearest river cell (the first section on ties; -1 where none is
// reachable).
func (k *kit) cutSections(v *ssd.View) {
	river := v.RiverCells()
	w := v.Width()
	if k.secAt == nil {
		k.secAt = make([]int, v.Height()*w)
		k.secOf = make([]int, k.n)
	}
	for i := range k.secAt {
		k.secAt[i] = -1
	}
	var who []int
	for _, i := range k.ranked {
		if k.cleaner[i] {
			who = append(who, i)
		}
	}
	for i := range k.secOf {
		k.secOf[i] = -1
	}
	if len(who) == 0 {
		return
	}
	idx := make([]int, len(river))
	for i := range idx {
		idx[i] = i
	}
	if k.riverOrd == nil {
		k.riverOrd = orderCells(river, v.Height(), w)
	}
	parts := bisectCells(river, k.riverOrd, idx, len(who), nil)
	near := make([]int, len(k.secAt))
	for j, part := range parts {
		var cells []ssd.Pos
		for _, i := range part {
			cells = append(cells, river[i])
		}
		field := v.DistanceFieldFrom(cells)
		for c, d := range field {
			if d != ssd.Unreachable && (k.secAt[c] < 0 || d < near[c]) {
				k.secAt[c], near[c] = j, d
			}
		}
		k.secOf[who[j]] = j
	}
}

// assign chooses the step's cleaners among the active agents of the team.
func (k *kit) assign(v *ssd.View, want int, r *RoleParams) {
	rank := k.rank(v, r.ByRiver)
	k.ranked = rank
	if want > len(rank) {
		want = len(rank)
	}
	if want < 0 {
		want = 0
	}
	held := k.step-k.roleStep < r.Hold
	now := make([]bool, k.n)
	count := 0
	if held {
		for _, i := range rank { // incumbents stay
			if k.cleaner[i] {
				now[i] = true
				count++
			}
		}
	}
	for _, i := range rank {
		if count >= want {
			break
		}
		if !now[i] {
			now[i] = true
			count++
		}
	}
	changed := false
	for i := 0; i < k.n; i++ {
		if now[i] != k.cleaner[i] {
			changed = true
		}
		k.cleaner[i] = now[i]
	}
	if changed {
		k.roleStep = k.step
	}
}

// rank orders the active agents of the team for the cleaner role: by id,
// or nearest the river first (ties by id).
func (k *kit) rank(v *ssd.View, byRiver bool) []int {
	var out []int
	var key []int
	var field []int
	if byRiver {
		field = v.DistanceFieldFrom(v.RiverCells())
	}
	w := v.Width()
	for i := 0; i < k.n; i++ {
		if !k.team[i] || !v.Active(i) {
			continue
		}
		d := 0
		if field != nil {
			p := v.AgentPos(i)
			d = field[p.R*w+p.C]
			if d == ssd.Unreachable {
				d = 1 << 30
			}
		}
		out = append(out, i)
		key = append(key, d)
	}
	for i := 1; i < len(out); i++ { // insertion sort, stable
		for j := i; j > 0 && key[j] < key[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
			key[j], key[j-1] = key[j-1], key[j]
		}
	}
	return out
}

// cleanHere fires when the beam from here clears enough waste, else turns
// toward the orientation that would, else walks toward the nearest waste;
// with sec not -1, it fires only from the cells of section sec and walks
// toward the waste of that section.
func (k *kit) cleanHere(v *ssd.View, agent int, r *RoleParams, sec int) (int, bool) {
	me := v.AgentPos(agent)
	o := v.Orientation(agent)
	if sec < 0 || k.secAt[me.R*v.Width()+me.C] == sec {
		if v.CleanBeamCount(me.R, me.C, o) >= r.MinWaste {
			return ssd.Clean, true
		}
		best, bestN := -1, r.MinWaste-1
		for t := 0; t < 4; t++ {
			if n := v.CleanBeamCount(me.R, me.C, t); n > bestN {
				best, bestN = t, n
			}
		}
		if best >= 0 {
			return ssd.RotateToward(o, best), true
		}
	}
	return k.towardWaste(v, agent, sec)
}

// cleanSearch finds, within Radius steps, the cell and orientation whose
// beam clears the most waste (nearest first on ties), goes there and
// fires. With sec not -1 it fires only from the cells of that section.
func (k *kit) cleanSearch(v *ssd.View, agent int, r *RoleParams, sec int) (int, bool) {
	me := v.AgentPos(agent)
	o := v.Orientation(agent)
	dist := v.DistanceField(me)
	w := v.Width()
	bestN, bestD := r.MinWaste-1, 0
	var best ssd.Pos
	bestO := -1
	for dr := -r.Radius; dr <= r.Radius; dr++ {
		for dc := -r.Radius; dc <= r.Radius; dc++ {
			p := ssd.Pos{R: me.R + dr, C: me.C + dc}
			if !v.InBounds(p.R, p.C) || v.Wall(p.R, p.C) || (sec >= 0 && k.secAt[p.R*w+p.C] != sec) {
				continue
			}
			d := dist[p.R*w+p.C]
			if d == ssd.Unreachable || d > r.Radius {
				continue
			}
			for t := 0; t < 4; t++ {
				n := v.CleanBeamCount(p.R, p.C, t)
				if n > bestN || (n == bestN && bestO >= 0 && d < bestD) {
					bestN, bestD, best, bestO = n, d, p, t
				}
			}
		}
	}
	switch {
	case bestO < 0:
		return k.towardWaste(v, agent, sec)
	case bestD > 0:
		dr, dc, ok := v.BFSToward(agent, best.R, best.C)
		if !ok {
			return ssd.Stand, false
		}
		return ssd.DirectionToAction(dr, dc, o), true
	case bestO != o && v.CleanBeamCount(me.R, me.C, o) < bestN:
		return ssd.RotateToward(o, bestO), true
	}
	return ssd.Clean, true
}

// towardWaste walks toward the nearest waste cell (of section sec, when
// sec is not -1) other than the one the agent stands on.
func (k *kit) towardWaste(v *ssd.View, agent, sec int) (int, bool) {
	me := v.AgentPos(agent)
	w := v.Width()
	var targets []ssd.Pos
	for _, p := range v.WasteCells() {
		if (p.R != me.R || p.C != me.C) && (sec < 0 || k.secAt[p.R*w+p.C] == sec) {
			targets = append(targets, p)
		}
	}
	return moveTo(v, agent, targets)
}
