package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/episode"
	"policyevolve/render"
)

// flagRules is the one place where the values a flag takes are declared:
// the range of every numeric flag, and the parser a structured string flag
// (a seed list, a duration or "off") must pass. Keys are a flag's name, or
// "COMMAND NAME" for a flag whose range differs in one command. A value
// outside its rule, on the command line or in a --config file, is a usage
// error (exit 2) that names the flag and the range; --help states each
// range. Every numeric flag of every command must have a rule here
// (TestEveryNumericFlagHasARule), so a new flag cannot escape it.
var flagRules = map[string]rule{
	// The environment.
	"agents":         {lo: 1, hi: episode.MaxAgents},
	"pool ls agents": {lo: 1, hi: episode.MaxAgents, unset: "0"},
	"steps":          {lo: 1, hi: episode.MaxSteps},
	"render length":  {lo: 1, hi: episode.MaxSteps},

	// Seeds: a run seed is any unsigned 64-bit integer; lists are parsed.
	"seed":        {lo: 0, hi: math.MaxUint64},
	"seeds":       seedListRule,
	"match-seeds": seedListRule,
	"train-seeds": seedListRule,
	"eval-seeds":  seedListRule,
	"held-out":    seedListRule,
	"replay-seed": {lo: 0, hi: math.MaxInt64, unset: "-1"},

	// The search.
	"iterations":          {lo: 1, hi: 100_000, unset: "0"},
	"candidates":          {lo: 1, hi: 1000},
	"opponents":           {lo: 1, hi: 1000},
	"local-rounds":        {lo: 0, hi: 100},
	"local-stop":          {lo: 0, hi: 100},
	"recheck":             {lo: 0, hi: evolve.MaxRecheck},
	"crossover-rate":      {lo: 0, hi: 1},
	"pool-capacity":       {lo: 1, hi: 10_000},
	"promote-threshold":   {lo: 0, hi: 1, loOpen: true, hiOpen: true},
	"workers":             {lo: 1, hi: 1024, unset: "0"},
	"tune workers":        {lo: 1, hi: 1024},
	"planner-concurrency": {lo: 1, hi: 256, unset: "0"},
	"max-planner-calls":   {lo: 0, hi: 10_000_000},
	"max-cost":            {lo: 0, hi: 1_000_000},
	"max-tokens":          {lo: 0, hi: 1e12},
	"time":                {lo: 0, hi: float64(24 * 365 * time.Hour)},
	// --objective robust's margin: a share of the residents' return.
	"robust-margin": {lo: 0, hi: 10, loOpen: true, unset: "0"},
	// --objective exploit's invaders: at least one, and one resident left
	// of the most agents a run may have (the run checks its own count).
	"evolve k": {lo: 1, hi: 63, unset: "0"},
	// propose's --sample stays below the local rounds' numbers (a round r
	// of candidate k is sample k+1000r; see store.LocalRoundStride).
	"sample": {lo: 0, hi: 999},

	// compare and experiment; tune.
	"budget":          {lo: 1, hi: 100_000},
	"tune budget":     {lo: 4, hi: 100_000},
	"runs":            {lo: 1, hi: 1000},
	"qlearn-episodes": {lo: 0, hi: 1_000_000},

	// qlearn train.
	"episodes":  {lo: 1, hi: 1_000_000},
	"eps-decay": {lo: 1, hi: 1_000_000, unset: "0"},

	// The sandbox.
	"step-timeout": {lo: float64(time.Millisecond), hi: float64(time.Hour)},
	"cost-budget": {check: func(s string) error {
		if s == "off" {
			return nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Millisecond || d > 24*time.Hour {
			return errOutOfRule
		}
		return nil
	}, what: "a duration from 1ms to 24h, or off"},

	// Pictures.
	"scale":      {lo: 1, hi: render.MaxScale},
	"render fps": {lo: 0, hi: 50, loOpen: true},
	"fps":        {lo: 0, hi: maxFPS, loOpen: true},

	// Language models.
	"temperature":    {lo: 0, hi: 2},
	"llm-max-tokens": {lo: 1, hi: 10_000_000, unset: "0"},
	"llm-retries":    {lo: 1, hi: 100},
	"llm-timeout":    {lo: float64(time.Second), hi: float64(24 * time.Hour)},

	// NATS.
	"nats-inflight":     {lo: 1, hi: 100_000},
	"nats-ack-wait":     {lo: float64(time.Second), hi: float64(24 * time.Hour)},
	"nats-max-deliver":  {lo: 1, hi: 1000},
	"nats-verify-first": {lo: 0, hi: 1000},
	"nats-verify-rate":  {lo: 0, hi: 1},
	"nats-wait":         {lo: 0, hi: float64(24 * 365 * time.Hour)},
	"concurrency":       {lo: 1, hi: 1024},
	"max-programs":      {lo: 1, hi: 100_000},
	"heartbeat":         {lo: float64(100 * time.Millisecond), hi: float64(time.Hour)},

	// serve.
	"poll": {lo: float64(10 * time.Millisecond), hi: float64(time.Hour)},
}

// seedListRule: N, A-B or a comma-separated list of both (parseSeeds).
var seedListRule = rule{check: func(s string) error {
	_, err := parseSeeds(s)
	return err
}, what: "a seed list: N, A-B or a comma-separated list of both"}

// A rule is what values a flag takes: a range for a numeric flag (lo and
// hi inclusive unless loOpen or hiOpen; durations in nanoseconds), or a
// check a string flag's value must pass (what says what it wants).
type rule struct {
	lo, hi         float64
	loOpen, hiOpen bool
	// unset is a default outside the range that stands for "not given"
	// (the flag's help says what it means); giving it is refused.
	unset string
	check func(string) error
	what  string
}

// errOutOfRule is a check's error that needs no more words than the rule's.
var errOutOfRule = fmt.Errorf("out of range")

// kind is how a numeric flag's values read: an integer, an unsigned
// integer, a number or a duration; "" for a flag that is not numeric.
func kindOf(v flag.Value) string {
	g, ok := v.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case int, int64:
		return "int"
	case uint, uint64:
		return "uint"
	case float64:
		return "float"
	case time.Duration:
		return "duration"
	}
	return ""
}

// ruleFor returns the rule of flag name in command cmd.
func ruleFor(cmd, name string) (rule, bool) {
	if r, ok := flagRules[cmd+" "+name]; ok {
		return r, true
	}
	r, ok := flagRules[name]
	return r, ok
}

// describe says what the rule wants, for a flag of kind: "an integer from
// 1 to 1000", "a duration from 0s to 8760h".
func (r rule) describe(kind string) string {
	if r.check != nil {
		return r.what
	}
	noun := map[string]string{"int": "an integer", "uint": "an integer", "float": "a number", "duration": "a duration"}[kind]
	lo, hi := r.format(r.lo, kind), r.format(r.hi, kind)
	switch {
	case r.loOpen && r.hiOpen:
		return fmt.Sprintf("%s above %s and below %s", noun, lo, hi)
	case r.loOpen:
		return fmt.Sprintf("%s above %s and at most %s", noun, lo, hi)
	case r.hiOpen:
		return fmt.Sprintf("%s from %s and below %s", noun, lo, hi)
	}
	return fmt.Sprintf("%s from %s to %s", noun, lo, hi)
}

// span is the range alone, for --help: "1 to 1000", "above 0, at most 50".
func (r rule) span(kind string) string {
	if r.check != nil || (kind == "uint" && r.lo == 0 && r.hi >= math.MaxUint64) {
		return "" // a seed: any is good, and "0 to 18446744073709551615" says little
	}
	lo, hi := r.format(r.lo, kind), r.format(r.hi, kind)
	switch {
	case r.loOpen && r.hiOpen:
		return "above " + lo + ", below " + hi
	case r.loOpen:
		return "above " + lo + ", at most " + hi
	case r.hiOpen:
		return lo + " to below " + hi
	}
	return lo + " to " + hi
}

func (r rule) format(x float64, kind string) string {
	switch kind {
	case "duration":
		return shortDuration(time.Duration(x))
	case "uint":
		if x >= math.MaxUint64 {
			return strconv.FormatUint(math.MaxUint64, 10)
		}
	case "int":
		if x >= math.MaxInt64 {
			return strconv.FormatInt(math.MaxInt64, 10)
		}
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// shortDuration prints d without trailing zero units: 24h, 1m30s, 10ms.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// test returns why s is not a value of kind within the rule, or nil.
func (r rule) test(s, kind string) error {
	if r.check != nil {
		return r.check(s)
	}
	notNumber := fmt.Errorf("not %s", map[string]string{"int": "an integer", "uint": "a non-negative integer",
		"float": "a number", "duration": "a duration (such as 90s or 2h)"}[kind])
	var x float64
	switch kind {
	case "int":
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			return notNumber
		}
		x = float64(v)
		// Bounds near 2^63 lose precision as floats: compare exactly.
		if r.hi >= math.MaxInt64 {
			if v < int64(r.lo) || (r.loOpen && v == int64(r.lo)) {
				return errOutOfRule
			}
			return nil
		}
	case "uint":
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return notNumber
		}
		if r.hi >= math.MaxUint64 {
			if v < uint64(r.lo) || (r.loOpen && v == uint64(r.lo)) {
				return errOutOfRule
			}
			return nil
		}
		x = float64(v)
	case "float":
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) {
			return notNumber
		}
		x = v
	case "duration":
		v, err := time.ParseDuration(s)
		if err != nil {
			return notNumber
		}
		x = float64(v)
	default:
		return nil
	}
	if (x > r.lo || (!r.loOpen && x == r.lo)) && (x < r.hi || (!r.hiOpen && x == r.hi)) {
		return nil
	}
	return errOutOfRule
}

// ruledValue is a flag's Value behind its rule: Set refuses what the rule
// does not admit, naming the flag (as the user spelt it) and the rule.
type ruledValue struct {
	flag.Value
	name   string
	kind   string
	r      rule
	failed *error // the flag set's: where a refusal is kept for parseFlags
}

// Get returns the value underneath (flag.Getter), so the kind stays known.
func (v *ruledValue) Get() any {
	if g, ok := v.Value.(flag.Getter); ok {
		return g.Get()
	}
	return v.Value.String()
}

func (v *ruledValue) IsBoolFlag() bool { return false }

func (v *ruledValue) Set(s string) error {
	if why := v.r.test(s, v.kind); why != nil {
		err := &ruleError{flag: v.name, value: s, why: why.Error(), want: v.r.describe(v.kind)}
		*v.failed = err
		return err
	}
	return v.Value.Set(s)
}

// ruleError is a value a flag's rule refuses.
type ruleError struct{ flag, value, why, want string }

func (e *ruleError) Error() string {
	return fmt.Sprintf("--%s %s: %s; want %s", e.flag, quoteIfOdd(e.value), e.why, e.want)
}

// quoteIfOdd quotes a value that would not read plainly in a message.
func quoteIfOdd(s string) string {
	if s == "" || strings.ContainsAny(s, " \t,\"'") {
		return strconv.Quote(s)
	}
	return s
}

// applyRules puts every flag of fs that has a rule behind it (once).
func (fs *flagSet) applyRules() {
	if fs.ruled {
		return
	}
	fs.ruled = true
	fs.VisitAll(func(f *flag.Flag) {
		canonical := f.Name
		if a, ok := fs.aliases[f.Name]; ok {
			canonical = a
		}
		r, ok := ruleFor(fs.Name(), canonical)
		if !ok {
			return
		}
		kind := kindOf(f.Value)
		if kind == "" && r.check == nil {
			return
		}
		f.Value = &ruledValue{Value: f.Value, name: f.Name, kind: kind, r: r, failed: &fs.failed}
	})
}

// llmTemperature is --temperature: a number, or unset (the provider's own).
type llmTemperature struct{ p **float64 }

func (t llmTemperature) String() string {
	if t.p == nil || *t.p == nil {
		return ""
	}
	return strconv.FormatFloat(**t.p, 'g', -1, 64)
}

func (t llmTemperature) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*t.p = &v
	return nil
}

// Get makes --temperature a numeric flag, under its rule.
func (t llmTemperature) Get() any {
	if t.p == nil || *t.p == nil {
		return 0.0
	}
	return **t.p
}
