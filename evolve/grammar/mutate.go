package grammar

import (
	"math"
	"math/rand"

	"policyevolve/envs/ssd"
)

// Random draws a genome for game: each family's kind and each parameter
// uniformly from its range. Nothing is seeded with a known-good strategy.
func Random(game ssd.Game, s Space, rng *rand.Rand) Genome {
	g := Genome{Game: game, Cleaning: Cleaning{Kind: NoCleaning}}
	for _, f := range families(game) {
		ks := KindsFor(game, f)
		*g.kind(f) = ks[rng.Intn(len(ks))]
	}
	g.randomize(s, rng, "")
	return g
}

// randomize draws every parameter of family (all families for "") anew.
func (g *Genome) randomize(s Space, rng *rand.Rand, family string) {
	for _, p := range g.params(s) {
		if family == "" || familyOf(p.name) == family {
			draw(p, rng)
		}
	}
}

func draw(p param, rng *rand.Rand) {
	switch {
	case p.i != nil:
		*p.i = int(p.lo) + rng.Intn(int(p.hi-p.lo)+1)
	case p.f != nil:
		*p.f = round2(p.lo + rng.Float64()*(p.hi-p.lo))
	case p.b != nil:
		*p.b = rng.Intn(2) == 1
	}
}

// round2 keeps floats at two decimals, so that the rendered source reads
// well and round-trips exactly.
func round2(x float64) float64 { return math.Round(x*100)/100 + 0 }

func familyOf(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return name[:i]
		}
	}
	return name
}

// Mutation rates.
const (
	// kindRate is the chance that a mutation switches a family's kind
	// (with fresh parameters) rather than changing one parameter.
	kindRate = 0.2
	// followRate is the chance that a biased parameter moves the way the
	// bias says rather than at random.
	followRate = 0.8
	// resetRate is the chance that an unbiased number is drawn anew from
	// its range rather than nudged.
	resetRate = 0.15
)

// Mutate changes g in place: it picks a family (weighted by the bias),
// then either switches its kind (to one the bias prefers, mostly, when it
// has a preference) or changes one of its parameters (in the direction the
// bias says, mostly). It draws only from rng, and always changes g when g
// has anything to change.
func Mutate(g *Genome, s Space, b *Bias, rng *rand.Rand) {
	before := g.Canonical()
	for try := 0; try < 8; try++ {
		mutateOnce(g, s, b, rng)
		if g.Canonical() != before {
			return
		}
	}
}

func mutateOnce(g *Genome, s Space, b *Bias, rng *rand.Rand) {
	fams := families(g.Game)
	weights := make([]float64, len(fams))
	for i, f := range fams {
		weights[i] = b.familyWeight(f)
	}
	f := fams[pick(weights, rng)]
	var ps []param
	for _, p := range g.params(s) {
		if familyOf(p.name) == f {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 || rng.Float64() < b.kindRate(f, *g.kind(f)) {
		switchKind(g, f, s, b, rng)
		return
	}
	p := ps[rng.Intn(len(ps))]
	nudge(p, b.direction(p.name), rng)
}

// switchKind gives family another kind, with fresh parameters — except
// in cleaning, whose kinds are one module (who cleans and how, RoleParams)
// with different rules for how many clean: there a switch keeps the roles
// the lineage had tuned (radius, threshold, sections, hold) and draws only
// the count's parameters. The harvesting and beaming kinds are different
// strategies whose parameters merely share names (Roam, Reach): they are
// drawn afresh. Measured in docs/evolution.md ("Why the search stalled").
func switchKind(g *Genome, f string, s Space, b *Bias, rng *rand.Rand) {
	var kept *RoleParams
	if r := g.Cleaning.roles(); f == "cleaning" && r != nil {
		kept = new(RoleParams)
		*kept = *r
	}
	cur := *g.kind(f)
	var others, preferred []string
	for _, k := range KindsFor(g.Game, f) {
		if k == cur {
			continue
		}
		others = append(others, k)
		if b.prefers(f, k) {
			preferred = append(preferred, k)
		}
	}
	if len(preferred) > 0 && rng.Float64() < followRate {
		others = preferred
	}
	*g.kind(f) = others[rng.Intn(len(others))]
	g.randomize(s, rng, f)
	if r := g.Cleaning.roles(); kept != nil && r != nil {
		*r = *kept
	}
}

// nudge moves one parameter: a step up or down (the bias's direction, if
// any, mostly), or a fresh draw.
func nudge(p param, dir int, rng *rand.Rand) {
	if p.b != nil {
		if dir != 0 && rng.Float64() < followRate {
			*p.b = dir > 0
		} else {
			*p.b = !*p.b
		}
		return
	}
	sign := 1.0
	if dir != 0 && rng.Float64() < followRate {
		sign = float64(dir)
	} else {
		if dir == 0 && rng.Float64() < resetRate {
			draw(p, rng)
			return
		}
		if rng.Intn(2) == 0 {
			sign = -1
		}
	}
	span := p.hi - p.lo
	if p.i != nil {
		step := 1 + rng.Intn(max(1, int(span)/5))
		v := clampF(float64(*p.i)+sign*float64(step), p.lo, p.hi)
		if int(v) == *p.i { // at a bound: go the other way
			v = clampF(float64(*p.i)-sign*float64(step), p.lo, p.hi)
		}
		*p.i = int(v)
		return
	}
	step := span * (0.05 + 0.2*rng.Float64())
	v := clampF(round2(*p.f+sign*step), p.lo, p.hi)
	if v == *p.f {
		v = clampF(round2(*p.f-sign*step), p.lo, p.hi)
	}
	*p.f = v
}

// pick draws an index with probability proportional to its weight.
func pick(weights []float64, rng *rand.Rand) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := rng.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// Cross returns a child of a and b that takes each family's module, kind
// and parameters together, from a or b as mask says (bit i set: family i
// of families(game) from b).
func Cross(a, b Genome, mask int) Genome {
	c := a.Canonical()
	b = b.Canonical()
	for i, f := range families(a.Game) {
		if mask&(1<<i) == 0 {
			continue
		}
		switch f {
		case "harvest":
			c.Harvest = b.Harvest
		case "aggression":
			c.Aggression = b.Aggression
		case "cleaning":
			c.Cleaning = b.Cleaning
		}
	}
	return c
}
