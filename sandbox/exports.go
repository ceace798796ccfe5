package sandbox

import (
	"bytes"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// exportFiles, when set (by the analysing child, from its request),
// maps standard-library import paths to their export data files, which
// the type checker then reads directly instead of asking the go command
// for each package (which costs ~50 ms a package: the child is started
// for every analysis).
var exportFiles map[string]string

func lookupExport(path string) (io.ReadCloser, error) {
	f, ok := exportFiles[path]
	if !ok {
		return nil, os.ErrNotExist
	}
	return os.Open(f)
}

var exports struct {
	once  sync.Once
	files map[string]string
}

// exportData returns the export data files of the packages a policy and
// the ssd API may import, and their dependencies, asking the go command
// once per process; nil when it cannot say (no toolchain: the analyser
// then finds its own way, see loadTypeEnv).
func exportData(goCmd string) map[string]string {
	exports.once.Do(func() {
		if goCmd == "" {
			p, err := exec.LookPath("go")
			if err != nil {
				return
			}
			goCmd = p
		}
		pkgs := map[string]bool{}
		for _, p := range AllowedImports {
			if p != "ssd" {
				pkgs[p] = true
			}
		}
		srcs, err := ssdSourceFiles("ssd")
		if err != nil {
			return
		}
		for _, src := range srcs {
			f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
			if err != nil {
				return
			}
			for _, im := range f.Imports {
				if p, err := strconv.Unquote(im.Path.Value); err == nil {
					pkgs[p] = true
				}
			}
		}
		args := []string{"list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}
		for p := range pkgs {
			args = append(args, p)
		}
		slices.Sort(args[5:])
		cmd := exec.Command(goCmd, args...)
		cmd.Env = buildEnv()
		cmd.Dir = os.TempDir()
		out, err := cmd.Output()
		if err != nil {
			return
		}
		files := map[string]string{}
		for _, line := range bytes.Split(out, []byte("\n")) {
			p, f, ok := strings.Cut(string(line), "\t")
			if ok && f != "" {
				files[p] = f
			}
		}
		for p := range pkgs {
			if files[p] == "" {
				return // the toolchain would not say: let the analyser ask
			}
		}
		exports.files = files
	})
	return exports.files
}
