package arena

import (
	"context"
	"errors"
	"fmt"

	"policyevolve/envs/ssd"
	"policyevolve/evolve/tune"
	"policyevolve/store"
)

// The constant tuner's names in a tuned policy's store.Origin: as its
// planner, and as the operator that made it.
const (
	TunerName = "tune"
	OpTune    = "tune"
)

// TuneReport is what Tune did.
type TuneReport struct {
	*tune.Result
	Parent string
	// Child is the tuned policy as stored (its first origin kept if it
	// was stored before); nil when the tuned source was not kept.
	Child *store.Policy
	New   bool
	// Evaluation is the child's self-play evaluation on EvalSeeds.
	Evaluation *store.Evaluation
}

// Tune tunes the numeric constants of the stored policy id (package
// tune) on the arena's environment, through the arena's sandbox. Unless
// cfg says otherwise the held-out seeds are the arena's evaluation seeds.
// When the tuned source also wins on them, it is admitted (the sandbox's
// check), stored as a child of id (operator tune) and evaluated.
func (a *Arena) Tune(ctx context.Context, id string, cfg tune.Config) (*TuneReport, error) {
	a.defaults()
	if a.Sandbox == nil {
		return nil, errors.New("tune needs a sandbox")
	}
	var p *store.Policy
	if err := a.Store.View(func(tx *store.Tx) (err error) {
		p, err = tx.Policy(id)
		return err
	}); err != nil {
		return nil, err
	}
	if p.Builtin != "" {
		return nil, fmt.Errorf("policy %.12s is the built-in %s, not source: nothing to tune", id, p.Name)
	}
	cfg.Sandbox, cfg.Map = a.Sandbox, a.Env.Map
	cfg.Agents, cfg.Steps = a.Env.Config.Agents, a.Env.Config.MaxSteps
	if len(cfg.HeldOutSeeds) == 0 {
		cfg.HeldOutSeeds = a.EvalSeeds
	}
	res, err := tune.Run(ctx, []byte(p.Source), cfg)
	if err != nil {
		return nil, err
	}
	rep := &TuneReport{Result: res, Parent: id}
	if !res.Kept {
		return rep, nil
	}
	g, err := ssd.ParseGame(a.Env.Config.Game)
	if err != nil {
		return nil, err
	}
	if _, err := a.Sandbox.Check(ctx, res.Tuned, g); err != nil {
		return rep, fmt.Errorf("the tuned source fails admission: %w", err)
	}
	child := &store.Policy{Source: string(res.Tuned), Name: tunedName(p.Name),
		Origin: store.Origin{Planner: TunerName, Operator: OpTune, Parents: []string{id}}}
	if err := a.Store.Update(func(tx *store.Tx) (err error) {
		rep.New, err = tx.PutPolicy(child)
		if err == nil && !rep.New {
			child, err = tx.Policy(child.ID)
		}
		return err
	}); err != nil {
		return rep, err
	}
	rep.Child = child
	rep.Evaluation, err = a.Evaluate(ctx, child.ID)
	return rep, err
}

func tunedName(parent string) string {
	if parent == "" {
		return ""
	}
	return parent + " (tuned)"
}
