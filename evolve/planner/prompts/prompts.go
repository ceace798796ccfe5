package prompts

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"

	"policyevolve/critic"
	"policyevolve/internal/infile"
)

//go:embed templates/*.tmpl
var embedded embed.FS

// Names are the templates a Set holds; an override folder may replace
// any of them and may hold no other .tmpl file.
var Names = []string{"system.tmpl", "init.tmpl", "improve.tmpl", "crossover.tmpl", "fix.tmpl", "instructions.tmpl",
	"guidance.tmpl", "reflect.tmpl", "react.tmpl"}

// Set is a parsed set of templates. It is safe for concurrent use.
type Set struct {
	t *template.Template
}

var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"sub": func(a, b int) int { return a - b },
	// num prints a float without needless decimals: 50, 0.5.
	"num": func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) },
	"pct": func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) + "%" },
	"action": func(a int) string {
		names := []string{"ssd.Forward", "ssd.Backward", "ssd.StepLeft", "ssd.StepRight",
			"ssd.RotateLeft", "ssd.RotateRight", "ssd.Beam", "ssd.Stand", "ssd.Clean"}
		return names[a]
	},
}

// Load parses the embedded templates, each replaced by the file of the
// same name in dir when dir is not empty.
// maxTemplateFile bounds a template file of --prompts (the embedded
// ones are a few KiB).
const maxTemplateFile = 1 << 20

func Load(dir string) (*Set, error) {
	t := template.New("prompts").Funcs(funcs).Option("missingkey=error")
	if dir != "" {
		// Stat first: reading a named pipe as a directory would block.
		if st, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("prompts: %w", err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("prompts: %s is not a directory", dir)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("prompts: %w", err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmpl") && !known(e.Name()) {
				return nil, fmt.Errorf("prompts %s: unknown template %s (want %s)", dir, e.Name(), strings.Join(Names, ", "))
			}
		}
	}
	for _, name := range Names {
		text, err := embedded.ReadFile("templates/" + name)
		if err != nil {
			return nil, err
		}
		from := "embedded"
		if dir != "" {
			if over, err := infile.Read(filepath.Join(dir, name), maxTemplateFile); err == nil {
				text, from = over, filepath.Join(dir, name)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("prompts: %w", err)
			}
		}
		if _, err := t.New(name).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("prompts: %s template %s: %w", from, name, err)
		}
	}
	return &Set{t: t}, nil
}

func known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

func (s *Set) render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := s.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// Policy is a policy as the prompts show it.
type Policy struct {
	Name      string
	Source    string
	Iteration int
	// HasEval: the scores below come from a self-play evaluation.
	HasEval                                     bool
	Reward                                      float64 // mean return per agent
	Efficiency, Equality, Sustainability, Peace float64
	Failed                                      string // why some seeds failed, when they did
	Elo                                         float64
	Rated                                       bool
	Dense                                       bool // show the social metrics (set by the renderer)
}

// InitData is the iteration-0 prompt's data.
type InitData struct {
	Game                  Game
	Iteration, Iterations int
}

// ImproveData is the improve prompt's data.
type ImproveData struct {
	Game                  Game
	Iteration, Iterations int // Iterations 0: not in a chain
	Dense                 bool
	Parent                Policy
	History               []Policy // the chain's iterations, oldest first
	Inspirations          []Policy // up to three pool members
	Reflections           []critic.Reflection
	Excerpt               string // a raw trajectory excerpt (raw feedback)
}

// CrossoverData is the crossover prompt's data.
type CrossoverData struct {
	Game  Game
	Dense bool
	A, B  Policy
}

// FixData is the fix paragraph's data.
type FixData struct {
	Game                 Game
	Kind                 string // missing, invalid, nondeterministic, slow, runtime
	Summary              string // one line
	Error                string // the full message (compiler output…), may be empty
	Attempt, MaxAttempts int
}

// System renders the system message for a game.
func (s *Set) System(g Game) (string, error) { return s.render("system.tmpl", g) }

// GuidanceData is the data of the strategy-guidance section a GEPA prompt
// candidate appends to the system message.
type GuidanceData struct {
	Game     Game
	Guidance string
}

// Guidance renders the strategy-guidance section, to append to the
// system message.
func (s *Set) Guidance(d GuidanceData) (string, error) { return s.render("guidance.tmpl", d) }

// SeedScore is one seed of a self-play evaluation, as a reflection sees
// it.
type SeedScore struct {
	Seed                                        uint64
	Reward                                      float64 // mean return per agent
	Efficiency, Equality, Sustainability, Peace float64
	Failed                                      string // why the seed failed, when it did
}

// ReflectData is the GEPA reflection prompt's data: a candidate's
// guidance, the policy it made the planner write (Policy.Source empty
// when it wrote none, and Problem says why), and its scores.
type ReflectData struct {
	Game     Game
	Guidance string
	Policy   Policy
	Problem  string
	Seeds    []SeedScore
	Mean     float64 // mean reward per agent over the seeds
	// Dense shows the social metrics; Reflections the critic's findings.
	Dense       bool
	Reflections []critic.Reflection
}

// Reflect renders the GEPA reflection prompt.
func (s *Set) Reflect(d ReflectData) (string, error) { return s.render("reflect.tmpl", d) }

// Init renders the iteration-0 prompt.
func (s *Set) Init(d InitData) (string, error) { return s.render("init.tmpl", d) }

// Improve renders the improve prompt.
func (s *Set) Improve(d ImproveData) (string, error) {
	d.Parent.Dense = d.Dense
	d.History = withDense(d.History, d.Dense)
	d.Inspirations = withDense(d.Inspirations, d.Dense)
	return s.render("improve.tmpl", d)
}

// Crossover renders the crossover prompt.
func (s *Set) Crossover(d CrossoverData) (string, error) {
	d.A.Dense, d.B.Dense = d.Dense, d.Dense
	return s.render("crossover.tmpl", d)
}

// Fix renders the paragraph appended to a failed attempt's user prompt.
func (s *Set) Fix(d FixData) (string, error) { return s.render("fix.tmpl", d) }

// ReactData is the end of a ReAct turn's prompt: the turn's number (from
// 1) and how many drafts the model may still test.
type ReactData struct {
	Turn, Left int
}

// React renders the end of a ReAct turn's prompt.
func (s *Set) React(d ReactData) (string, error) { return s.render("react.tmpl", d) }

func withDense(ps []Policy, dense bool) []Policy {
	out := make([]Policy, len(ps))
	for i, p := range ps {
		p.Dense = dense
		out[i] = p
	}
	return out
}
