package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
	"policyevolve/store"
)

// llmOptions are the flags of every command that calls a model.
//
// Each model is reached through an endpoint: its server, the variable
// holding its key, the time limit and the attempts of a call. The shared
// flags (--llm-base-url, --llm-key-env, --llm-timeout, --llm-retries) set
// them for every model; a model's own settings win: a server in its spec
// (--llm openai:NAME@URL), or its entry in the config file's models table
// (see register).
type llmOptions struct {
	spec        string   // the first model named (or $POLICYEVOLVE_LLM), without its @URL
	specs       []string // every --llm given, in order, without their @URL
	baseURL     string
	keyEnv      string
	temperature *float64
	maxTokens   int
	reasoning   string
	stream      bool
	timeout     time.Duration
	retries     int
	prices      string
	prompts     string
	// own are the models' own settings, by spec: a server from --llm
	// SPEC@URL, an entry of the config file's models table, or (a run)
	// what it stored in JobConfig.Endpoints.
	own map[string]evolve.Endpoint
	// fs tells which flags were given (on the command line or in the
	// config file).
	fs *flagSet
}

func (o *llmOptions) register(fs *flagSet) {
	o.fs = fs
	if env := os.Getenv("POLICYEVOLVE_LLM"); env != "" {
		o.spec = env
		if spec, url, ok := splitServer(env); ok {
			o.spec = spec
			o.setOwn(spec, func(e *evolve.Endpoint) { e.BaseURL = url })
		}
	}
	fs.Func("llm", "model as PROVIDER:MODEL[@URL]: openai:gpt-5, anthropic:claude-sonnet-4-5, google:gemini-2.5-pro,\nollama:qwen3, exec:COMMAND, replay:FILE; @URL: this model's own server, e.g.\nopenai:qwen3@http://localhost:8000/v1 (default: $POLICYEVOLVE_LLM)", func(s string) error {
		spec, url, ok := splitServer(s)
		if ok {
			o.setOwn(spec, func(e *evolve.Endpoint) { e.BaseURL = url })
		}
		if len(o.specs) == 0 {
			o.spec = spec
		}
		o.specs = append(o.specs, spec)
		return nil
	})
	fs.StringVar(&o.baseURL, "llm-base-url", "", "server URL of every model without its own (--llm SPEC@URL, or the config file's models table): any OpenAI-compatible\nserver for openai (e.g. http://localhost:8000/v1), the Ollama server for ollama; refused when the models are of several providers")
	fs.StringVar(&o.keyEnv, "llm-key-env", "", "environment variable holding the API key of every model without its own (default: OPENAI_API_KEY, ANTHROPIC_API_KEY,\nGEMINI_API_KEY or GOOGLE_API_KEY); refused when the models are of several providers")
	fs.Var(llmTemperature{&o.temperature}, "temperature", "sampling temperature (default: the provider's own)")
	fs.IntVar(&o.maxTokens, "llm-max-tokens", 0, "most tokens an answer may take, reasoning included (default: the provider's; Anthropic: the model's largest)")
	fs.StringVar(&o.reasoning, "reasoning", "max", "thinking effort: max (the largest the model takes), high, medium, low, none, or a token budget (Anthropic, Google)")
	fs.BoolVar(&o.stream, "llm-stream", false, "have the server stream its answers (for proxies that cut long silent requests)")
	fs.DurationVar(&o.timeout, "llm-timeout", llm.DefaultTimeout, "time limit of one attempt of a call")
	fs.IntVar(&o.retries, "llm-retries", 6, "attempts per call on 408, 429, 5xx and 529, with backoff")
	fs.StringVar(&o.prices, "prices", "", "FILE: a JSON price table laid over the built-in one, e.g. a file holding\n{\"openai:my-model\": {\"input\": 0.5, \"output\": 1.5}} (US dollars per million tokens)")
	fs.StringVar(&o.prompts, "prompts", "", "folder of prompt templates replacing the built-in ones of the same names")
	fs.table("models", o.setModels)
}

// splitServer splits "PROVIDER:MODEL@URL" at the @ that starts an http
// or https URL (a model name may hold an @ of its own, as Vertex's
// "claude-sonnet-4@20250514" does). exec: and replay: take none.
func splitServer(s string) (spec, url string, ok bool) {
	if p, _, _ := strings.Cut(s, ":"); p == llm.Exec || p == llm.Replay {
		return s, "", false
	}
	for _, scheme := range []string{"@http://", "@https://"} {
		if i := strings.LastIndex(s, scheme); i > 0 {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// setOwn changes a model's own settings.
func (o *llmOptions) setOwn(spec string, f func(*evolve.Endpoint)) {
	if o.own == nil {
		o.own = map[string]evolve.Endpoint{}
	}
	e := o.own[spec]
	f(&e)
	o.own[spec] = e
}

// setModels reads the config file's models table: for each model
// (PROVIDER:MODEL), its own base-url, key-env, timeout and retries.
//
//	[models."openai:qwen3-32b"]
//	base-url = "http://gpu-box:8000/v1"
//	key-env = "GPU_BOX_KEY"
//	timeout = "30m"
func (o *llmOptions) setModels(table map[string]any) error {
	for spec, v := range table {
		if _, _, err := llm.ParseSpec(spec); err != nil {
			return fmt.Errorf("%s: %v", spec, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want a table of base-url, key-env, timeout, retries", spec)
		}
		var err error
		o.setOwn(spec, func(e *evolve.Endpoint) {
			for k, v := range m {
				s := fmt.Sprint(v)
				switch strings.ReplaceAll(k, "_", "-") {
				case "base-url":
					e.BaseURL = s
				case "key-env":
					e.KeyEnv = s
				case "timeout":
					if e.Timeout, err = time.ParseDuration(s); err == nil && e.Timeout <= 0 {
						err = fmt.Errorf("timeout %s: want a positive duration", s)
					}
				case "retries":
					if e.Retries, err = strconv.Atoi(s); err == nil && e.Retries < 1 {
						err = fmt.Errorf("retries %s: want at least 1", s)
					}
				default:
					err = fmt.Errorf("%q: want base-url, key-env, timeout or retries", k)
				}
				if err != nil {
					err = fmt.Errorf("%s: %w", spec, err)
					return
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// given reports whether a flag was given, on the command line or in the
// config file.
func (o *llmOptions) given(name string) bool { return flagGiven(o.fs, name) }

// endpoint is how spec is reached: its own settings over the shared ones.
func (o *llmOptions) endpoint(spec string) evolve.Endpoint {
	e := evolve.Endpoint{BaseURL: o.baseURL, KeyEnv: o.keyEnv, Timeout: o.timeout, Retries: o.retries}
	own := o.own[spec]
	overlay(&e, own)
	e.Identity = own.Identity
	return e
}

// overlay sets in e what over sets (its non-zero server, key variable,
// time limit and attempts).
func overlay(e *evolve.Endpoint, over evolve.Endpoint) {
	if over.BaseURL != "" {
		e.BaseURL = over.BaseURL
	}
	if over.KeyEnv != "" {
		e.KeyEnv = over.KeyEnv
	}
	if over.Timeout > 0 {
		e.Timeout = over.Timeout
	}
	if over.Retries > 0 {
		e.Retries = over.Retries
	}
}

// client resolves the flags into a Client of the first model, recording
// into rec (nil: no ledger) through gate (nil: no budget). A missing
// --llm is a usage error.
func (o *llmOptions) client(rec llm.Recorder, gate llm.Gate) (*llm.Client, error) {
	return o.clientFor(o.spec, rec, gate)
}

// clientFor is client for one of the models named.
func (o *llmOptions) clientFor(spec string, rec llm.Recorder, gate llm.Gate) (*llm.Client, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	e := o.endpoint(spec)
	cfg := llm.Config{Spec: spec, BaseURL: e.BaseURL, IdentityURL: e.Identity, KeyEnv: e.KeyEnv, Temperature: o.temperature,
		MaxTokens: o.maxTokens, Reasoning: o.reasoning, Stream: o.stream, Timeout: e.Timeout,
		Retry: llm.Retry{MaxAttempts: e.Retries}, Recorder: rec, Gate: gate}
	if o.prices != "" {
		p, err := llm.LoadPrices(o.prices)
		if err != nil {
			return nil, usagef("--prices: %v", err)
		}
		cfg.Prices = p
	}
	cfg.Throttle = o.throttle(spec, e.BaseURL)
	return llm.New(cfg)
}

// throttles are the process's Throttles, one per provider and server:
// every client of a server shares its rate limits.
var throttles sync.Map // "provider server" → *llm.Throttle

// throttle is the Throttle shared by every client of the server spec's
// model is served by: a 429 from it slows them all.
func (o *llmOptions) throttle(spec, baseURL string) *llm.Throttle {
	provider, _, _ := llm.ParseSpec(spec)
	t, _ := throttles.LoadOrStore(provider+" "+baseURL, llm.NewThrottle(0))
	return t.(*llm.Throttle)
}

// check reports flags that are wrong whatever the model.
func (o *llmOptions) check() error {
	if o.spec == "" {
		return usagef("--llm is required: PROVIDER:MODEL, e.g. openai:gpt-5 (see docs/llm.md)")
	}
	for _, spec := range append([]string{o.spec}, o.specs...) {
		if _, _, err := llm.ParseSpec(spec); err != nil {
			return usagef("--llm: %v", err)
		}
	}
	if err := llm.CheckReasoning(o.reasoning); err != nil {
		return usagef("--reasoning: %v", err)
	}
	if o.maxTokens < 0 || o.timeout <= 0 || o.retries < 1 {
		return usagef("--llm-max-tokens, --llm-timeout and --llm-retries must be positive")
	}
	return o.checkShared()
}

// checkShared refuses a shared server or key variable that would go to
// models of several providers: an Anthropic model is never sent to an
// OpenAI-compatible server it was not meant for, nor given another
// provider's key.
func (o *llmOptions) checkShared() error {
	specs := o.specs
	if len(specs) == 0 && o.spec != "" {
		specs = []string{o.spec}
	}
	for _, f := range []struct {
		flag, value string
		own         func(evolve.Endpoint) string
	}{
		{"--llm-base-url", o.baseURL, func(e evolve.Endpoint) string { return e.BaseURL }},
		{"--llm-key-env", o.keyEnv, func(e evolve.Endpoint) string { return e.KeyEnv }},
	} {
		if f.value == "" {
			continue
		}
		providers := map[string]bool{}
		for _, spec := range specs {
			if f.own(o.own[spec]) == "" {
				p, _, _ := llm.ParseSpec(spec)
				providers[p] = true
			}
		}
		if len(providers) > 1 {
			return usagef("%s would serve models of %s alike: give each model its own (--llm PROVIDER:MODEL@URL, or a [models.\"PROVIDER:MODEL\"] table in the --config file; see docs/llm.md)",
				f.flag, strings.Join(slices.Sorted(maps.Keys(providers)), " and "))
		}
	}
	return nil
}

// checkBudget refuses a cost budget the models' calls cannot be held to:
// a model without a price, one whose answers have no known bound, a
// command. It is checked before any call is made.
func (o *llmOptions) checkBudget(maxCost float64) error {
	if maxCost <= 0 {
		return nil
	}
	for _, spec := range o.specs {
		c, err := o.clientFor(spec, nil, nil)
		if err != nil {
			return err
		}
		if err := c.Budgetable(); err != nil {
			hint := "give it one with --prices FILE (a free local model: {\"" + spec + "\": {\"input\": 0, \"output\": 0}})"
			switch {
			case errors.Is(err, llm.ErrUnbounded):
				hint = "set --llm-max-tokens, which bounds every answer"
			case errors.Is(err, llm.ErrNoUsage):
				hint = "a command reports no token counts; leave --max-cost out"
			}
			return usagef("--max-cost $%.2f cannot hold %v: %s", maxCost, err, hint)
		}
	}
	return nil
}

// warnUnpriced tells, once per model, that a model's cost is unknown.
func (o *llmOptions) warnUnpriced(w interface{ Write([]byte) (int, error) }) {
	for _, spec := range o.specs {
		c, err := o.clientFor(spec, nil, nil)
		if err != nil {
			continue
		}
		if err := c.Budgetable(); errors.Is(err, llm.ErrUnpriced) || errors.Is(err, llm.ErrNoUsage) {
			fmt.Fprintf(w, "note: %s has no price: its calls are counted, their cost shows as unknown (--prices FILE gives one)\n", spec)
		}
	}
}

// promptSet loads the prompt templates.
func (o *llmOptions) promptSet() (*prompts.Set, error) {
	s, err := prompts.Load(o.prompts)
	if err != nil {
		return nil, usagef("--prompts: %v", err)
	}
	return s, nil
}

// settings are the flags a resumed run repeats: those part of every
// request's identity, and the shared endpoint settings (no key: only the
// variable that holds it).
func (o *llmOptions) settings() map[string]string {
	m := map[string]string{
		"llm-base-url": o.baseURL, "llm-key-env": o.keyEnv, "reasoning": o.reasoning,
		"llm-max-tokens": strconv.Itoa(o.maxTokens), "llm-stream": strconv.FormatBool(o.stream),
		"llm-timeout": o.timeout.String(), "llm-retries": strconv.Itoa(o.retries), "prices": o.prices, "prompts": o.prompts,
	}
	if o.temperature != nil {
		m["temperature"] = strconv.FormatFloat(*o.temperature, 'g', -1, 64)
	}
	return m
}

// endpoints are the models' own endpoints, to store with a run (nil when
// none has its own).
func (o *llmOptions) endpoints() map[string]evolve.Endpoint {
	if len(o.own) == 0 {
		return nil
	}
	return maps.Clone(o.own)
}

// identityFlags are the flags whose settings are part of every request's
// identity: a resumed run cannot change them.
var identityFlags = []string{"temperature", "reasoning", "llm-max-tokens", "llm-stream", "prompts", "prices"}

// apply restores settings a run stored, its models and their own
// endpoints.
func (o *llmOptions) apply(m map[string]string, planners []string, endpoints map[string]evolve.Endpoint) {
	o.specs = nil
	for _, p := range planners {
		if spec, ok := strings.CutPrefix(p, "llm:"); ok {
			o.specs = append(o.specs, spec)
		}
	}
	if len(o.specs) > 0 {
		o.spec = o.specs[0]
	}
	o.own = maps.Clone(endpoints)
	if len(m) == 0 {
		return
	}
	o.baseURL, o.keyEnv, o.reasoning, o.prices, o.prompts = m["llm-base-url"], m["llm-key-env"], m["reasoning"], m["prices"], m["prompts"]
	o.maxTokens, _ = strconv.Atoi(m["llm-max-tokens"])
	o.stream, _ = strconv.ParseBool(m["llm-stream"])
	if d, err := time.ParseDuration(m["llm-timeout"]); err == nil {
		o.timeout = d
	}
	if n, err := strconv.Atoi(m["llm-retries"]); err == nil {
		o.retries = n
	}
	o.temperature = nil
	if t, err := strconv.ParseFloat(m["temperature"], 64); err == nil {
		o.temperature = &t
	}
}

// move applies to a resumed run (o, restored with apply) what now says of
// how its models are reached: servers, key variables, time limits and
// attempts, given now on the command line or in the config file. It
// refuses a model the run does not have, and a change to a setting that
// is part of every request's identity. It returns what changed, a line
// per model; a model that moved to another server keeps its requests'
// identity (the server of its first calls), so that the run finds its
// answers again.
func (o *llmOptions) move(now *llmOptions, stored map[string]string) ([]string, error) {
	for _, name := range identityFlags {
		if now.given(name) && now.settings()[name] != stored[name] {
			return nil, usagef("--resume: --%s cannot change (%q, the run has %q): it is part of every request's identity; start a new run for new settings",
				name, now.settings()[name], stored[name])
		}
	}
	for _, spec := range now.specs {
		if !slices.Contains(o.specs, spec) {
			return nil, usagef("--resume: the run's models cannot change, and it has no %s (it has %s); --llm on a resume moves a model: --llm %s@URL",
				spec, strings.Join(o.specs, ", "), o.spec)
		}
	}
	// A shared server or key variable given now goes to every model
	// without its own given now: refused across providers, as for a new
	// run.
	shared := &llmOptions{specs: o.specs, spec: o.spec, own: now.own}
	if now.given("llm-base-url") {
		shared.baseURL = now.baseURL
	}
	if now.given("llm-key-env") {
		shared.keyEnv = now.keyEnv
	}
	if err := shared.checkShared(); err != nil {
		return nil, err
	}
	before := map[string]evolve.Endpoint{}
	for _, spec := range o.specs {
		before[spec] = o.endpoint(spec)
	}
	moved := &llmOptions{baseURL: o.baseURL, keyEnv: o.keyEnv, timeout: o.timeout, retries: o.retries, own: maps.Clone(o.own),
		specs: o.specs, spec: o.spec}
	// A shared flag given now is every model's own setting from now on
	// (their own of before included: it is what the user asks now).
	for _, spec := range o.specs {
		moved.setOwn(spec, func(e *evolve.Endpoint) {
			if now.given("llm-base-url") {
				e.BaseURL = now.baseURL
			}
			if now.given("llm-key-env") {
				e.KeyEnv = now.keyEnv
			}
			if now.given("llm-timeout") {
				e.Timeout = now.timeout
			}
			if now.given("llm-retries") {
				e.Retries = now.retries
			}
			overlay(e, now.own[spec])
		})
	}
	var changes []string
	for _, spec := range o.specs {
		b, a := before[spec], moved.endpoint(spec)
		var what []string
		if b.BaseURL != a.BaseURL {
			from, err := serverOf(spec, b)
			if err != nil {
				return nil, err
			}
			to, err := serverOf(spec, a)
			if err != nil {
				return nil, usagef("--resume: %s: %v", spec, err)
			}
			if from != to {
				what = append(what, fmt.Sprintf("server %s (was %s)", to, from))
				if a.Identity == "" {
					moved.setOwn(spec, func(e *evolve.Endpoint) { e.Identity = from })
				}
			}
		}
		if b.KeyEnv != a.KeyEnv {
			what = append(what, fmt.Sprintf("key from %s (was %s)", orDefault(a.KeyEnv, "the provider's variable"), orDefault(b.KeyEnv, "the provider's variable")))
		}
		if b.Timeout != a.Timeout {
			what = append(what, fmt.Sprintf("time limit %v per attempt (was %v)", a.Timeout, b.Timeout))
		}
		if b.Retries != a.Retries {
			what = append(what, fmt.Sprintf("%d attempts per call (was %d)", a.Retries, b.Retries))
		}
		if len(what) > 0 {
			changes = append(changes, spec+": "+strings.Join(what, ", "))
		}
	}
	if len(changes) > 0 {
		o.own = moved.own
	}
	sort.Strings(changes)
	return changes, nil
}

// serverOf is the server a model reached through e is called at.
func serverOf(spec string, e evolve.Endpoint) (string, error) {
	provider, _, err := llm.ParseSpec(spec)
	if err != nil {
		return "", err
	}
	return llm.ServerURL(provider, e.BaseURL, os.Getenv)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// promptStyleFlag registers --prompt-style, setting *style.
func promptStyleFlag(fs *flagSet, style *string) {
	fs.Func("prompt-style", "how the LLM planner prompts: standard (the paper's prompts), naive (the task only: no example, no reasoning), cot (reasoning step by step under named headings) or react (reason-act turns: the model may play up to two drafts on two seeds and read their scores before it answers; each turn is a planner call)", func(s string) error {
		st, err := evolve.ParsePromptStyle(s)
		*style = st
		return err
	})
}

// planners returns the planner builder of a job of cfg (evolve.Job.Planner),
// read when the job builds its planners: the offline grammar planner, or
// an LLM planner of these flags whose calls go to the store's ledger
// under the run, through the run's gate (its budgets).
func (o *llmOptions) planners(s *store.Store, cfg *evolve.JobConfig) evolve.PlannerFunc {
	return func(spec, run string, gate llm.Gate) (planner.Planner, error) {
		if spec == planner.GrammarName {
			return &planner.GrammarPlanner{Workers: cfg.Workers}, nil
		}
		client, err := o.clientFor(strings.TrimPrefix(spec, "llm:"), &planner.LLMRecorder{Store: s, Run: run}, gate)
		if err != nil {
			return nil, err
		}
		ps, err := o.promptSet()
		if err != nil {
			return nil, err
		}
		return &planner.LLMPlanner{Client: client, Prompts: ps, Style: cfg.PromptStyle, Adversarial: cfg.Adversarial}, nil
	}
}
