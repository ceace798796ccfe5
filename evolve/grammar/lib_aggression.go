package grammar

import "policyevolve/envs/ssd"

// OpportunisticParams: beam any rival in reach.
type OpportunisticParams struct {
	// Reach: fire only at rivals at most Reach cells ahead (and never
	// beyond the beam's length).
	Reach int
	// Turn toward a side where a quarter turn brings a rival into reach.
	Turn bool
	// Rest: hold fire for Rest steps after one's beam tagged a rival.
	Rest int
}

// TerritorialParams: beam only rivals inside one's territory, that is
// within Near steps (Manhattan) of an alive apple of one's Voronoi
// territory.
type TerritorialParams struct {
	Reach int  // as OpportunisticParams.Reach
	Turn  bool // as OpportunisticParams.Turn
	Rest  int  // as OpportunisticParams.Rest
	Near  int
}

// RetaliateParams: beam only agents seen beaming one of ours in the last
// Memory steps.
type RetaliateParams struct {
	Reach  int  // as OpportunisticParams.Reach
	Turn   bool // as OpportunisticParams.Turn
	Rest   int  // as OpportunisticParams.Rest
	Memory int
}

// aggressOpportunistic beams any rival in reach.
func (k *kit) aggressOpportunistic(v *ssd.View, agent int, p *OpportunisticParams) (int, bool) {
	return k.aim(v, agent, p.Reach, p.Turn, p.Rest, nil)
}

// aggressTerritorial beams rivals that stand near the apples of the
// agent's territory.
func (k *kit) aggressTerritorial(v *ssd.View, agent int, p *TerritorialParams) (int, bool) {
	k.voronoi(v)
	w := v.Width()
	in := make([]bool, k.n)
	for i := 0; i < v.NumApples(); i++ {
		a := v.ApplePos(i)
		if !v.AppleAlive(i) || k.owner[a.R*w+a.C] != agent {
			continue
		}
		for j := 0; j < k.n; j++ {
			q := v.AgentPos(j)
			if abs(q.R-a.R)+abs(q.C-a.C) <= p.Near {
				in[j] = true
			}
		}
	}
	return k.aim(v, agent, p.Reach, p.Turn, p.Rest, in)
}

// aggressRetaliate beams agents that beamed one of ours lately.
func (k *kit) aggressRetaliate(v *ssd.View, agent int, p *RetaliateParams) (int, bool) {
	in := make([]bool, k.n)
	for j := 0; j < k.n; j++ {
		in[j] = k.step-k.shotAt[j] <= p.Memory
	}
	return k.aim(v, agent, p.Reach, p.Turn, p.Rest, in)
}

// aim fires when a target (every other active agent when targets is nil)
// is within reach of the beam, or, with turn, rotates toward the side
// where one would be; it declines (false) while resting after a tag.
func (k *kit) aim(v *ssd.View, agent, reach int, turn bool, rest int, targets []bool) (int, bool) {
	if k.step-k.tagged[agent] < rest {
		return ssd.Stand, false
	}
	if reach > v.Params().BeamLength {
		reach = v.Params().BeamLength
	}
	o := v.Orientation(agent)
	if nearestTarget(v, agent, o, reach, targets) > 0 {
		return ssd.Beam, true
	}
	if !turn {
		return ssd.Stand, false
	}
	left := nearestTarget(v, agent, (o+3)%4, reach, targets)
	right := nearestTarget(v, agent, (o+1)%4, reach, targets)
	switch {
	case left > 0 && (right == 0 || left <= right):
		return ssd.RotateLeft, true
	case right > 0:
		return ssd.RotateRight, true
	}
	return ssd.Stand, false
}

// nearestTarget returns how far ahead the nearest target within reach of
// a beam fired by agent facing orient stands, 0 when there is none.
func nearestTarget(v *ssd.View, agent, orient, reach int, targets []bool) int {
	me := v.AgentPos(agent)
	a, b, c, d := ssd.Rotation(orient)
	half := v.Params().BeamWidth / 2
	best := 0
	for j := 0; j < v.NumAgents(); j++ {
		if j == agent || !v.Active(j) || (targets != nil && !targets[j]) {
			continue
		}
		q := v.AgentPos(j)
		dr, dc := q.R-me.R, q.C-me.C
		fwd := b*dc - d*dr
		right := c*dr - a*dc
		if fwd >= 1 && fwd <= reach && right >= -half && right <= half && (best == 0 || fwd < best) {
			best = fwd
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
