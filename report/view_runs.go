package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"policyevolve/evolve"
	"policyevolve/internal/plural"
	"policyevolve/store"
)

// RunList is every run of a store, newest first: the live view's front
// page.
type RunList struct {
	Store     string
	Generated time.Time
	Runs      []RunRow
}

// RunRow is one run as the list shows it.
type RunRow struct {
	Record  store.Run
	Config  evolve.JobConfig // with defaults applied; zero when it does not read
	Planned int              // iterations in all
	// Objective is what the run selects for: its configuration's (elo
	// for a run stored before objectives, which ran under it); "" for a
	// run that is not an evolution job (a Q-learner's training).
	Objective string
}

// LoadRuns reads every run in one read-only transaction.
func LoadRuns(s *store.Store) (*RunList, error) {
	l := &RunList{Store: s.Path(), Generated: time.Now()}
	var runs []store.Run
	if err := s.View(func(tx *store.Tx) (err error) {
		if runs, err = tx.Runs(); err != nil {
			return err
		}
		return tx.MarkInterrupted(runs, store.Self()) // a running run whose process is gone
	}); err != nil {
		return nil, err
	}
	for _, r := range slices.Backward(runs) {
		row := RunRow{Record: r}
		if json.Unmarshal(r.Config, &row.Config) == nil {
			row.Config = row.Config.WithDefaults()
			switch r.Mode {
			case evolve.ModePopulation, evolve.ModeChain, evolve.ModeGEPA:
				row.Objective = string(row.Config.Objective)
			}
			row.Planned = row.Config.TotalIterations()
		}
		l.Runs = append(l.Runs, row)
	}
	return l, nil
}

type runsPage struct {
	Rows []runRowPage
}

type runRowPage struct {
	ID, Href                string
	Mode, Env, Objective    string
	Comparison, CompareHref string
	Status                  string
	Running                 bool
	Progress                string
	Spent                   string
	Champion, ChampionShort string
	ChampionHref            string
	Started, Updated        string
}

func (l *RunList) page(f *Frame) *page {
	p := &page{Title: "policyevolve: runs", Generated: l.Generated.Format(time.DateTime), Store: l.Store, Runs: &runsPage{}}
	for _, r := range l.Runs {
		rec, cfg := r.Record, r.Config
		row := runRowPage{ID: rec.ID, Href: f.runURL(rec.ID), Mode: rec.Mode, Objective: "–", Status: rec.Status,
			Running: rec.Status == store.StatusRunning, Champion: rec.Champion, ChampionShort: short(rec.Champion, 12),
			ChampionHref: f.policyURL(rec.Champion), Started: rec.Started.Local().Format(time.DateTime),
			Updated: rec.Updated.Local().Format(time.DateTime)}
		if cfg.Game != "" {
			row.Env = fmt.Sprintf("%s/%s/%d/%d", cfg.Game, cfg.MapName(), cfg.Agents, cfg.Steps)
		}
		if r.Objective != "" {
			row.Objective = r.Objective
		}
		if cid := comparisonOf(cfg.PoolTag); cid != "" {
			row.Comparison, row.CompareHref = cid, f.runURL(cid)
		}
		if rec.StopReason != "" {
			row.Status += " (" + rec.StopReason + ")"
		}
		row.Progress = fmt.Sprintf("%d of %d", rec.Iterations, r.Planned)
		u := rec.Usage
		row.Spent = fmt.Sprintf("%s, %s, %s, %s", plural.N(u.Proposals, "planner call"), plural.N(u.LLMCalls, "LLM call"), u.CostWords(), plural.N(u.Episodes, "episode"))
		if row.ChampionShort == "" {
			row.ChampionShort = "–"
		}
		p.Runs.Rows = append(p.Runs.Rows, row)
	}
	return p
}
