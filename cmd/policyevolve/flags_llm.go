package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"policyevolve/evolve"
	"policyevolve/evolve/planner"
	"policyevolve/evolve/planner/prompts"
	"policyevolve/llm"
	"policyevolve/store"
)

// llmOptions are the flags of every command that calls a model.
type llmOptions struct {
	spec        string   // the first model named (or $POLICYEVOLVE_LLM)
	specs       []string // every --llm given, in order
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
}

func (o *llmOptions) register(fs *flagSet) {
	o.spec = os.Getenv("POLICYEVOLVE_LLM")
	fs.Func("llm", "model as PROVIDER:MODEL: openai:gpt-5, anthropic:claude-sonnet-4-5, google:gemini-2.5-pro,\nollama:qwen3, exec:COMMAND, replay:FILE (default: $POLICYEVOLVE_LLM)", func(s string) error {
		if len(o.specs) == 0 {
			o.spec = s
		}
		o.specs = append(o.specs, s)
		return nil
	})
	fs.StringVar(&o.baseURL, "llm-base-url", "", "server URL: any OpenAI-compatible server for openai (e.g. http://localhost:8000/v1), the Ollama server for ollama")
	fs.StringVar(&o.keyEnv, "llm-key-env", "", "environment variable holding the API key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY)")
	fs.Var(llmTemperature{&o.temperature}, "temperature", "sampling temperature (default: the provider's own)")
	fs.IntVar(&o.maxTokens, "llm-max-tokens", 0, "most tokens an answer may take, reasoning included (default: the provider's; Anthropic: the model's largest)")
	fs.StringVar(&o.reasoning, "reasoning", "max", "thinking effort: max (the largest the model takes), high, medium, low, none, or a token budget (Anthropic, Google)")
	fs.BoolVar(&o.stream, "llm-stream", false, "have the server stream its answers (for proxies that cut long silent requests)")
	fs.DurationVar(&o.timeout, "llm-timeout", llm.DefaultTimeout, "time limit of one attempt of a call")
	fs.IntVar(&o.retries, "llm-retries", 6, "attempts per call on 408, 429, 5xx and 529, with backoff")
	fs.StringVar(&o.prices, "prices", "", "JSON price table laid over the built-in one: {\"provider:model\": {\"input\": USD/Mtok, \"output\": USD/Mtok}}")
	fs.StringVar(&o.prompts, "prompts", "", "folder of prompt templates replacing the built-in ones of the same names")
}

// client resolves the flags into a Client of the first model, recording
// into rec (nil: no ledger). A missing --llm is a usage error.
func (o *llmOptions) client(rec llm.Recorder) (*llm.Client, error) {
	return o.clientFor(o.spec, rec)
}

// clientFor is client for one of the models named.
func (o *llmOptions) clientFor(spec string, rec llm.Recorder) (*llm.Client, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	cfg := llm.Config{Spec: spec, BaseURL: o.baseURL, KeyEnv: o.keyEnv, Temperature: o.temperature,
		MaxTokens: o.maxTokens, Reasoning: o.reasoning, Stream: o.stream, Timeout: o.timeout,
		Retry: llm.Retry{MaxAttempts: o.retries}, Recorder: rec}
	if o.prices != "" {
		p, err := llm.LoadPrices(o.prices)
		if err != nil {
			return nil, usagef("--prices: %v", err)
		}
		cfg.Prices = p
	}
	return llm.New(cfg)
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
	return nil
}

// promptSet loads the prompt templates.
func (o *llmOptions) promptSet() (*prompts.Set, error) {
	s, err := prompts.Load(o.prompts)
	if err != nil {
		return nil, usagef("--prompts: %v", err)
	}
	return s, nil
}

// settings are the flags a resumed run must repeat: they are part of
// every request's identity (no key: only the variable that holds it).
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

// apply restores settings a run stored, and its models.
func (o *llmOptions) apply(m map[string]string, planners []string) {
	o.specs = nil
	for _, p := range planners {
		if spec, ok := strings.CutPrefix(p, "llm:"); ok {
			o.specs = append(o.specs, spec)
		}
	}
	if len(o.specs) > 0 {
		o.spec = o.specs[0]
	}
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
// under the run.
func (o *llmOptions) planners(s *store.Store, cfg *evolve.JobConfig) func(spec, run string) (planner.Planner, error) {
	return func(spec, run string) (planner.Planner, error) {
		if spec == planner.GrammarName {
			return &planner.GrammarPlanner{Workers: cfg.Workers}, nil
		}
		client, err := o.clientFor(strings.TrimPrefix(spec, "llm:"), &planner.LLMRecorder{Store: s, Run: run})
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
