package ssd

// Opponent is another active agent as the exploitative policy sees it.
type Opponent struct {
	ID   int
	Pos  Pos
	Dist int // Manhattan distance from the asking agent
	Hits int // beam hits already taken toward a tag
}

// Opponents returns the active agents other than agent, in id order.
func (v *View) Opponents(agent int) []Opponent {
	return append([]Opponent(nil), v.opponents(agent)...)
}

func (v *View) opponents(agent int) []Opponent {
	me := v.st.Pos[agent]
	out := v.opps[:0]
	for j, p := range v.st.Pos {
		if j == agent || v.st.Timeout[j] > 0 {
			continue
		}
		out = append(out, Opponent{ID: j, Pos: p, Dist: abs(p.R-me.R) + abs(p.C-me.C), Hits: v.st.Hits[j]})
	}
	v.opps = out
	return out
}

// BeamTarget is an opponent a beam would hit.
type BeamTarget struct {
	ID   int
	Fwd  int // cells ahead of the shooter
	Hits int // the target's beam hits before this shot
}

// BeamTargets returns the opponents a beam fired from (r, c) facing orient
// would hit, by the reference policy's reckoning: within BeamLength ahead
// and BeamWidth/2 to either side, with no wall between shooter and target
// in the target's beam column. (The environment's beam itself passes over
// walls; this helper is the policy's more cautious estimate.)
func (v *View) BeamTargets(r, c, orient int, opponents []Opponent) []BeamTarget {
	return append([]BeamTarget(nil), v.beamTargets(r, c, orient, opponents)...)
}

func (v *View) beamTargets(r, c, orient int, opponents []Opponent) []BeamTarget {
	a, b, cc, d := Rotation(orient)
	p := v.lay.Params
	halfW := p.BeamWidth / 2
	out := v.targets[:0]
	for _, o := range opponents {
		dr, dc := o.Pos.R-r, o.Pos.C-c
		// Invert the rotation (its determinant is -1 for every orientation).
		fwd := b*dc - d*dr
		right := cc*dr - a*dc
		if fwd < 1 || fwd > p.BeamLength || abs(right) > halfW {
			continue
		}
		blocked := false
		for f := 1; f < fwd; f++ {
			if v.Wall(r+a*f+b*right, c+cc*f+d*right) {
				blocked = true
				break
			}
		}
		if !blocked {
			out = append(out, BeamTarget{ID: o.ID, Fwd: fwd, Hits: o.Hits})
		}
	}
	v.targets = out
	return out
}

// BeamHitsFrom returns the agents the environment's beam would hit if agent
// fired now: active agents other than the shooter inside the beam's
// rectangle (BeamLength ahead, BeamWidth/2 to each side). Walls do not stop
// the environment's beam.
func (v *View) BeamHitsFrom(agent int) []int {
	me := v.st.Pos[agent]
	a, b, c, d := Rotation(v.st.Orient[agent])
	p := v.lay.Params
	var out []int
	for j, q := range v.st.Pos {
		if j == agent || v.st.Timeout[j] > 0 {
			continue
		}
		dr, dc := q.R-me.R, q.C-me.C
		fwd := b*dc - d*dr
		right := c*dr - a*dc
		if fwd >= 1 && fwd <= p.BeamLength && abs(right) <= p.BeamWidth/2 {
			out = append(out, j)
		}
	}
	return out
}

// CleanBeamCount returns how many polluted river cells a clean beam fired
// from (r, c) facing orient would clear (Cleanup).
//
//ssd:game cleanup
func (v *View) CleanBeamCount(r, c, orient int) int {
	a, b, cc, d := Rotation(orient)
	p := v.lay.Params
	halfW := p.BeamWidth / 2
	n := 0
	for f := 1; f <= p.BeamLength; f++ {
		for off := -halfW; off <= halfW; off++ {
			if v.WasteAt(r+a*f+b*off, c+cc*f+d*off) {
				n++
			}
		}
	}
	return n
}

// RotationDistance is the least number of quarter turns from orientation
// cur to target (0, 1 or 2).
func RotationDistance(cur, target int) int {
	diff := ((target-cur)%4 + 4) % 4
	return min(diff, 4-diff)
}

// RotateToward returns the rotation that turns cur toward target: Stand
// when they are equal, RotateRight for a half turn.
func RotateToward(cur, target int) int {
	if cur == target {
		return Stand
	}
	switch ((target-cur)%4 + 4) % 4 {
	case 1:
		return RotateRight
	case 3:
		return RotateLeft
	}
	return RotateRight
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
