package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd/worker"
)

// The worker module a native build assembles in a temporary directory:
//
//	go.mod              module ssd (so that policies import plain "ssd")
//	*.go                the ssd package, from the embedded source
//	worker/*.go         the worker package ("ssd/worker")
//	envs/*.go, envs/maps  the game rules ("ssd/envs"), for the worker's replica
//	cmd/worker/policy.go  the policy, its package clause turned into main
//	cmd/worker/main.go    func main() { worker.Main(Policy, reset) }
//
// The policy shares package main only with a main.go that declares main
// and imports the worker under a reserved name; validation refuses a
// policy's own main and every name with the reserved prefix. The worker
// package's init applies the resource limits before the policy's
// package-level variables are initialised.
const (
	workerModule = "module ssd\n\ngo 1.25\n"
	workerMain   = "package main\n\nimport " + reservedPrefix + "worker \"ssd/worker\"\n\nfunc main() { " + reservedPrefix + "worker.Main(Policy, %s) }\n"
)

// workerSources are the embedded packages a worker is built from: their
// directory in envs.SSDSource and in the worker module.
var workerSources = []struct{ embedded, module string }{
	{"ssd", "."},
	{"ssd/worker", "worker"},
	{".", "envs"},
}

// moduleImports turns the repository's import paths into the worker
// module's.
func moduleImports(src []byte) []byte {
	src = bytes.ReplaceAll(src, []byte(`"policyevolve/envs/ssd`), []byte(`"ssd`))
	return bytes.ReplaceAll(src, []byte(`"policyevolve/envs"`), []byte(`"ssd/envs"`))
}

// policyGCFlags are the compiler flags of the policy's package. Without
// them the compiler puts the backing arrays of small slices that do not
// escape on the stack (Go 1.25 and later), with a capacity of 32 bytes
// from the first append: then two appends to one slice share memory
// natively and not in the yaegi interpreter, whose slices grow as the
// runtime's growslice makes them (1, 2, 4, … elements). With the
// threshold at 0, compiled policies grow slices the same way.
const policyGCFlags = "-d=variablemakethreshold=0"

// noFusion turns off fused multiply-add in the compiler (a debug hash
// that matches nothing). The Go specification lets an implementation
// fuse x*y+z into one rounding; the compiler does on arm64 and other
// architectures, in the policy and in the standard library it calls, and
// then a policy computes other floats there than on amd64, where
// GOAMD64=v1 has no fused instruction. Builds for those architectures
// compile every package with it.
const noFusion = "fmahash=n"

// buildFlags are the go build flags of a worker for goarch.
func buildFlags(goarch string) []string {
	if goarch == "amd64" {
		return []string{"-gcflags=" + policyGCFlags}
	}
	return []string{"-gcflags=all=-d=" + noFusion, "-gcflags=" + policyGCFlags + "," + noFusion}
}

// buildEnv is the environment of the go command: the caller's, minus what
// could redirect the build (workspaces, cross-compilation, toolchain
// downloads, cgo, the network).
func buildEnv() []string {
	drop := map[string]bool{"GOFLAGS": true, "GOWORK": true, "GOOS": true, "GOARCH": true, "CGO_ENABLED": true,
		"GOTOOLCHAIN": true, "GOPROXY": true, "GO111MODULE": true, "GOEXPERIMENT": true, "GOENV": true, "GOAMD64": true}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	// GOAMD64=v1: at v3 the compiler fuses x*y+z into one instruction
	// with one rounding; the interpreter rounds twice, as Go does without
	// fusion.
	return append(env, "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0",
		"GO111MODULE=on", "GOENV=off", "GOAMD64=v1")
}

// apiHash identifies the embedded ssd and worker sources and the protocol.
func apiHash() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "protocol %d\ngcflags %s\nnative %d\n", worker.Version, strings.Join(buildFlags(runtime.GOARCH), " "), nativeVersion)
	for _, src := range workerSources {
		files, err := ssdSourceFiles(src.embedded)
		if err != nil {
			return "", fmt.Errorf("embedded ssd source: %w", err)
		}
		for _, n := range sortedKeys(files) {
			fmt.Fprintf(h, "%s/%s %d\n", src.embedded, n, len(files[n]))
			h.Write(files[n])
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type buildCall struct {
	done    chan struct{}
	path    string
	err     error
	waiters int                // callers waiting for it; guarded by Sandbox.mu
	cancel  context.CancelFunc // ends the build when the last waiter gives up
}

// build compiles a prepared policy into a worker binary, or finds it in
// the cache. Concurrent builds of one policy in this process share one
// go build, which runs as long as one of its callers waits for it (and
// at most BuildTimeout): when the last gives up, the build is killed,
// compiler and linker included. Builds in several processes each write a
// temporary file and rename it into place, which is atomic, so a reader
// never sees half a binary. The cache key is a hash of the API, the Go
// version and the worker's code (policy file and main).
func (s *Sandbox) build(ctx context.Context, prep *prepared) (string, error) {
	main := workerMainSource(prep.reset)
	sum := sha256.Sum256([]byte(s.apiHash + "\x00" + s.goVersion + "\x00" + string(prep.code) + "\x00" + string(main)))
	key := hex.EncodeToString(sum[:])
	final := filepath.Join(s.cfg.CacheDir, key[:2], key)
	s.staleOnce.Do(func() { removeStaleBuilds(s.cfg.CacheDir) })
	if st, err := os.Stat(final); err == nil && st.Mode().IsRegular() {
		touch(final)
		return final, nil
	}

	s.mu.Lock()
	bc, ok := s.building[key]
	if !ok {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.BuildTimeout)
		bc = &buildCall{done: make(chan struct{}), cancel: cancel}
		s.building[key] = bc
		go func() {
			defer cancel()
			bc.path, bc.err = s.goBuild(bctx, prep, main, final)
			if bctx.Err() == context.DeadlineExceeded && bc.err != nil {
				bc.err = fmt.Errorf("build worker: no result within %v: %w", s.cfg.BuildTimeout, bc.err)
			}
			s.mu.Lock()
			if s.building[key] == bc {
				delete(s.building, key)
			}
			s.mu.Unlock()
			close(bc.done)
		}()
	}
	bc.waiters++
	s.mu.Unlock()
	select {
	case <-bc.done:
		return bc.path, bc.err
	case <-ctx.Done():
		s.mu.Lock()
		if bc.waiters--; bc.waiters == 0 {
			// No one waits any more: a later caller starts afresh.
			if s.building[key] == bc {
				delete(s.building, key)
			}
			bc.cancel()
		}
		s.mu.Unlock()
		return "", ctx.Err()
	}
}

// staleBefore is the time before which a build directory without a lock
// is surely dead: no build lasts a day.
func staleBefore() time.Time { return time.Now().Add(-24 * time.Hour) }

// workerMainSource is the worker module's main.go; reset says whether the
// policy file declares resetName.
func workerMainSource(reset bool) []byte {
	name := "nil"
	if reset {
		name = resetName
	}
	return []byte(fmt.Sprintf(workerMain, name))
}

func (s *Sandbox) goBuild(ctx context.Context, prep *prepared, main []byte, final string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", fmt.Errorf("worker cache: %w", err)
	}
	tmp, err := os.MkdirTemp(s.cfg.CacheDir, "build-")
	if err != nil {
		return "", fmt.Errorf("worker cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	// Locked while the build runs: a directory left by a build whose
	// process was killed is removed by the next process that builds.
	unlock, err := lockBuildDir(tmp)
	if err != nil {
		return "", fmt.Errorf("worker cache: %w", err)
	}
	defer unlock()
	// The go command's own temporary files go there too, so that
	// nothing of a killed build stays elsewhere.
	gotmp := filepath.Join(tmp, "tmp")
	if err := os.Mkdir(gotmp, 0o700); err != nil {
		return "", fmt.Errorf("worker cache: %w", err)
	}

	write := func(rel string, data []byte) error {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	if err := write("go.mod", []byte(workerModule)); err != nil {
		return "", err
	}
	for _, src := range workerSources {
		files, err := ssdSourceFiles(src.embedded)
		if err != nil {
			return "", err
		}
		for name, data := range files {
			if name == "ssdsource.go" {
				continue // embeds these very sources: not for workers
			}
			if err := write(filepath.Join(src.module, name), moduleImports(data)); err != nil {
				return "", err
			}
		}
	}
	maps, err := fs.Glob(envs.SSDSource, "maps/*.txt")
	if err != nil {
		return "", err
	}
	for _, m := range maps {
		data, err := fs.ReadFile(envs.SSDSource, m)
		if err != nil {
			return "", err
		}
		if err := write(filepath.Join("envs", m), data); err != nil {
			return "", err
		}
	}
	if err := write(filepath.Join("cmd", "worker", worker.PolicyFile), prep.code); err != nil {
		return "", err
	}
	if err := write(filepath.Join("cmd", "worker", "main.go"), main); err != nil {
		return "", err
	}

	bin := filepath.Join(tmp, "worker.bin")
	// Every process of the build runs under the build's bounds (see
	// toolimits.go).
	args := append(append([]string{"build", "-trimpath"}, buildFlags(runtime.GOARCH)...), "-o", bin, "./cmd/worker")
	cmd := toolCommand(ctx, s.toolLimits(), s.goCmd, append(buildEnv(), "TMPDIR="+gotmp, "GOTMPDIR="+gotmp), args...)
	cmd.Dir = tmp
	// The go command starts the compiler and linker: kill them all, not
	// just go, when the build is cancelled or times out.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = procAttr(nsLevel{})
	}
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", s.buildFailure(err, out, prep.source)
	}
	st, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("worker cache: %w", err)
	}
	if s.cfg.BuildFileSize > 0 && st.Size() > s.cfg.BuildFileSize {
		return "", &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1,
			Msg: fmt.Sprintf("the worker binary of this policy is %d MiB, beyond the build's bound of %d MiB: "+
				"its initialised arrays are laid out in the binary; make them smaller or fill them at run time",
				st.Size()>>20, s.cfg.BuildFileSize>>20)}}}
	}
	if err := os.Rename(bin, final); err != nil {
		return "", fmt.Errorf("worker cache: %w", err)
	}
	s.afterBuild(st.Size())
	return final, nil
}

// buildFailure judges a build that failed (err, with the go command's
// output): a refusal of the policy when the policy's package failed to
// compile or link (its errors, a bound it passed, or anything else the
// toolchain said about that package), a failure of the system when the
// toolchain could not run or another package failed (the standard
// library, the ssd API), or the disk is full.
func (s *Sandbox) buildFailure(err error, out, source []byte) error {
	if msg, err := s.overBound(out); err != nil {
		return err
	} else if msg != "" {
		return &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1, Msg: msg}}}
	}
	system := bytes.Contains(out, []byte("no space left on device")) || bytes.Contains(out, []byte("disk quota exceeded"))
	if !system {
		if verr := compileIssues(out, source); verr != nil {
			return verr
		}
		if bytes.Contains(out, []byte("cmd/worker/")) || bytes.Contains(out, []byte("# ssd/cmd/worker\n")) {
			// The policy's package failed in a way the checks above did
			// not foresee (the linker on its data, say): the policy's
			// fault, not the system's.
			return &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1,
				Msg: "the policy does not build: " + quoteControl(lastLine(string(out)))}}}
		}
	}
	return fmt.Errorf("build worker: %v\n%s", err, bytes.TrimSpace(out))
}

var compileErrRe = regexp.MustCompile(`(?m)^(?:\./|ssd/)?cmd/worker/` + regexp.QuoteMeta(worker.PolicyFile) + `:(\d+):(\d+): (.*)$`)

// compileIssues turns compiler errors about the policy file into a
// ValidationError (type checking catches nearly all of them first).
func compileIssues(out, src []byte) error {
	ms := compileErrRe.FindAllSubmatch(out, -1)
	if len(ms) == 0 {
		return nil
	}
	ve := &ValidationError{File: PolicyFileName}
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, m := range ms {
		line, _ := strconv.Atoi(string(m[1]))
		col, _ := strconv.Atoi(string(m[2]))
		if line > lines {
			// A line the sandbox appended (its helpers): never show it as
			// the author's.
			ve.Issues = append(ve.Issues, Issue{Line: 1, Col: 1,
				Msg: "the code the sandbox adds to this policy does not build: " + string(m[3])})
			continue
		}
		ve.Issues = append(ve.Issues, Issue{Line: line, Col: col, Msg: string(m[3]), Snippet: sourceLine(src, line)})
	}
	return ve
}
