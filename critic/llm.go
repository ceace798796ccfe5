package critic

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"policyevolve/envs/ssd"
)

// Critic turns diagnostics (and the policy's source) into reflections.
// The analytic critic and the LLM critic implement it.
type Critic interface {
	// Critique returns the reflections on d. It fails only when ctx is
	// done; an LLM that fails or answers nonsense is replaced by the
	// analytic critic, and the Report says so.
	Critique(ctx context.Context, d *Diagnostics, source string) (*Report, error)
}

// Report is a critique: ranked reflections and who wrote them.
type Report struct {
	Reflections []Reflection `json:"reflections"`
	// By is "analytic", or "llm:" and the model's name.
	By string `json:"by"`
	// Fallback says why the LLM critic's answer was not used ("" when it
	// was, or when the analytic critic was asked for).
	Fallback string `json:"fallback,omitempty"`
}

var (
	_ Critic = Analytic{}
	_ Critic = (*LLM)(nil)
)

// Critique implements Critic; it never fails.
func (a Analytic) Critique(_ context.Context, d *Diagnostics, _ string) (*Report, error) {
	return &Report{Reflections: a.Reflect(d), By: "analytic"}, nil
}

// Model is the language model the LLM critic asks: a system message and a
// user message in, the answer's text out. The llm package's client is
// adapted to it where the critic is wired up; tests use fakes.
type Model interface {
	Generate(ctx context.Context, system, user string) (string, error)
}

// LLM is the LLM critic: it shows the model the diagnostics table and the
// policy's source and reads back reflections of the same shape as the
// analytic critic's. When the call fails or the answer holds no usable
// reflections, it returns the analytic critic's instead, with the reason
// in Report.Fallback.
type LLM struct {
	Model Model
	// Name identifies the model in Report.By ("provider:model").
	Name string
	// Max is the number of reflections asked for and kept (0: DefaultMax).
	Max int
}

// Critique implements Critic.
func (c *LLM) Critique(ctx context.Context, d *Diagnostics, source string) (*Report, error) {
	max := c.Max
	if max <= 0 {
		max = DefaultMax
	}
	fallback := func(why string) (*Report, error) {
		return &Report{Reflections: Analytic{Max: max}.Reflect(d), By: "analytic", Fallback: why}, nil
	}
	if c.Model == nil {
		return fallback("no language model is configured")
	}
	system, user, err := Prompt(d, source, max)
	if err != nil {
		return fallback(err.Error())
	}
	answer, err := c.Model.Generate(ctx, system, user)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm critic: %w", ctx.Err())
		}
		return fallback("the LLM call failed: " + err.Error())
	}
	refl, err := ParseReflections(answer, max)
	if err != nil {
		return fallback("the LLM's answer was unusable: " + err.Error())
	}
	by := "llm"
	if c.Name != "" {
		by += ":" + c.Name
	}
	return &Report{Reflections: refl, By: by}, nil
}

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.New("").Funcs(template.FuncMap{"num": num}).ParseFS(promptFS, "prompts/*.tmpl"))

// promptData is what the templates see; every number comes from the
// diagnostics and the game's parameters.
type promptData struct {
	Title                   string
	Cleanup                 bool
	P                       ssd.Params
	D                       *Diagnostics
	Actions                 string
	BeamAction, CleanAction int
	Table, Source           string
	Max                     int
}

// Prompt renders the LLM critic's system and user messages for d, the
// policy's source and the number of reflections to ask for.
func Prompt(d *Diagnostics, source string, max int) (system, user string, err error) {
	game, err := ssd.ParseGame(d.Game)
	if err != nil {
		return "", "", fmt.Errorf("critic prompt: %w", err)
	}
	var table bytes.Buffer
	if err := d.WriteTable(&table); err != nil {
		return "", "", fmt.Errorf("critic prompt: %w", err)
	}
	actions := make([]string, game.NumActions())
	for a := range actions {
		actions[a] = fmt.Sprintf("%d %s", a, ssd.ActionName(a))
	}
	data := promptData{
		Title:       strings.ToUpper(d.Game[:1]) + d.Game[1:],
		Cleanup:     game == ssd.Cleanup,
		P:           d.Params,
		D:           d,
		Actions:     strings.Join(actions, ", "),
		BeamAction:  ssd.Beam,
		CleanAction: ssd.Clean,
		Table:       table.String(),
		Source:      strings.TrimRight(source, "\n"),
		Max:         max,
	}
	var sys, usr bytes.Buffer
	if err := prompts.ExecuteTemplate(&sys, "system.tmpl", data); err != nil {
		return "", "", fmt.Errorf("critic prompt: %w", err)
	}
	if err := prompts.ExecuteTemplate(&usr, "user.tmpl", data); err != nil {
		return "", "", fmt.Errorf("critic prompt: %w", err)
	}
	return sys.String(), usr.String(), nil
}
