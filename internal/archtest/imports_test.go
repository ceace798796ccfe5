package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLeafImports: the packages docs/architecture.md puts at the bottom
// import only the standard library, and the few packages it names
// beside it. A policy-facing package (envs/ssd, compiled into every
// native worker) or a rating package (elo) that grew a dependency would
// fail here, naming the file and the import.
func TestLeafImports(t *testing.T) {
	for dir, allowed := range map[string][]string{
		"envs":              {"policyevolve/envs/ssd"},
		"envs/ssd":          nil,
		"elo":               nil,
		"pool":              nil,
		"store":             {"go.etcd.io/bbolt", "go.etcd.io/bbolt/errors", "policyevolve/internal/infile"},
		"internal/textdiff": nil,
		"internal/outfile":  nil,
		"internal/infile":   nil,
	} {
		imports := importsOf(t, filepath.Join("..", "..", filepath.FromSlash(dir)))
		if len(imports) == 0 {
			t.Errorf("%s: no Go file read", dir)
		}
		for path, file := range imports {
			if standard(path) || slices.Contains(allowed, path) {
				continue
			}
			t.Errorf("%s imports %q (%s): docs/architecture.md allows only the standard library%s", dir, path, file, also(allowed))
		}
	}
}

// importsOf returns the imports of a package's non-test files, each with
// a file that has it; a package with no import at all maps "" to its dir.
func importsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	read := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		read++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[p] = name
		}
	}
	if read > 0 && len(out) == 0 {
		out[""] = dir
	}
	return out
}

// standard reports whether an import path is the standard library's: its
// first element has no dot and it is not this module's.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return path == "" || (!strings.Contains(first, ".") && first != "policyevolve")
}

func also(allowed []string) string {
	if len(allowed) == 0 {
		return ""
	}
	return " and " + strings.Join(allowed, ", ")
}
