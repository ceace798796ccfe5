package evolve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"sync"

	"policyevolve/sandbox"
	"policyevolve/store"
)

// NormalizedID identifies a policy source up to layout, comments and the
// names of its local variables and parameters: two sources with the same
// NormalizedID are the same policy written twice. A source that does not
// parse is identified by its text.
func NormalizedID(src []byte) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "policy.go", src, 0) // no comments
	if err != nil {
		return sandbox.SourceID(src)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			fn.Doc = nil
			renameLocals(fn.Type, fn.Body, fn.Pos(), fn.End())
		case *ast.GenDecl:
			fn.Doc = nil
		}
		return true
	})
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return sandbox.SourceID(src)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// renameLocals gives every object declared between from and to (the
// function's parameters, results and locals, closures' included) a name
// of its order of appearance.
func renameLocals(typ *ast.FuncType, body *ast.BlockStmt, from, to token.Pos) {
	names := map[*ast.Object]string{}
	visit := func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || id.Obj == nil || id.Name == "_" {
			return true
		}
		decl, ok := id.Obj.Decl.(ast.Node)
		if !ok || decl.Pos() < from || decl.Pos() >= to {
			return true // declared outside: a package-level name
		}
		name, seen := names[id.Obj]
		if !seen {
			name = fmt.Sprintf("v%d", len(names))
			names[id.Obj] = name
		}
		id.Name = name
		return true
	}
	ast.Inspect(typ, visit)
	if body != nil {
		ast.Inspect(body, visit)
	}
}

// dedupe knows the normalised ids of the store's policies, to tell a
// planner that its proposal was written before.
type dedupe struct {
	mu   sync.Mutex
	seen map[string]dedupeEntry // NormalizedID → first policy with it
}

type dedupeEntry struct {
	policy string
	origin store.Origin
}

// loadDedupe indexes the source policies a run's candidates must not
// repeat: those the run wrote itself and the members of its global pool.
// A policy another run wrote is not a duplicate: runs compared side by
// side (compare) may write the same policy independently, and each must
// be able to count it.
func loadDedupe(s *store.Store, run, globalPool string) (*dedupe, error) {
	d := &dedupe{seen: map[string]dedupeEntry{}}
	var ps []store.Policy
	inPool := map[string]bool{}
	err := s.View(func(tx *store.Tx) (err error) {
		if ps, err = tx.Policies(); err != nil {
			return err
		}
		members, err := tx.Members(globalPool)
		for _, m := range members {
			inPool[m.Policy] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// Normalising parses each source (milliseconds each, seconds for a
	// long run's thousands): outside the transaction, which would hold the
	// store's lock meanwhile.
	for _, p := range ps {
		if p.Builtin == "" && (p.Origin.Run == run && run != "" || inPool[p.ID]) {
			d.add(&p)
		}
	}
	return d, nil
}

func (d *dedupe) add(p *store.Policy) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := NormalizedID([]byte(p.Source))
	if _, ok := d.seen[id]; !ok {
		d.seen[id] = dedupeEntry{policy: p.ID, origin: p.Origin}
	}
}

// screen refuses a source already written by someone other than the
// candidate itself (a resumed candidate proposing again what it proposed
// before the interruption is not a duplicate of itself).
func (d *dedupe) screen(self store.Origin) func(context.Context, []byte) error {
	return func(_ context.Context, src []byte) error {
		id := NormalizedID(src)
		d.mu.Lock()
		e, ok := d.seen[id]
		d.mu.Unlock()
		if !ok || (e.origin.Run == self.Run && e.origin.Run != "" && e.origin.Iteration == self.Iteration &&
			e.origin.Sample == self.Sample && e.origin.Operator == self.Operator) {
			return nil
		}
		return fmt.Errorf("%w: it is the same as policy %.12s already in the store (once formatting, comments and the names of locals are set aside)",
			ErrDuplicate, e.policy)
	}
}
