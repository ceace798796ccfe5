package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// self is the command as the user invoked it, for the commands this
// program prints as hints ("look further: … runs show run-1"), so that
// they run as printed: "go run ./cmd/policyevolve" under go run (the path
// as seen from the working directory), "policyevolve" when found on the
// PATH, else the path typed ("./policyevolve"); a path quoted for the
// shell when it needs it.
var self = sync.OnceValue(func() string {
	if s := os.Getenv(envSelf); s != "" {
		return s
	}
	wd, _ := os.Getwd()
	return invocation(os.Args[0], wd, exec.LookPath)
})

// envSelf overrides self: the tests run the commands inside a test binary.
const envSelf = "POLICYEVOLVE_SELF"

// invocation works out self from the program's path argv0 and the
// working directory wd; lookPath finds a name on the PATH.
func invocation(argv0, wd string, lookPath func(string) (string, error)) string {
	if goRun(argv0) {
		if rel, ok := mainPackage(wd); ok {
			if rel == "." {
				return "go run ."
			}
			return "go run " + shellQuote("./"+filepath.ToSlash(rel))
		}
		return "go run ./cmd/policyevolve"
	}
	base := filepath.Base(argv0)
	if !strings.ContainsRune(argv0, os.PathSeparator) {
		return shellQuote(argv0)
	}
	if found, err := lookPath(base); err == nil && sameFile(found, argv0) {
		return shellQuote(base)
	}
	return shellQuote(argv0)
}

// goRun reports whether argv0 is a binary go run built: either just
// built, in an exe folder of a temporary go-build folder, or found again
// in Go's build cache, which keeps go run's binaries (Go 1.24 on) in a
// folder named by a 64-digit hex hash and "-d", in a folder of two hex
// digits.
func goRun(argv0 string) bool {
	dir := filepath.Dir(argv0)
	if cachedBinary.MatchString(filepath.Base(dir)) && twoHex.MatchString(filepath.Base(filepath.Dir(dir))) {
		return true
	}
	if filepath.Base(dir) != "exe" {
		return false
	}
	for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if strings.HasPrefix(filepath.Base(d), "go-build") {
			return true
		}
	}
	return false
}

var (
	cachedBinary = regexp.MustCompile(`^[0-9a-f]{64}-d$`)
	twoHex       = regexp.MustCompile(`^[0-9a-f]{2}$`)
)

// mainPackage finds this command's folder (cmd/policyevolve of the module
// policyevolve) from wd, as a path relative to wd.
func mainPackage(wd string) (string, bool) {
	for d := wd; ; d = filepath.Dir(d) {
		if mod, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if f := strings.Fields(string(mod)); len(f) < 2 || f[0] != "module" || f[1] != "policyevolve" {
				return "", false
			}
			rel, err := filepath.Rel(wd, filepath.Join(d, "cmd", "policyevolve"))
			return rel, err == nil
		}
		if d == filepath.Dir(d) {
			return "", false
		}
	}
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
