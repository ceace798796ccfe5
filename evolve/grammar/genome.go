package grammar

import (
	"fmt"
	"reflect"
	"slices"

	"policyevolve/envs/ssd"
)

// Module kinds, by family. A genome holds one module of each family: how
// agents harvest, when they beam, and (Cleanup) who cleans.
const (
	Nearest   = "nearest"   // harvesting: the nearest alive apple by BFS
	Territory = "territory" // harvesting: own Voronoi territory first
	Strips    = "strips"    // harvesting: column or row strips by agent id
	Zones     = "zones"     // harvesting: compact zones of equal counts
	Cycle     = "cycle"     // harvesting (Gathering): one cycle through the spawns, agents spaced along it

	Never         = "never"         // aggression: never beam
	Opportunistic = "opportunistic" // aggression: beam any rival in reach
	Territorial   = "territorial"   // aggression: beam rivals inside one's territory
	Retaliate     = "retaliate"     // aggression: beam agents that beamed us

	NoCleaning = "none"     // cleaning: nobody cleans
	Fixed      = "fixed"    // cleaning: a fixed number of cleaners
	Adaptive   = "adaptive" // cleaning: cleaners follow the waste density
)

// Kinds lists each family's kinds, in a fixed order.
var Kinds = map[string][]string{
	"harvest":    {Nearest, Territory, Strips, Zones, Cycle},
	"aggression": {Never, Opportunistic, Territorial, Retaliate},
	"cleaning":   {NoCleaning, Fixed, Adaptive},
}

// KindsFor lists the kinds of family a genome for game can have, in the
// order of Kinds: the cycle harvest is Gathering's alone (in Cleanup an
// apple's regrowth is random, so no timing of visits can follow it), so
// Cleanup's genomes are drawn from the kinds they had before it existed.
// The slice it returns is shared: callers clone it before changing it.
func KindsFor(game ssd.Game, family string) []string {
	if game == ssd.Cleanup && family == "harvest" {
		return cleanupHarvest
	}
	return Kinds[family]
}

// cleanupHarvest is Kinds["harvest"] without the cycle, made once (Random
// and every kind switch ask for it).
var cleanupHarvest = slices.DeleteFunc(slices.Clone(Kinds["harvest"]), func(k string) bool { return k == Cycle })

// Genome is a strategy: one module of each family and its parameters. Only
// the parameters of the chosen kinds count; the others are ignored (and
// dropped by Canonical, Render and Parse).
type Genome struct {
	Game       ssd.Game
	Harvest    Harvest
	Aggression Aggression
	Cleaning   Cleaning // always NoCleaning in Gathering
}

// Harvest is the harvesting module.
type Harvest struct {
	Kind      string
	Nearest   NearestParams
	Territory TerritoryParams
	Strips    StripsParams
	Zones     ZonesParams
	Cycle     CycleParams
}

// Aggression is the beaming module.
type Aggression struct {
	Kind          string
	Opportunistic OpportunisticParams
	Territorial   TerritorialParams
	Retaliate     RetaliateParams
}

// Cleaning is the Cleanup roles module.
type Cleaning struct {
	Kind     string
	Fixed    FixedParams
	Adaptive AdaptiveParams
}

// roles points to the roles of c's kind, nil for a kind without
// cleaners.
func (c *Cleaning) roles() *RoleParams {
	switch c.Kind {
	case Fixed:
		return &c.Fixed.Roles
	case Adaptive:
		return &c.Adaptive.Roles
	}
	return nil
}

// Space is what the parameter ranges depend on: the number of agents
// bounds the number of cleaners.
type Space struct {
	Agents int
}

// param is one numeric or boolean parameter of a genome's chosen modules:
// exactly one of i, f, b is set; ints and floats range over [lo, hi].
type param struct {
	name   string // family.Field, e.g. "cleaning.MinWaste"
	i      *int
	f      *float64
	b      *bool
	lo, hi float64
}

// Ranges of the parameters. They bound the search, and are wide: none is
// chosen to contain a known-good answer only.
const (
	maxSteps   = 12  // Margin, Slack, Roam, Overlap: steps or columns
	maxReach   = 20  // Reach (capped by the beam's length when played)
	maxRest    = 50  // Rest, Hold
	maxMemory  = 100 // Memory
	maxNear    = 8   // Near
	maxRadius  = 8   // Radius
	maxWaste   = 10  // MinWaste
	maxDensity = 0.6 // Low, High (the river saturates at the depletion threshold, 0.4 by default)
	maxRefine  = 8   // Refine
	maxStart   = 999 // Start: thousandths of the spawns
	maxDrop    = 20  // Drop: spawns
)

func ip(name string, v *int, lo, hi int) param {
	return param{name: name, i: v, lo: float64(lo), hi: float64(hi)}
}
func fp(name string, v *float64, lo, hi float64) param {
	return param{name: name, f: v, lo: lo, hi: hi}
}
func bp(name string, v *bool) param { return param{name: name, b: v} }

// params lists the parameters of g's chosen modules, family by family, in
// a fixed order; the pointers point into g.
func (g *Genome) params(s Space) []param {
	var out []param
	h := &g.Harvest
	switch h.Kind {
	case Nearest:
		out = append(out, bp("harvest.Avoid", &h.Nearest.Avoid), ip("harvest.Margin", &h.Nearest.Margin, 0, maxSteps))
	case Territory:
		t := &h.Territory
		out = append(out, ip("harvest.Slack", &t.Slack, 0, maxSteps), ip("harvest.Roam", &t.Roam, 0, maxSteps),
			bp("harvest.Wait", &t.Wait))
	case Strips:
		t := &h.Strips
		out = append(out, bp("harvest.Rows", &t.Rows), ip("harvest.Overlap", &t.Overlap, 0, maxSteps),
			ip("harvest.Roam", &t.Roam, 0, maxSteps), bp("harvest.Wait", &t.Wait))
	case Zones:
		z := &h.Zones
		out = append(out, ip("harvest.Refine", &z.Refine, 0, maxRefine), bp("harvest.Match", &z.Match),
			bp("harvest.Share", &z.Share), bp("harvest.Timed", &z.Timed),
			bp("harvest.Tour", &z.Tour), ip("harvest.Patience", &z.Patience, 0, maxSteps),
			ip("harvest.Roam", &z.Roam, 0, maxSteps), bp("harvest.Wait", &z.Wait), bp("harvest.Paths", &z.Paths))
	case Cycle:
		c := &h.Cycle
		out = append(out, ip("harvest.Spacing", &c.Spacing, 0, maxRest), ip("harvest.Lead", &c.Lead, 0, maxSteps),
			bp("harvest.Sorted", &c.Sorted), ip("harvest.Start", &c.Start, 0, maxStart),
			ip("harvest.Drop", &c.Drop, 0, maxDrop))
	}
	a := &g.Aggression
	aim := func(reach *int, turn *bool, rest *int) {
		out = append(out, ip("aggression.Reach", reach, 1, maxReach), bp("aggression.Turn", turn),
			ip("aggression.Rest", rest, 0, maxRest))
	}
	switch a.Kind {
	case Opportunistic:
		p := &a.Opportunistic
		aim(&p.Reach, &p.Turn, &p.Rest)
	case Territorial:
		p := &a.Territorial
		aim(&p.Reach, &p.Turn, &p.Rest)
		out = append(out, ip("aggression.Near", &p.Near, 0, maxNear))
	case Retaliate:
		p := &a.Retaliate
		aim(&p.Reach, &p.Turn, &p.Rest)
		out = append(out, ip("aggression.Memory", &p.Memory, 1, maxMemory))
	}
	c := &g.Cleaning
	roles := func(r *RoleParams) {
		out = append(out, bp("cleaning.ByRiver", &r.ByRiver), bp("cleaning.Search", &r.Search),
			ip("cleaning.Radius", &r.Radius, 1, maxRadius), ip("cleaning.MinWaste", &r.MinWaste, 1, maxWaste),
			ip("cleaning.Hold", &r.Hold, 0, maxRest), bp("cleaning.Split", &r.Split),
			bp("cleaning.Stay", &r.Stay))
	}
	agents := max(s.Agents, 1)
	switch c.Kind {
	case Fixed:
		out = append(out, ip("cleaning.Cleaners", &c.Fixed.Cleaners, 0, agents))
		roles(&c.Fixed.Roles)
	case Adaptive:
		p := &c.Adaptive
		out = append(out, fp("cleaning.Low", &p.Low, 0, maxDensity), fp("cleaning.High", &p.High, 0, maxDensity),
			ip("cleaning.Few", &p.Few, 0, agents), ip("cleaning.Some", &p.Some, 0, agents),
			ip("cleaning.Many", &p.Many, 0, agents))
		roles(&p.Roles)
	}
	return out
}

// families are the module families a genome for game has.
func families(game ssd.Game) []string {
	if game == ssd.Cleanup {
		return []string{"harvest", "aggression", "cleaning"}
	}
	return []string{"harvest", "aggression"}
}

// kind returns a pointer to the kind of family.
func (g *Genome) kind(family string) *string {
	switch family {
	case "harvest":
		return &g.Harvest.Kind
	case "aggression":
		return &g.Aggression.Kind
	}
	return &g.Cleaning.Kind
}

// Canonical returns g with the parameters of the kinds not chosen zeroed:
// two genomes that play alike compare equal.
func (g Genome) Canonical() Genome {
	c := Genome{Game: g.Game}
	for _, f := range []string{"harvest", "aggression", "cleaning"} {
		*c.kind(f) = *g.kind(f)
		if p := g.paramsPtr(f); p != nil {
			reflect.ValueOf(c.paramsPtr(f)).Elem().Set(reflect.ValueOf(p).Elem())
		}
	}
	return c
}

// Validate reports a genome the grammar cannot render: an unknown kind, a
// cleaning module in Gathering, or a parameter out of its range for s.
func (g *Genome) Validate(s Space) error {
	if g.Game != ssd.Gathering && g.Game != ssd.Cleanup {
		return fmt.Errorf("genome: unknown game %v", g.Game)
	}
	for _, f := range []string{"harvest", "aggression", "cleaning"} {
		k := *g.kind(f)
		if !slices.Contains(Kinds[f], k) {
			return fmt.Errorf("genome: unknown %s kind %q (want one of %v)", f, k, Kinds[f])
		}
	}
	if g.Game == ssd.Gathering && g.Cleaning.Kind != NoCleaning {
		return fmt.Errorf("genome: a Gathering genome has no cleaning module (got %q)", g.Cleaning.Kind)
	}
	if g.Game == ssd.Cleanup && g.Harvest.Kind == Cycle {
		return fmt.Errorf("genome: the %s harvest is Gathering's: Cleanup's apples grow back at random", Cycle)
	}
	for _, p := range g.params(s) {
		var v float64
		switch {
		case p.i != nil:
			v = float64(*p.i)
		case p.f != nil:
			v = *p.f
		default:
			continue
		}
		if !(v >= p.lo && v <= p.hi) {
			return fmt.Errorf("genome: %s = %v is outside [%v, %v]", p.name, v, p.lo, p.hi)
		}
	}
	return nil
}

// Clamp moves every parameter into its range for s (a genome written for
// more agents than s has, say).
func (g *Genome) Clamp(s Space) {
	for _, p := range g.params(s) {
		switch {
		case p.i != nil:
			*p.i = int(clampF(float64(*p.i), p.lo, p.hi))
		case p.f != nil:
			*p.f = clampF(*p.f, p.lo, p.hi)
		}
	}
}

func clampF(v, lo, hi float64) float64 {
	if v < lo || v != v {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
