package sandbox

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"policyevolve/envs"
)

// typeEnv is the process-wide type-checking environment: an importer for
// the standard library (from the Go toolchain's export data, or failing
// that its sources) and the ssd package type-checked from the embedded
// source. Without a toolchain there is no standard-library type
// information; validation then checks syntax and the rules only, and the
// interpreter reports type errors when it loads the policy.
var typeEnv struct {
	once sync.Once
	mu   sync.Mutex // serialises type checking: importers are not safe for concurrent use
	std  types.Importer
	ssd  *types.Package
	err  error // why there is no type information
}

func loadTypeEnv() {
	typeEnv.once.Do(func() {
		var errs []string
		for _, kind := range []string{"gc", "source"} {
			var lookup importer.Lookup
			if kind == "gc" && exportFiles != nil {
				lookup = lookupExport
			}
			imp := importer.ForCompiler(token.NewFileSet(), kind, lookup)
			if _, err := imp.Import("math"); err != nil {
				errs = append(errs, kind+": "+err.Error())
				continue
			}
			typeEnv.std = imp
			break
		}
		if typeEnv.std == nil {
			// No toolchain: the interpreter's symbol table, which is what
			// the yaegi backend (then the only one) can reach.
			imp := newReflectImporter()
			if _, err := imp.Import("math"); err != nil {
				errs = append(errs, "symbols: "+err.Error())
			} else {
				typeEnv.std = imp
			}
		}
		if typeEnv.std == nil {
			typeEnv.err = fmt.Errorf("no standard library type information (is a Go toolchain installed?): %s",
				strings.Join(errs, "; "))
			return
		}
		pkg, err := checkSSD(typeEnv.std)
		if err != nil {
			typeEnv.std, typeEnv.err = nil, err
			return
		}
		typeEnv.ssd = pkg
	})
}

// ssdSourceFiles returns the embedded source files of package dir
// ("ssd" or "ssd/worker"), test files excluded, sorted by name.
func ssdSourceFiles(dir string) (map[string][]byte, error) {
	ents, err := fs.ReadDir(envs.SSDSource, dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := fs.ReadFile(envs.SSDSource, path.Join(dir, n))
		if err != nil {
			return nil, err
		}
		out[n] = b
	}
	return out, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkSSD type-checks the embedded ssd source as package "ssd", the path
// policies import it by.
func checkSSD(std types.Importer) (*types.Package, error) {
	srcs, err := ssdSourceFiles("ssd")
	if err != nil {
		return nil, fmt.Errorf("embedded ssd source: %w", err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range sortedKeys(srcs) {
		f, err := parser.ParseFile(fset, name, srcs[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("embedded ssd source: %w", err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: std}
	pkg, err := conf.Check("ssd", fset, files, nil)
	if err != nil {
		return nil, fmt.Errorf("embedded ssd source: %w", err)
	}
	return pkg, nil
}

// policyImporter resolves a policy's imports: "ssd" to the embedded API,
// everything else to the standard library. Validation has already refused
// imports outside the allow-list.
type policyImporter struct {
	std types.Importer
	ssd *types.Package
}

func (pi policyImporter) Import(p string) (*types.Package, error) {
	if p == "ssd" {
		return pi.ssd, nil
	}
	return pi.std.Import(p)
}
