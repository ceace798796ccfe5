package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"policyevolve/llm"
)

var llmCommands = map[string]command{
	"ping": {"make one tiny call to a model: check the key, the model and the settings", cmdLLMPing},
}

func cmdLLM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runGroup(ctx, "llm", "The language models the planner calls.", llmCommands, args, stdout, stderr)
}

type pingReport struct {
	Model           string  `json:"model"`
	Server          string  `json:"server,omitempty"`
	Settings        any     `json:"settings"`
	Answer          string  `json:"answer"`
	LatencyMS       int64   `json:"latency_ms"`
	Attempts        int     `json:"attempts"`
	InputTokens     int     `json:"input_tokens"`
	OutputTokens    int     `json:"output_tokens"`
	ReasoningTokens int     `json:"reasoning_tokens"`
	Cost            float64 `json:"cost_usd"`
	Priced          bool    `json:"priced"`
}

func cmdLLMPing(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o llmOptions
	var asJSON bool
	fs := newFlagSet("llm ping", "--llm PROVIDER:MODEL [flags]", `
Make one tiny call to a model with the settings a run would use, and print
the model, the latency, the tokens and the cost: the first thing to run
with a new key or server. A missing key, an unknown model, a refused key
or an unreachable server is reported in one line. Nothing is stored.`, stdout)
	o.register(fs)
	fs.BoolVar(&asJSON, "json", false, "machine-readable output")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	c, err := o.client(nil)
	if err != nil {
		return err
	}
	resp, err := c.Generate(ctx, llm.Request{Prompt: "Reply with the single word: pong", Purpose: "ping"})
	if err != nil {
		return err
	}
	rep := pingReport{Model: c.Name(), Server: c.BaseURL(), Settings: c.Settings(), Answer: strings.TrimSpace(resp.Text),
		LatencyMS: resp.Latency.Milliseconds(), Attempts: resp.Attempts, InputTokens: resp.Usage.InputTokens,
		OutputTokens: resp.Usage.OutputTokens, ReasoningTokens: resp.Usage.ReasoningTokens,
		Cost: resp.Usage.Cost, Priced: resp.Usage.Priced}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(stdout, "%s", rep.Model)
	if rep.Server != "" {
		fmt.Fprintf(stdout, " at %s", rep.Server)
	}
	fmt.Fprintf(stdout, ": %q\n", oneLine(rep.Answer, 60))
	fmt.Fprintf(stdout, "latency %v", resp.Latency.Round(time.Millisecond))
	if rep.Attempts > 1 {
		fmt.Fprintf(stdout, " (%d attempts)", rep.Attempts)
	}
	fmt.Fprintf(stdout, ", tokens %d in, %d out", rep.InputTokens, rep.OutputTokens)
	if rep.ReasoningTokens > 0 {
		fmt.Fprintf(stdout, " (%d reasoning)", rep.ReasoningTokens)
	}
	if rep.Priced {
		fmt.Fprintf(stdout, ", cost $%.6f\n", rep.Cost)
	} else {
		fmt.Fprintf(stdout, ", cost unknown (no price for this model: --prices)\n")
	}
	s := c.Settings()
	fmt.Fprintf(stdout, "settings: %s\n", describeSettings(s))
	return nil
}

func describeSettings(s llm.Settings) string {
	var parts []string
	if s.Temperature != nil {
		parts = append(parts, fmt.Sprintf("temperature %v", *s.Temperature))
	} else {
		parts = append(parts, "temperature: provider default")
	}
	if s.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("max tokens %d", s.MaxTokens))
	}
	if s.Reasoning != "" {
		parts = append(parts, "reasoning "+s.Reasoning)
	} else {
		parts = append(parts, "no reasoning setting sent")
	}
	return strings.Join(parts, ", ")
}
