package main

import (
	"context"
	"encoding/json"
	"errors"
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

// pingError is a failed ping as --json writes it.
type pingError struct {
	Model string `json:"model,omitempty"`
	Error struct {
		Message string `json:"message"`
		// Kind is the failure's kind (llm.APIError's: "no API key",
		// "rate limited"…), "usage" for wrong flags; with Temporary,
		// whether trying later may help.
		Kind      string `json:"kind"`
		Temporary bool   `json:"temporary"`
		Status    int    `json:"status,omitempty"`
		Attempts  int    `json:"attempts,omitempty"`
		Detail    string `json:"detail,omitempty"`
		Hint      string `json:"hint,omitempty"`
	} `json:"error"`
}

// writePingError writes err to w as JSON, and returns it (the exit code
// and the line on stderr stay those of the error).
func writePingError(w io.Writer, model string, err error) error {
	var pe pingError
	pe.Model, pe.Error.Message, pe.Error.Kind = model, err.Error(), "failure"
	var ae *llm.APIError
	var ue *usageError
	switch {
	case errors.As(err, &ae):
		pe.Error.Kind, pe.Error.Temporary, pe.Error.Status = ae.Kind.Error(), ae.Temporary(), ae.Status
		pe.Error.Attempts, pe.Error.Detail, pe.Error.Hint = ae.Attempts, ae.Detail, ae.Hint
	case errors.As(err, &ue):
		pe.Error.Kind = "usage"
	case errors.Is(err, context.Canceled):
		pe.Error.Kind = "interrupted"
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(pe)
	return err
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
	c, err := o.client(nil, nil)
	if err != nil {
		if asJSON {
			return writePingError(stdout, o.spec, err)
		}
		return err
	}
	resp, err := c.Generate(ctx, llm.Request{Prompt: "Reply with the single word: pong", Purpose: "ping"})
	if err != nil {
		if asJSON {
			return writePingError(stdout, c.Name(), err)
		}
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
