package grammar

import (
	"bytes"
	"fmt"
	"go/format"
	"reflect"
	"strconv"
	"strings"
)

// methods are the library methods the agents call for each kind (the
// kinds that do nothing have none).
var methods = map[string]string{
	Nearest:       "harvestNearest",
	Territory:     "harvestTerritory",
	Strips:        "harvestStrips",
	Zones:         "harvestZones",
	Cycle:         "harvestCycle",
	Opportunistic: "aggressOpportunistic",
	Territorial:   "aggressTerritorial",
	Retaliate:     "aggressRetaliate",
	Fixed:         "cleanFixed",
	Adaptive:      "cleanAdaptive",
}

// paramsOf returns the parameters of family's chosen kind (nil for kinds
// without any).
func (g *Genome) paramsOf(family string) any {
	if p := g.paramsPtr(family); p != nil {
		return reflect.ValueOf(p).Elem().Interface()
	}
	return nil
}

// HeaderPrefix starts the comment line that carries a rendered genome.
const HeaderPrefix = "// genome: "

// Render writes g as a policy source: a header comment with the genome
// (HeaderPrefix and its JSON) and a description of the strategy, the
// parameters as package variables, Policy, and the library code of the
// chosen modules, gofmt'ed. The same genome always renders to the same
// bytes; Parse reads them back.
func Render(g Genome) ([]byte, error) {
	if err := g.Validate(Space{Agents: maxAgents}); err != nil {
		return nil, err
	}
	l, err := loadLibrary()
	if err != nil {
		return nil, err
	}
	head, err := g.header()
	if err != nil {
		return nil, err
	}
	roots := []string{"kit", "newKit", "kit.begin", "kit.done"}
	var vars, calls strings.Builder
	// The order of the families is the order of the decisions in Policy:
	// a cleaner cleans, then anyone may beam, then everyone harvests.
	for _, f := range []string{"cleaning", "aggression", "harvest"} {
		m, ok := methods[*g.kind(f)]
		if !ok {
			continue
		}
		roots = append(roots, "kit."+m)
		fmt.Fprintf(&vars, "\n// %s are the parameters of the %s module (%s).\nvar %s = %s\n",
			f, f, *g.kind(f), f, literal(reflect.ValueOf(g.paramsOf(f))))
		if f == "harvest" {
			fmt.Fprintf(&calls, "\treturn k.done(agent, k.%s(v, agent, &harvest))\n", m)
		} else {
			fmt.Fprintf(&calls, "\tif a, ok := k.%s(v, agent, &%s); ok {\n\t\treturn k.done(agent, a)\n\t}\n", m, f)
		}
	}
	decls, imports, err := l.closure(roots...)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteString("package policy\n\nimport (\n")
	for _, im := range imports {
		fmt.Fprintf(&b, "\t%q\n", im)
	}
	b.WriteString("\t\"ssd\"\n)\n")
	b.WriteString(vars.String())
	b.WriteString(`
// k is this policy instance's memory of the episode.
var k = newKit()

// Policy stands while the agent is tagged out; else it lets the modules
// decide in turn.
func Policy(v *ssd.View, agent int) int {
	k.begin(v, agent)
	if !v.Active(agent) {
		return k.done(agent, ssd.Stand)
	}
`)
	b.WriteString(calls.String())
	b.WriteString("}\n")
	for _, d := range decls {
		b.WriteString("\n")
		b.WriteString(d.text)
		b.WriteString("\n")
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("grammar: the rendered genome does not parse (a bug in the grammar): %w", err)
	}
	return out, nil
}

// header is the comment block above the package clause.
func (g *Genome) header() (string, error) {
	js, err := g.MarshalJSON()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("// Policy written by policyevolve's grammar planner: a genome of strategy\n")
	b.WriteString("// modules rendered to Go. The genome line below is what the planner reads\n")
	b.WriteString("// back to evolve this policy further; a source edited by hand is no longer\n")
	b.WriteString("// its genome.\n//\n")
	b.WriteString(HeaderPrefix)
	b.Write(js)
	b.WriteString("\n//\n// Strategy (")
	b.WriteString(g.Game.String())
	b.WriteString("):\n")
	for _, line := range g.Describe() {
		for i, w := range wrap(line, 72) {
			if i == 0 {
				b.WriteString("//   - " + w + "\n")
			} else {
				b.WriteString("//     " + w + "\n")
			}
		}
	}
	return b.String(), nil
}

// literal writes a parameter struct as a Go composite literal.
func literal(v reflect.Value) string {
	var b strings.Builder
	t := v.Type()
	b.WriteString(t.Name() + "{\n")
	for i := 0; i < t.NumField(); i++ {
		f := v.Field(i)
		var s string
		switch f.Kind() {
		case reflect.Int:
			s = strconv.FormatInt(f.Int(), 10)
		case reflect.Float64:
			s = strconv.FormatFloat(f.Float(), 'g', -1, 64)
		case reflect.Bool:
			s = strconv.FormatBool(f.Bool())
		case reflect.Struct:
			s = literal(f)
		default:
			panic("grammar: unsupported parameter type " + f.Type().String())
		}
		fmt.Fprintf(&b, "%s: %s,\n", t.Field(i).Name, s)
	}
	b.WriteString("}")
	return b.String()
}

// wrap splits text into lines of at most width bytes at spaces.
func wrap(text string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}
