package difftest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Config shapes a generated program. The zero value works.
type Config struct {
	// Entries is the number of entry functions (default 24).
	Entries int
	// Depth bounds the nesting of statements (default 3).
	Depth int
	// Checkpoint folds every visible variable into the digest after every
	// statement, for diagnosis with TracedSource: the program computes the
	// same values (the random choices do not change), and the first trace
	// point that differs follows the first statement whose effect differs.
	Checkpoint bool
}

func (c *Config) applyDefaults() {
	if c.Entries <= 0 {
		c.Entries = 24
	}
	if c.Depth <= 0 {
		c.Depth = 3
	}
}

// Program is a generated policy program: shared declarations and entry
// functions, any subset of which makes a valid policy (see Source).
type Program struct {
	Seed    uint64
	Entries []*Entry
	decls   []*decl // package-level declarations, in order
}

// Entry is one entry function of a program.
type Entry struct {
	Index int
	Name  string
	// Outside names the constructs outside the yaegi backend's subset
	// that the entry holds: the yaegi backend must refuse it.
	Outside []string
	text    string
	uses    map[string]bool // names of declarations it needs
}

// decl is a package-level declaration shared by entries.
type decl struct {
	name string // "" for declarations every program keeps
	text string
	uses map[string]bool
}

// Span is where an entry function or a shared declaration lies in a
// Source: lines First to Last, 1-based, inclusive.
type Span struct {
	Name        string
	Entry       int // the entry's index; -1 for a shared declaration
	First, Last int
}

// Generate returns the program of a seed: the same seed and Config always
// give the same program.
func Generate(seed uint64, cfg Config) *Program {
	cfg.applyDefaults()
	g := newGen(seed, cfg)
	p := g.program()
	p.Seed = seed
	return p
}

// Source returns the program with only the entries whose indices are in
// keep (all entries when keep is nil), the declarations they need, and a
// Policy that dispatches to them; and the line span of every function.
func (p *Program) Source(keep []int) ([]byte, []Span) {
	return p.source(keep, nil)
}

// Trace is the instrumentation of TracedSource.
type Trace struct {
	Step, Agent, Skip int
	// Lines maps a trace point to the line of the statement it follows.
	Lines map[int]int
}

// Modes of TracedSource besides a skip count.
const (
	// TraceCalls: the record is the result of every call so far, "CALLS
	// hhh hhh …", which names the first call that differs.
	TraceCalls = -1
	// TraceChunks: the record is a digest of every TraceLen consecutive
	// updates of the call, "CHUNKS hhh hhh …", which names the first
	// TraceLen updates that contain a difference.
	TraceChunks = -2
)

// TracedSource is Source with every update of a digest followed by a
// record of the point and the digest's value, and a Policy that panics,
// at the call for (step, agent), with the record of that call as its
// message: "TRACE id:hhh id:hhh …", hhh the digest's low 12 bits, from
// the skip-th update on, at most TraceLen of them. Comparing the records
// of two backends names the first statement whose value differs. skip
// may instead be TraceCalls or TraceChunks.
func (p *Program) TracedSource(keep []int, step, agent, skip int) ([]byte, *Trace) {
	tr := &Trace{Step: step, Agent: agent, Skip: skip, Lines: map[int]int{}}
	src, _ := p.source(keep, tr)
	for i, l := range strings.Split(string(src), "\n") {
		if m := traceRe.FindStringSubmatch(l); m != nil {
			id, _ := strconv.Atoi(m[1])
			tr.Lines[id] = i // the line before, 1-based
		}
	}
	return src, tr
}

var (
	accLine = regexp.MustCompile(`^(\s*)(h|acc) = .*$`)
	traceRe = regexp.MustCompile(`^\s*tr\((?:h|acc), (\d+)\)$`)
)

// traced inserts a trace point after every complete line that updates a
// digest; next numbers the points.
func traced(text string, next *int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		out = append(out, l)
		m := accLine.FindStringSubmatch(l)
		if m == nil || strings.Count(l, "(") != strings.Count(l, ")") || strings.Contains(l, "{") {
			continue
		}
		*next++
		out = append(out, fmt.Sprintf("%str(%s, %d)", m[1], m[2], *next))
	}
	return strings.Join(out, "\n")
}

// TraceLen is the most trace points a TracedSource records.
const TraceLen = 250

const traceSupport = `// trace records digest values for TracedSource.
var (
	trace  []byte
	traceN int
	calls  []byte
	chunks []byte
	chunk  uint64
)

const traceSkip = %d

func tr(h uint64, id int) {
	traceN++
	chunk = mix(chunk, final(h)&0xfff+uint64(id)<<12)
	if traceN%%%d == 0 {
		chunks = append(chunks, ' ')
		chunks = strconv.AppendUint(chunks, final(chunk)&0xfff, 16)
		chunk = 0
	}
	if traceN > traceSkip && traceN <= traceSkip+%d {
		trace = append(trace, ' ')
		trace = strconv.AppendInt(trace, int64(id), 10)
		trace = append(trace, ':')
		trace = strconv.AppendUint(trace, final(h)&0xfff, 16)
	}
}
`

func (p *Program) source(keep []int, tr *Trace) ([]byte, []Span) {
	var entries []*Entry
	if keep == nil {
		entries = p.Entries
	} else {
		for _, i := range keep {
			entries = append(entries, p.Entries[i])
		}
	}
	// The declarations needed, transitively.
	need := map[string]bool{}
	var visit func(uses map[string]bool)
	byName := map[string]*decl{}
	for _, d := range p.decls {
		if d.name != "" {
			byName[d.name] = d
		}
	}
	visit = func(uses map[string]bool) {
		for n := range uses {
			if need[n] {
				continue
			}
			need[n] = true
			if d := byName[n]; d != nil {
				visit(d.uses)
			}
		}
	}
	for _, d := range p.decls {
		if d.name == "" {
			visit(d.uses)
		}
	}
	for _, e := range entries {
		visit(e.uses)
	}

	var body strings.Builder
	var spans []Span
	line := 1
	add := func(name string, entry int, text string) {
		text = strings.TrimRight(text, "\n") + "\n"
		n := strings.Count(text, "\n")
		spans = append(spans, Span{Name: name, Entry: entry, First: line, Last: line + n - 1})
		body.WriteString(text)
		body.WriteString("\n")
		line += n + 1
	}
	// Header: package clause and imports, decided after the body.
	var decls []*decl
	for _, d := range p.decls {
		if d.name == "" || need[d.name] {
			decls = append(decls, d)
		}
	}
	if tr != nil {
		next := 0
		var td []*decl
		for _, d := range decls {
			text := d.text
			if d.name != "" && !strings.HasPrefix(d.name, "dg") && !strings.HasPrefix(d.name, "at") {
				text = traced(text, &next) // helpers and methods, not digests
			}
			td = append(td, &decl{name: d.name, text: text})
		}
		td = append(td, &decl{text: fmt.Sprintf(traceSupport, tr.Skip, TraceLen, TraceLen)})
		decls = td
		var te []*Entry
		for _, e := range entries {
			te = append(te, &Entry{Index: e.Index, Name: e.Name, text: traced(e.text, &next)})
		}
		entries = te
	}
	var all strings.Builder
	for _, d := range decls {
		all.WriteString(d.text)
	}
	for _, e := range entries {
		all.WriteString(e.text)
	}
	policy := policyFunc(entries, tr)
	all.WriteString(policy)
	header := "package policy\n\nimport (\n"
	for _, im := range imports(all.String()) {
		header += "\t\"" + im + "\"\n"
	}
	header += ")\n\n"
	line = strings.Count(header, "\n") + 1
	for _, d := range decls {
		add(d.name, -1, d.text)
	}
	for _, e := range entries {
		add(e.Name, e.Index, e.text)
	}
	add("Policy", -1, policy)
	return []byte(header + body.String()), spans
}

// policyFunc dispatches each call to one entry, chosen by step and agent,
// and returns bits of its digest.
func policyFunc(entries []*Entry, tr *Trace) string {
	var b strings.Builder
	b.WriteString("// Policy calls entry (step*agents + agent) mod the number of entries.\n")
	b.WriteString("func Policy(v *ssd.View, agent int) int {\n")
	fmt.Fprintf(&b, "\tk := (v.Step()*v.NumAgents() + agent) %% %d\n", max(len(entries), 1))
	if tr != nil {
		b.WriteString("\ttrace, traceN, chunks, chunk = trace[:0], 0, chunks[:0], 0\n")
	}
	b.WriteString("\tvar d uint64\n\tswitch k {\n")
	for i, e := range entries {
		fmt.Fprintf(&b, "\tcase %d:\n\t\td = %s(v, agent)\n", i, e.Name)
	}
	b.WriteString("\t}\n")
	if tr != nil {
		b.WriteString("\tcalls = append(calls, ' ')\n\tcalls = strconv.AppendUint(calls, final(d)&0xfff, 16)\n")
		fmt.Fprintf(&b, "\tif v.Step() == %d && agent == %d {\n", tr.Step, tr.Agent)
		switch tr.Skip {
		case TraceCalls:
			b.WriteString("\t\tpanic(\"CALLS\" + string(calls))\n\t}\n")
		case TraceChunks:
			// The last, partial chunk too.
			b.WriteString("\t\tchunks = append(chunks, ' ')\n\t\tchunks = strconv.AppendUint(chunks, final(chunk)&0xfff, 16)\n")
			b.WriteString("\t\tpanic(\"CHUNKS\" + string(chunks))\n\t}\n")
		default:
			b.WriteString("\t\tpanic(\"TRACE\" + string(trace))\n\t}\n")
		}
	}
	b.WriteString("\treturn int(final(d) % uint64(v.NumActions()))\n}\n")
	return b.String()
}

// imports lists the packages a program's text refers to.
func imports(text string) []string {
	var out []string
	for _, p := range []struct{ path, sel string }{
		{"container/heap", "heap."}, {"errors", "errors."}, {"math", "math."}, {"math/bits", "bits."},
		{"sort", "sort."}, {"ssd", "ssd."}, {"strconv", "strconv."}, {"strings", "strings."},
	} {
		if strings.Contains(text, p.sel) {
			out = append(out, p.path)
		}
	}
	sort.Strings(out)
	return out
}

// gen holds the state of one generation.
type gen struct {
	rng *rand.Rand
	cfg Config

	types   []*typ // named struct types declared by the program
	helpers []*helper
	globals []*variable // package-level variables
	decls   []*decl
	support map[string]*decl // support declarations, by name
	names   int              // counter for fresh names
	// registered are the composite types that need dg and at helpers.
	registered map[string]*typ

	fn *fnCtx // the function being generated
	sc *scope // innermost scope
	// outside collects the constructs outside the yaegi subset written
	// into the entry being generated.
	outside []string
}

func newGen(seed uint64, cfg Config) *gen {
	return &gen{
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		cfg:     cfg,
		support: map[string]*decl{},
	}
}

// Random choices.
func (g *gen) intn(n int) int { return g.rng.IntN(n) }
func (g *gen) chance(num, den int) bool {
	return g.rng.IntN(den) < num
}
func pick[T any](g *gen, xs []T) T { return xs[g.intn(len(xs))] }

// weighted picks an index with the given weights.
func (g *gen) weighted(ws ...int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	r := g.intn(total)
	for i, w := range ws {
		if r < w {
			return i
		}
		r -= w
	}
	return len(ws) - 1
}

func (g *gen) fresh(prefix string) string {
	g.names++
	return fmt.Sprintf("%s%d", prefix, g.names)
}

// variable is a variable in scope.
type variable struct {
	name  string
	t     *typ
	fixed bool // never assigned by generated code (loop counters, receivers)
}

// scope is a block of declarations.
type scope struct {
	parent *scope
	vars   []*variable
}

func (g *gen) push() { g.sc = &scope{parent: g.sc} }
func (g *gen) pop() []*variable {
	vs := g.sc.vars
	g.sc = g.sc.parent
	return vs
}
func (g *gen) declare(name string, t *typ, fixed bool) *variable {
	v := &variable{name: name, t: t, fixed: fixed}
	g.sc.vars = append(g.sc.vars, v)
	return v
}

// visible lists the variables in scope, innermost first, shadowed names
// left out; globals last.
func (g *gen) visible() []*variable {
	seen := map[string]bool{}
	var out []*variable
	for s := g.sc; s != nil; s = s.parent {
		for i := len(s.vars) - 1; i >= 0; i-- {
			v := s.vars[i]
			if !seen[v.name] {
				seen[v.name] = true
				out = append(out, v)
			}
		}
	}
	for _, v := range g.globals {
		if !seen[v.name] {
			out = append(out, v)
		}
	}
	return out
}

// varsOf lists the visible variables of type t.
func (g *gen) varsOf(t *typ, assignable bool) []*variable {
	var out []*variable
	for _, v := range g.visible() {
		if v.t.same(t) && (!assignable || !v.fixed) {
			out = append(out, v)
		}
	}
	return out
}

// fnCtx is the function being generated.
type fnCtx struct {
	name    string
	acc     string // the digest accumulator in scope
	uses    map[string]bool
	labels  []string // enclosing labelled loops
	loops   int      // enclosing loops of this function (not closures)
	mult    int      // iterations of the enclosing loops, multiplied
	cost    int      // work spent so far, in loop iterations
	result  *typ     // the result type of the function or closure being generated
	result2 *typ     // its second result, if any
	named   bool     // its results are named (a bare return returns them)
	shared  bool     // a helper or method: shared by entries, so no refused constructs
	entry   bool     // an entry function (returns its digest)
	helper  bool     // a package-level helper (its digest goes to acc)
	closure int      // nesting depth of function literals
}

// costLimit bounds the work of one entry call, in loop iterations of
// generated statements (yaegi runs ~10^6 simple statements per second).
const costLimit = 4000

// w accumulates the lines of a function body.
type w struct {
	b      strings.Builder
	indent int
}

func (w *w) line(format string, args ...any) {
	w.b.WriteString(strings.Repeat("\t", w.indent))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteString("\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Users returns the indices of the entries that need the declaration
// name, directly or through other declarations.
func (p *Program) Users(name string) []int {
	byName := map[string]*decl{}
	for _, d := range p.decls {
		if d.name != "" {
			byName[d.name] = d
		}
	}
	var out []int
	for _, e := range p.Entries {
		seen := map[string]bool{}
		var needs func(uses map[string]bool) bool
		needs = func(uses map[string]bool) bool {
			for n := range uses {
				if n == name {
					return true
				}
				if seen[n] {
					continue
				}
				seen[n] = true
				if d := byName[n]; d != nil && needs(d.uses) {
					return true
				}
			}
			return false
		}
		if needs(e.uses) {
			out = append(out, e.Index)
		}
	}
	return out
}
