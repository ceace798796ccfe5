package report

import (
	"fmt"
	"time"

	"policyevolve/internal/plural"
	"policyevolve/internal/textdiff"
	"policyevolve/store"
)

// SourceDiff is how one policy's source differs from another's.
type SourceDiff struct {
	Store     string
	Generated time.Time
	A, B      store.Policy
}

// LoadDiff reads the two policies unique id prefixes name, in one
// read-only transaction.
func LoadDiff(s *store.Store, a, b string) (*SourceDiff, error) {
	d := &SourceDiff{Store: s.Path(), Generated: time.Now()}
	err := s.View(func(tx *store.Tx) error {
		var err error
		d.A, d.B, err = findPair(tx, a, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// findPolicy reads the policy a unique id prefix names.
func findPolicy(tx *store.Tx, prefix string) (*store.Policy, error) {
	id, err := tx.ResolvePolicy(prefix)
	if err != nil {
		return nil, fmt.Errorf("policy %q: %w", prefix, err)
	}
	return tx.Policy(id)
}

// findPair reads the two policies unique id prefixes a and b name.
func findPair(tx *store.Tx, a, b string) (pa, pb store.Policy, err error) {
	p, err := findPolicy(tx, a)
	if err != nil {
		return pa, pb, err
	}
	q, err := findPolicy(tx, b)
	if err != nil {
		return pa, pb, err
	}
	return *p, *q, nil
}

type diffPage struct {
	A, B   policyRef
	Lines  []diffLine
	Same   bool
	Versus string
}

type policyRef struct {
	ID, Short, Name, Href, Origin string
}

type diffLine struct {
	Class, Mark, Text string
}

func refOf(p store.Policy, f *Frame) policyRef {
	return policyRef{ID: p.ID, Short: short(p.ID, 12), Name: p.Name, Href: f.policyURL(p.ID), Origin: p.Origin.Describe(12)}
}

func (d *SourceDiff) page(f *Frame) *page {
	p := &page{Title: fmt.Sprintf("diff %s %s", short(d.A.ID, 12), short(d.B.ID, 12)), Generated: d.Generated.Format(time.DateTime), Store: d.Store}
	v := &diffPage{A: refOf(d.A, f), B: refOf(d.B, f), Versus: pairURL(f.VersusPath, d.A.ID, d.B.ID)}
	p.Diff = v
	lines, changed := textdiff.Context(textdiff.Lines(d.A.Source, d.B.Source), textdiff.DefaultContext)
	v.Same = !changed
	for _, l := range lines {
		dl := diffLine{Mark: string(l.Op), Text: l.Text}
		switch l.Op {
		case '+':
			dl.Class = "add"
		case '-':
			dl.Class = "del"
		case '@':
			dl.Class, dl.Mark, dl.Text = "skip", "…", plural.N(l.Skipped, "unchanged line")
		default:
			dl.Class, dl.Mark = "same", " "
		}
		v.Lines = append(v.Lines, dl)
	}
	return p
}
