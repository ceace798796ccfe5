package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"policyevolve/pool"
	"policyevolve/store"
)

// PoolDetail is one pool: its members with their Elo and self-play
// metrics, sorted by a column.
type PoolDetail struct {
	Store     string
	Generated time.Time
	Name      string
	// Env is the environment of a global pool (zero for a local pool);
	// members' metrics are their newest evaluation on it (on any
	// environment for a local pool).
	Env store.EnvConfig
	// Objective is a global pool's: the one whose games its ratings count
	// (elo for the untagged pools).
	Objective string
	Members   []Member
	Sort      string
}

// PoolSorts are the columns a pool can be sorted by. Efficiency is the
// welfare objective's score (self-play efficiency).
var PoolSorts = []string{"elo", "efficiency", "equality", "sustainability", "peace", "games"}

// DefaultPoolSort is the column a pool is sorted by unless asked: its
// objective's score — Elo for an elo pool (and the untagged pools, which
// are elo's), self-play efficiency for a welfare or robust pool — as
// pool ls and the report sort it.
func DefaultPoolSort(objective string) string {
	if objective == "" || objective == "elo" {
		return "elo"
	}
	return "efficiency"
}

// LoadPool reads a pool in one read-only transaction and sorts its
// members by sortBy (one of PoolSorts, best first; "" for the pool's
// objective's score, DefaultPoolSort). A pool without members is an
// error wrapping ErrNotFound.
func LoadPool(s *store.Store, name, sortBy string) (*PoolDetail, error) {
	pk, _ := store.ParseGlobalPool(name)
	if sortBy == "" {
		sortBy = DefaultPoolSort(pk.Objective)
	}
	if !slices.Contains(PoolSorts, sortBy) {
		return nil, fmt.Errorf("%w: sort by %q: the columns are %s", ErrBadQuery, sortBy, strings.Join(PoolSorts, ", "))
	}
	d := &PoolDetail{Store: s.Path(), Generated: time.Now(), Name: name, Sort: sortBy}
	d.Env, d.Objective = pk.Env, pk.Objective
	err := s.View(func(tx *store.Tx) error {
		ms, err := tx.Members(name)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			return fmt.Errorf("%w: no pool %q in the store", ErrNotFound, name)
		}
		for _, sm := range ms {
			p, err := tx.Policy(sm.Policy)
			if err != nil {
				return fmt.Errorf("member %.12s: %w", sm.Policy, err)
			}
			m := Member{Policy: *p, Reason: sm.Reason}
			if err := m.rate(tx, name); err != nil {
				return err
			}
			evs, err := tx.EvaluationsOf(sm.Policy)
			if err != nil {
				return err
			}
			if (d.Env != store.EnvConfig{}) {
				// Every seed it was played on here: pool ls's figure.
				if pooled, ok := store.PoolEvaluations(evs, d.Env); ok {
					m.Evaluated, m.Metrics, m.Failed, m.Seeds = true, pooled.Mean, pooled.Failed, pooled.Seeds
				}
			} else {
				var latest *store.Evaluation
				for k := range evs {
					if latest == nil || evs[k].Created.After(latest.Created) {
						latest = &evs[k]
					}
				}
				if latest != nil {
					m.Evaluated, m.Metrics, m.Failed, m.Seeds = true, latest.Mean, latest.Status != store.StatusOK, latest.Seeds
				}
			}
			d.Members = append(d.Members, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	key := func(m Member) (float64, bool) {
		switch sortBy {
		case "elo":
			return m.Elo, m.Rated
		case "games":
			return float64(m.Games), m.Rated
		}
		return metricOf(m.Metrics, slices.Index(metricNames, sortBy)), m.Evaluated
	}
	slices.SortStableFunc(d.Members, func(a, b Member) int {
		ka, oka := key(a)
		kb, okb := key(b)
		if oka != okb { // members without the value last
			if oka {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(kb, ka); c != 0 {
			return c
		}
		return strings.Compare(a.Policy.ID, b.Policy.ID)
	})
	return d, nil
}

// ParseEnvKey reads an environment's key, GAME/MAP/AGENTS/STEPS (as
// store.EnvConfig.Key writes it).
func ParseEnvKey(key string) (store.EnvConfig, bool) {
	k, ok := store.ParseGlobalPool("global/" + key)
	return k.Env, ok && k.Tag == "" && k.Objective == store.UntaggedObjective
}

// poolObjectiveNote says what a global pool's Elo counts.
func poolObjectiveNote(objective string) string {
	return "The pool's objective is " + objective + ": its Elo counts " + pool.Objective(objective).GamesCounted() + " (docs/objectives.md)."
}

type poolPage struct {
	Name    string
	Note    string
	Columns []sortColumn
	Rows    []poolRow
}

type sortColumn struct {
	Label, Href string
	Current     bool
}

func (d *PoolDetail) page(f *Frame) *page {
	p := &page{Title: "pool " + d.Name, Generated: d.Generated.Format(time.DateTime), Store: d.Store}
	v := &poolPage{Name: d.Name}
	p.Pool = v
	if d.Env == (store.EnvConfig{}) {
		v.Note = "A local pool: one iteration's candidates. Metrics: each member's newest self-play evaluation."
	} else {
		v.Note = "Metrics: each member's newest self-play evaluation on " + d.Env.Key() + ". Efficiency is the welfare objective's score. " +
			poolObjectiveNote(d.Objective)
	}
	for _, c := range PoolSorts {
		col := sortColumn{Label: c, Current: c == d.Sort}
		switch c {
		case "elo":
			col.Label = "Elo"
		case "games":
			col.Label = "w/d/l"
		}
		if u := f.poolURL(d.Name); u != "" {
			col.Href = u + "?sort=" + c
		}
		v.Columns = append(v.Columns, col)
	}
	for _, m := range d.Members {
		v.Rows = append(v.Rows, memberRow(m, f))
	}
	return p
}

// memberRow is a pool member as a row of a pool's table.
func memberRow(m Member, f *Frame) poolRow {
	row := poolRow{ID: m.Policy.ID, Short: short(m.Policy.ID, 12), Name: m.Policy.Name, Href: f.policyURL(m.Policy.ID), Elo: "–", Record: "–",
		Eff: "–", Equality: "–", Sustainability: "–", Peace: "–",
		Origin: m.Policy.Origin.Describe(8), Reason: m.Reason, Champion: m.Champion}
	if m.Rated {
		row.Elo, row.Record = fmt.Sprintf("%.1f", m.Elo), fmt.Sprintf("%d/%d/%d", m.Wins, m.Draws, m.Losses)
	}
	if m.Evaluated {
		row.Eff, row.Equality = fmt.Sprintf("%.3f", m.Metrics.Efficiency), fmt.Sprintf("%.3f", m.Metrics.Equality)
		if len(m.Seeds) > 0 {
			row.Eff += " on seeds " + seedList(m.Seeds)
		}
		row.Sustainability, row.Peace = fmt.Sprintf("%.1f", m.Metrics.Sustainability), fmt.Sprintf("%.2f", m.Metrics.Peace)
		if m.Failed {
			row.Eff += " (failed)"
		}
	}
	return row
}

// PoolList is every pool of a store: the global pools, then each run's
// local pools.
type PoolList struct {
	Store     string
	Generated time.Time
	Global    []PoolSize
	Local     []PoolSize
}

// PoolSize is a pool's name and how many members it has.
type PoolSize struct {
	Name    string
	Members int
}

// LoadPools lists the pools in one read-only transaction.
func LoadPools(s *store.Store) (*PoolList, error) {
	l := &PoolList{Store: s.Path(), Generated: time.Now()}
	err := s.View(func(tx *store.Tx) error {
		names, err := tx.Pools()
		if err != nil {
			return err
		}
		for _, n := range names {
			ms, err := tx.Members(n)
			if err != nil {
				return err
			}
			ps := PoolSize{Name: n, Members: len(ms)}
			if strings.HasPrefix(n, "global/") {
				l.Global = append(l.Global, ps)
			} else {
				l.Local = append(l.Local, ps)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

type poolsPage struct {
	Global []poolLink
	Local  []poolLink
}

type poolLink struct {
	Name, Href string
	Members    int
}

func (l *PoolList) page(f *Frame) *page {
	p := &page{Title: "policyevolve: pools", Generated: l.Generated.Format(time.DateTime), Store: l.Store, Pools: &poolsPage{}}
	for _, ps := range l.Global {
		p.Pools.Global = append(p.Pools.Global, poolLink{Name: ps.Name, Href: f.poolURL(ps.Name), Members: ps.Members})
	}
	for _, ps := range l.Local {
		p.Pools.Local = append(p.Pools.Local, poolLink{Name: ps.Name, Href: f.poolURL(ps.Name), Members: ps.Members})
	}
	return p
}
