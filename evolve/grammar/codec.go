package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"policyevolve/envs/ssd"
)

// Version is the version of the genome format and of the rendering: a
// source rendered by another version does not parse as a genome of this
// one. It changes when every genome's rendering does. When one module's
// rendering changes alone (version 3's cycle gained Start), its old
// sources fail Parse's check against their re-rendering, as a source
// edited by hand does, and the other modules' sources, ids and searches
// stay as they were.
const Version = 3

// maxAgents bounds the cleaner counts of a genome read without knowing
// its environment.
const maxAgents = 1 << 10

// ErrNotGenome is a source that is not a genome rendered by this grammar:
// written by someone else, edited after rendering, or damaged.
var ErrNotGenome = errors.New("not a genome of the grammar planner")

// wire is the JSON form of a genome: only the chosen kinds' parameters.
type wire struct {
	V          int         `json:"v"`
	Game       string      `json:"game"`
	Harvest    wireModule  `json:"harvest"`
	Aggression wireModule  `json:"aggression"`
	Cleaning   *wireModule `json:"cleaning,omitempty"`
}

type wireModule struct {
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params,omitempty"`
}

// MarshalJSON writes the genome compactly, with only the parameters of
// the chosen kinds.
func (g Genome) MarshalJSON() ([]byte, error) {
	w := wire{V: Version, Game: g.Game.String()}
	mod := func(f string) (wireModule, error) {
		m := wireModule{Kind: *g.kind(f)}
		if p := g.paramsOf(f); p != nil {
			js, err := json.Marshal(p)
			if err != nil {
				return m, err
			}
			m.Params = js
		}
		return m, nil
	}
	var err error
	if w.Harvest, err = mod("harvest"); err != nil {
		return nil, err
	}
	if w.Aggression, err = mod("aggression"); err != nil {
		return nil, err
	}
	if g.Game == ssd.Cleanup {
		c, err := mod("cleaning")
		if err != nil {
			return nil, err
		}
		w.Cleaning = &c
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes, strictly: unknown fields,
// kinds or versions are errors. It does not check parameter ranges
// (Validate does).
func (g *Genome) UnmarshalJSON(data []byte) error {
	var w wire
	if err := strict(data, &w); err != nil {
		return err
	}
	if w.V != Version {
		return fmt.Errorf("genome version %d (this grammar reads version %d)", w.V, Version)
	}
	game, err := ssd.ParseGame(w.Game)
	if err != nil {
		return err
	}
	out := Genome{Game: game, Cleaning: Cleaning{Kind: NoCleaning}}
	if w.Cleaning != nil {
		if game != ssd.Cleanup {
			return fmt.Errorf("a %s genome has no cleaning module", game)
		}
	} else if game == ssd.Cleanup {
		return errors.New("a cleanup genome needs a cleaning module")
	}
	mods := map[string]*wireModule{"harvest": &w.Harvest, "aggression": &w.Aggression, "cleaning": w.Cleaning}
	for _, f := range families(game) {
		m := mods[f]
		*out.kind(f) = m.Kind
		if !slices.Contains(Kinds[f], m.Kind) {
			return fmt.Errorf("unknown %s kind %q (want one of %s)", f, m.Kind, strings.Join(Kinds[f], ", "))
		}
		p := out.paramsPtr(f)
		switch {
		case p == nil && len(m.Params) > 0:
			return fmt.Errorf("%s kind %q takes no parameters", f, m.Kind)
		case p == nil:
		case len(m.Params) == 0:
			return fmt.Errorf("%s kind %q needs its parameters", f, m.Kind)
		default:
			if err := strict(m.Params, p); err != nil {
				return fmt.Errorf("%s parameters: %w", f, err)
			}
		}
	}
	*g = out
	return nil
}

// paramsPtr points into g at the parameters of family's chosen kind (nil
// for kinds without any).
func (g *Genome) paramsPtr(family string) any {
	switch *g.kind(family) {
	case Nearest:
		return &g.Harvest.Nearest
	case Territory:
		return &g.Harvest.Territory
	case Strips:
		return &g.Harvest.Strips
	case Zones:
		return &g.Harvest.Zones
	case Cycle:
		return &g.Harvest.Cycle
	case Opportunistic:
		return &g.Aggression.Opportunistic
	case Territorial:
		return &g.Aggression.Territorial
	case Retaliate:
		return &g.Aggression.Retaliate
	case Fixed:
		return &g.Cleaning.Fixed
	case Adaptive:
		return &g.Cleaning.Adaptive
	}
	return nil
}

// strict decodes one JSON value with no unknown fields and nothing after.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// Parse reads the genome back from a source Render wrote. A source without
// a genome line, with a malformed one, or that differs in any byte from
// the genome's rendering (edited by hand, or rendered by another version
// of the grammar) is an error wrapping ErrNotGenome that says which.
func Parse(src []byte) (*Genome, error) {
	var js string
	found := false
	for _, line := range strings.Split(string(src), "\n") {
		if s, ok := strings.CutPrefix(line, HeaderPrefix); ok {
			js, found = s, true
			break
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: no %q line above the package clause", ErrNotGenome, strings.TrimSpace(HeaderPrefix))
	}
	var g Genome
	if err := g.UnmarshalJSON([]byte(js)); err != nil {
		return nil, fmt.Errorf("%w: malformed genome line: %v", ErrNotGenome, err)
	}
	if err := g.Validate(Space{Agents: maxAgents}); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotGenome, err)
	}
	re, err := Render(g)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotGenome, err)
	}
	if !bytes.Equal(re, src) {
		return nil, fmt.Errorf("%w: the source differs from its genome's rendering at line %d (edited by hand, or rendered by another version of the grammar)",
			ErrNotGenome, firstDiffLine(re, src))
	}
	return &g, nil
}

// firstDiffLine is the 1-based line of the first byte where a and b differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return 1 + bytes.Count(a[:i], []byte("\n"))
}
