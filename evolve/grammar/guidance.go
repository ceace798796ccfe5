package grammar

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"

	"policyevolve/envs/ssd"
)

// Guidance is a prior over the grammar: the offline planner's reading of
// a GEPA prompt candidate, which it cannot take as prose. For each module
// family it names the kinds to draw from (none: every kind), and it names
// the parameters to push up (More) or down (Less; a boolean goes true or
// false). Its text form has one line per entry, and # comments:
//
//	# why, in a sentence
//	harvest: territory, strips
//	aggression: never
//	more: cleaning.Cleaners, harvest.Avoid
//	less: aggression.Reach
//
// The zero Guidance (and the empty text) is the uniform prior.
type Guidance struct {
	Kinds map[string][]string
	More  []string
	Less  []string
	// Notes are the comment lines, without their "#".
	Notes []string
}

// ParseGuidance reads the text form of a Guidance for game. It refuses,
// with the line at fault, an unknown key, kind or parameter, a cleaning
// line in Gathering, and a parameter pushed both ways.
func ParseGuidance(text string, game ssd.Game) (*Guidance, error) {
	g := &Guidance{Kinds: map[string][]string{}}
	names := ParamNames(game)
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if note, ok := strings.CutPrefix(line, "#"); ok {
			g.Notes = append(g.Notes, strings.TrimSpace(note))
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("guidance line %d: %q is not \"key: values\"", n+1, line)
		}
		key = strings.ToLower(strings.TrimSpace(key))
		var values []string
		for _, v := range strings.Split(rest, ",") {
			if v = strings.TrimSpace(v); v != "" && !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
		switch {
		case key == "more" || key == "less":
			for _, v := range values {
				if !slices.Contains(names, v) {
					return nil, fmt.Errorf("guidance line %d: %s has no parameter %q (want one of %s)", n+1, game, v, strings.Join(names, ", "))
				}
			}
			if key == "more" {
				g.More = append(g.More, values...)
			} else {
				g.Less = append(g.Less, values...)
			}
		case slices.Contains(families(game), key):
			for _, v := range values {
				if !slices.Contains(Kinds[key], v) {
					return nil, fmt.Errorf("guidance line %d: unknown %s kind %q (want one of %s)", n+1, key, v, strings.Join(Kinds[key], ", "))
				}
			}
			g.Kinds[key] = values
		case key == "cleaning":
			return nil, fmt.Errorf("guidance line %d: %s has no cleaning module", n+1, game)
		default:
			return nil, fmt.Errorf("guidance line %d: unknown key %q (want %s, more or less)", n+1, key, strings.Join(families(game), ", "))
		}
	}
	for _, v := range g.More {
		if slices.Contains(g.Less, v) {
			return nil, fmt.Errorf("guidance: %s is pushed both up and down", v)
		}
	}
	g.tidy()
	return g, nil
}

// tidy puts the guidance in canonical order: kinds in the order of Kinds,
// parameters sorted and once each, no empty kind list.
func (g *Guidance) tidy() {
	for f, ks := range g.Kinds {
		var out []string
		for _, k := range Kinds[f] {
			if slices.Contains(ks, k) {
				out = append(out, k)
			}
		}
		if len(out) == 0 {
			delete(g.Kinds, f)
			continue
		}
		g.Kinds[f] = out
	}
	g.More = slices.Compact(slices.Sorted(slices.Values(g.More)))
	g.Less = slices.Compact(slices.Sorted(slices.Values(g.Less)))
}

// String is the text form, in canonical order: notes, the families in
// their order, more, less.
func (g *Guidance) String() string {
	if g == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range g.Notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	for _, f := range []string{"harvest", "aggression", "cleaning"} {
		if ks := g.Kinds[f]; len(ks) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", f, strings.Join(ks, ", "))
		}
	}
	if len(g.More) > 0 {
		fmt.Fprintf(&b, "more: %s\n", strings.Join(g.More, ", "))
	}
	if len(g.Less) > 0 {
		fmt.Fprintf(&b, "less: %s\n", strings.Join(g.Less, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Empty says the guidance is the uniform prior (notes aside).
func (g *Guidance) Empty() bool {
	return g == nil || (len(g.Kinds) == 0 && len(g.More) == 0 && len(g.Less) == 0)
}

func (g *Guidance) direction(name string) int {
	switch {
	case g == nil:
		return 0
	case slices.Contains(g.More, name):
		return +1
	case slices.Contains(g.Less, name):
		return -1
	}
	return 0
}

// Bias is the mutation bias that leans the way the guidance does: its
// kinds preferred, its parameters pushed, and the families whose
// parameters it pushes mutated twice as often. The empty guidance gives
// the nil Bias.
func (g *Guidance) Bias() *Bias {
	if g.Empty() {
		return nil
	}
	b := &Bias{weight: map[string]float64{}, kinds: map[string][]string{}, dir: map[string]int{}}
	for f, ks := range g.Kinds {
		b.kinds[f] = slices.Clone(ks)
	}
	b.set(+1, g.More...)
	b.set(-1, g.Less...)
	for _, n := range slices.Concat(g.More, g.Less) {
		b.weight[familyOf(n)] = 2
	}
	b.Reasons = slices.Clone(g.Notes)
	return b
}

// GuidanceFrom is the guidance a bias (BiasFrom's reading of the critic's
// diagnostics) points to, for game: its preferred kinds, its directions,
// its reasons as notes. A nil bias gives nil.
func GuidanceFrom(b *Bias, game ssd.Game) *Guidance {
	if b == nil {
		return nil
	}
	g := &Guidance{Kinds: map[string][]string{}, Notes: slices.Clone(b.Reasons)}
	fams := families(game)
	for f, ks := range b.kinds {
		if slices.Contains(fams, f) {
			g.Kinds[f] = slices.Clone(ks)
		}
	}
	names := ParamNames(game)
	for n, d := range b.dir {
		switch {
		case !slices.Contains(names, n):
		case d > 0:
			g.More = append(g.More, n)
		case d < 0:
			g.Less = append(g.Less, n)
		}
	}
	g.tidy()
	return g
}

// Merge returns g with over laid on it: over's families replace g's, and
// over's directions replace g's for the same parameters. Notes are over's.
func (g *Guidance) Merge(over *Guidance) *Guidance {
	out := g.clone()
	if over == nil {
		return out
	}
	for f, ks := range over.Kinds {
		out.Kinds[f] = slices.Clone(ks)
	}
	drop := func(list []string) []string {
		return slices.DeleteFunc(list, func(n string) bool {
			return slices.Contains(over.More, n) || slices.Contains(over.Less, n)
		})
	}
	out.More = append(drop(out.More), over.More...)
	out.Less = append(drop(out.Less), over.Less...)
	out.Notes = slices.Clone(over.Notes)
	out.tidy()
	return out
}

func (g *Guidance) clone() *Guidance {
	out := &Guidance{Kinds: map[string][]string{}}
	if g == nil {
		return out
	}
	for f, ks := range g.Kinds {
		out.Kinds[f] = slices.Clone(ks)
	}
	out.More, out.Less, out.Notes = slices.Clone(g.More), slices.Clone(g.Less), slices.Clone(g.Notes)
	return out
}

// Perturb returns a random neighbour of g for game, and what changed: one
// family's kinds redrawn (one or two of them) or cleared, or one
// parameter's direction set, flipped or cleared. The result always differs
// from g; its notes are dropped. It draws only from rng.
func (g *Guidance) Perturb(game ssd.Game, rng *rand.Rand) (*Guidance, string) {
	before := g.clone()
	before.Notes = nil
	names := ParamNames(game)
	for {
		out := before.clone()
		var what string
		if rng.Intn(2) == 0 {
			f := families(game)[rng.Intn(len(families(game)))]
			if len(out.Kinds[f]) > 0 && rng.Intn(3) == 0 {
				delete(out.Kinds, f)
				what = f + ": any kind"
			} else {
				ks := slices.Clone(KindsFor(game, f))
				rng.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
				out.Kinds[f] = ks[:1+rng.Intn(2)]
				out.tidy()
				what = f + ": " + strings.Join(out.Kinds[f], ", ")
			}
		} else {
			n := names[rng.Intn(len(names))]
			d := before.direction(n)
			out.More = slices.DeleteFunc(out.More, func(s string) bool { return s == n })
			out.Less = slices.DeleteFunc(out.Less, func(s string) bool { return s == n })
			switch next := []int{-1, 0, 1}[rng.Intn(3)]; {
			case next == d:
				continue
			case next > 0:
				out.More, what = append(out.More, n), "more "+n
			case next < 0:
				out.Less, what = append(out.Less, n), "less "+n
			default:
				what = n + " left free"
			}
		}
		out.tidy()
		if out.String() != before.String() {
			return out, what
		}
	}
}

// ParamNames lists every parameter of game's modules, family by family,
// sorted within a family.
func ParamNames(game ssd.Game) []string {
	var out []string
	for _, f := range families(game) {
		var fam []string
		for _, k := range KindsFor(game, f) {
			g := Genome{Game: game, Cleaning: Cleaning{Kind: NoCleaning}}
			*g.kind(f) = k
			for _, p := range g.params(Space{Agents: 2}) {
				if familyOf(p.name) == f && !slices.Contains(fam, p.name) {
					fam = append(fam, p.name)
				}
			}
		}
		slices.Sort(fam)
		out = append(out, fam...)
	}
	return out
}

// RandomGuided draws a genome for game from the prior g: each family's
// kind uniformly among the kinds g names for it (all when none), each
// parameter uniformly from the half of its range g leans to (the whole
// range when g says nothing of it; a boolean is set the way g says). The
// nil Guidance draws as Random does, though not the same numbers.
func RandomGuided(game ssd.Game, s Space, g *Guidance, rng *rand.Rand) Genome {
	gn := Genome{Game: game, Cleaning: Cleaning{Kind: NoCleaning}}
	for _, f := range families(game) {
		ks := KindsFor(game, f)
		if g != nil {
			// The kinds g names that game has; all of game's when none.
			if named := slices.DeleteFunc(slices.Clone(g.Kinds[f]), func(k string) bool { return !slices.Contains(ks, k) }); len(named) > 0 {
				ks = named
			}
		}
		*gn.kind(f) = ks[rng.Intn(len(ks))]
	}
	for _, p := range gn.params(s) {
		drawLeaning(p, g.direction(p.name), rng)
	}
	return gn
}

// drawLeaning draws p from the upper (dir > 0) or lower (dir < 0) half of
// its range, or the whole range (dir 0).
func drawLeaning(p param, dir int, rng *rand.Rand) {
	if dir == 0 {
		draw(p, rng)
		return
	}
	mid := p.lo + (p.hi-p.lo)/2
	lo, hi := p.lo, mid
	if dir > 0 {
		lo, hi = mid, p.hi
	}
	switch {
	case p.b != nil:
		*p.b = dir > 0
	case p.i != nil:
		a, b := int(math.Ceil(lo)), int(math.Floor(hi))
		if b < a {
			a, b = int(p.lo), int(p.hi)
		}
		*p.i = a + rng.Intn(b-a+1)
	case p.f != nil:
		*p.f = round2(lo + rng.Float64()*(hi-lo))
	}
}
