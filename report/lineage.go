package report

import (
	"errors"

	"policyevolve/store"
)

// Lineage is a policy's ancestry as a tree: the policy at the root, each
// node's parents below it.
type Lineage struct {
	Root *Node
	// Nodes is how many nodes the tree shows; Hidden how many parents it
	// leaves out (past maxLineageNodes), each with its own ancestry.
	Nodes  int
	Hidden int
}

// Node is one policy of a lineage.
type Node struct {
	Policy    string
	Name      string
	Operator  string // how it was made (store.Origin.Operation): init, improve, refine, crossover, fix, tune, import, builtin
	Planner   string
	Run       string
	Iteration int
	// Missing: the policy is not in the store. Repeat: it appears higher
	// in the tree already (two lines of the lineage meet); its own
	// parents are shown there.
	Missing, Repeat bool
	Parents         []*Node
}

// maxLineageNodes bounds the tree: a long population run's champion can
// have hundreds of ancestors; the nearest are the ones worth a look.
const maxLineageNodes = 150

// lineage walks the ancestry of id breadth first, nearest ancestors
// first, up to max nodes.
func lineage(tx *store.Tx, id string, max int) (*Lineage, error) {
	l := &Lineage{}
	seen := map[string]bool{}
	type todo struct {
		n       *Node
		parents []string
	}
	var queue []todo
	visit := func(id string) (*Node, error) {
		n := &Node{Policy: id}
		l.Nodes++
		if seen[id] {
			n.Repeat = true
		}
		seen[id] = true
		p, err := tx.Policy(id)
		if errors.Is(err, store.ErrNotFound) {
			n.Missing = true
			return n, nil
		}
		if err != nil {
			return nil, err
		}
		o := p.Origin
		n.Name, n.Operator, n.Planner, n.Run, n.Iteration = p.Name, o.Operation(), o.Planner, o.Run, o.Iteration
		if !n.Repeat {
			queue = append(queue, todo{n, o.Parents})
		}
		return n, nil
	}
	root, err := visit(id)
	if err != nil {
		return nil, err
	}
	l.Root = root
	for len(queue) > 0 {
		n, parents := queue[0].n, queue[0].parents
		queue = queue[1:]
		for _, parent := range parents {
			if l.Nodes >= max {
				l.Hidden++
				continue
			}
			pn, err := visit(parent)
			if err != nil {
				return nil, err
			}
			n.Parents = append(n.Parents, pn)
		}
	}
	return l, nil
}
