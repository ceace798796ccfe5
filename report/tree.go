package report

import (
	"fmt"
	"strings"
)

// Tree is a lineage laid out for the template: the root at the top, each
// node's parents on the row below, an edge from a node to each parent
// labelled with the operator that made the node from it.
type Tree struct {
	W, H  int
	Label string // what the picture is, for a screen reader
	Nodes []TreeNode
	Edges []TreeEdge
}

// TreeNode is a box centred on X, Y.
type TreeNode struct {
	X, Y       px
	Label, Sub string
	Title      string
	Class      string
	Policy     string // its id ("" when not in the store)
	Href       string // its page, on a site (Frame.PolicyURL)
}

// TreeEdge joins a node (X1, Y1) to a parent (X2, Y2); its label sits at
// (LX, LY).
type TreeEdge struct {
	X1, Y1, X2, Y2 px
	Label          string
	LX, LY         px
}

// Tree geometry, in viewBox units (the page shows a tree at this size and
// scrolls it sideways when it is wider than the screen).
const (
	treeSlot  = 124 // width per leaf
	treeRow   = 78  // height per generation
	treeBoxW  = 108
	treeBoxH  = 36
	treeInset = 8
)

// layout places the lineage: leaves in order left to right, each other
// node above the middle of its parents.
func (l *Lineage) layout() *Tree {
	t := &Tree{Label: "lineage of the champion"}
	slots, depth := 0, 0
	var place func(n *Node, d int) px
	place = func(n *Node, d int) px {
		depth = max(depth, d)
		y := px(treeInset + treeBoxH/2 + d*treeRow)
		var x px
		if len(n.Parents) == 0 {
			x = px(slots*treeSlot + treeSlot/2)
			slots++
		} else {
			xs := make([]px, len(n.Parents))
			for i, p := range n.Parents {
				xs[i] = place(p, d+1)
			}
			x = (xs[0] + xs[len(xs)-1]) / 2
			for _, xp := range xs {
				t.Edges = append(t.Edges, TreeEdge{X1: x, Y1: y + treeBoxH/2, X2: xp, Y2: y + treeRow - treeBoxH/2,
					Label: n.Operator, LX: (x + xp) / 2, LY: y + treeRow/2 + 4})
			}
		}
		t.Nodes = append(t.Nodes, nodeBox(n, x, y, d == 0))
		return x
	}
	place(l.Root, 0)
	t.W = max(slots, 1) * treeSlot
	t.H = 2*treeInset + treeBoxH + depth*treeRow
	return t
}

// nodeBox is a node's box: its short id, and below it where it came from.
func nodeBox(n *Node, x, y px, root bool) TreeNode {
	b := TreeNode{X: x, Y: y, Label: short(n.Policy, 8)}
	var sub []string
	switch {
	case n.Missing:
		sub, b.Class = []string{"not in the store"}, "missing"
	case n.Repeat:
		sub, b.Class = []string{"shown above"}, "repeat"
	case n.Operator == "builtin":
		sub, b.Class = []string{n.Name}, "builtin"
	default:
		if n.Run != "" {
			sub = append(sub, fmt.Sprintf("%s it %d", n.Run, n.Iteration))
		} else if n.Name != "" {
			sub = append(sub, n.Name)
		}
		if len(n.Parents) == 0 {
			sub = append(sub, n.Operator) // a root of the lineage: how it began
		}
	}
	if root {
		b.Class = strings.TrimSpace(b.Class + " champion")
	}
	b.Sub = strings.Join(sub, " · ")
	if !n.Missing {
		b.Policy = n.Policy
	}
	b.Title = n.Policy
	if n.Operator != "" {
		b.Title += "\n" + n.Operator
		if n.Planner != "" {
			b.Title += " by " + n.Planner
		}
	}
	if n.Run != "" {
		b.Title += fmt.Sprintf("\n%s, iteration %d", n.Run, n.Iteration)
	}
	if n.Name != "" {
		b.Title += "\n" + n.Name
	}
	return b
}

// link sets the page of each node in the store, on a site.
func (t *Tree) link(f *Frame) {
	for i := range t.Nodes {
		t.Nodes[i].Href = f.policyURL(t.Nodes[i].Policy)
	}
}

// short is the first n characters of an id.
func short(id string, n int) string { return id[:min(n, len(id))] }
