package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"reflect"
	"regexp"
	"strconv"
	"sync"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"policyevolve/envs/ssd"
	"policyevolve/envs/ssd/worker"
	"policyevolve/sandbox/internal/threads"
)

// envWorker, set to "yaegi" in a process's environment, turns any binary
// that links this package (policyevolve itself, or a test binary) into an
// interpreting policy worker: the package's init serves its episodes and
// exits before main runs; set to "analyse", into the bounded analyser of
// one source (see analyse). The host sets it; nothing else should.
const envWorker = "POLICYEVOLVE_SANDBOX_WORKER"

func init() {
	if spec, ok := os.LookupEnv(envTool); ok {
		os.Exit(runTool(spec)) // the launcher of a build's go command
	}
	switch os.Getenv(envWorker) {
	case "yaegi":
		os.Exit(yaegiWorkerMain())
	case "analyse":
		os.Exit(analyseMain()) // the bounded analysis of a source (see analyse)
	}
}

func yaegiWorkerMain() int {
	in := os.NewFile(3, "requests")
	out := os.NewFile(4, "replies")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "policy worker: file descriptors 3 and 4 are not open")
		return 2
	}
	pl := &panicLines{}
	stderr := io.MultiWriter(os.Stderr, pl)
	err := worker.Serve(bufio.NewReader(in), out, worker.Options{
		Load: func(h *worker.Hello) (worker.Loaded, error) {
			return loadYaegi(h.Source, os.Stdout, stderr)
		},
		PanicLine: func(any, []uintptr) int { return pl.take() },
		// Confined before the interpreter sees the policy: its
		// package-level initialisation is policy code too.
		Confine: func() worker.Confinement { return worker.ConfineSelf(threads.All()) },
	})
	if err != nil {
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			fmt.Fprintln(os.Stderr, "policy worker:", err)
		}
		return 1
	}
	return 0
}

// yaegiExports is the whole of what interpreted policies may import.
func yaegiExports() interp.Exports {
	ex := interp.Exports{"ssd/ssd": ssdSymbols}
	for _, p := range AllowedImports {
		if p == "ssd" {
			continue
		}
		key := p + "/" + path.Base(p)
		ex[key] = stdlib.Symbols[key]
	}
	return ex
}

// loadYaegi compiles a (rewritten) policy source in a fresh interpreter
// that can reach only the allowed packages, no source files on disk, and
// no environment, and returns its Policy function and, when withReset
// added one, its reset function.
func loadYaegi(src []byte, stdout, stderr io.Writer) (l worker.Loaded, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, err = worker.Loaded{}, fmt.Errorf("yaegi: %v", r)
		}
	}()
	i := interp.New(interp.Options{
		GoPath:               "/nonexistent",
		SourcecodeFilesystem: fstest.MapFS{},
		Stdin:                bytes.NewReader(nil),
		Stdout:               stdout,
		Stderr:               stderr,
		Args:                 []string{"policy"},
		Env:                  []string{},
	})
	if err := i.Use(yaegiExports()); err != nil {
		return l, err
	}
	if _, err := i.Eval(string(src)); err != nil {
		return l, err
	}
	v, err := i.Eval("policy.Policy")
	if err != nil {
		return l, err
	}
	if v.Kind() != reflect.Func {
		return l, fmt.Errorf("policy.Policy is a %s, not a function", v.Kind())
	}
	f, ok := v.Interface().(func(*ssd.View, int) int)
	if !ok {
		return l, fmt.Errorf("policy.Policy has type %s; want %s", v.Type(), Signature)
	}
	l.Policy = f
	if bytes.Contains(src, []byte("func "+resetName+"()")) {
		v, err := i.Eval("policy." + resetName)
		if err != nil {
			return l, err
		}
		reset, ok := v.Interface().(func())
		if !ok {
			return l, fmt.Errorf("policy.%s has type %s", resetName, v.Type())
		}
		l.Reset = reset
	}
	return l, nil
}

// panicLines watches the interpreter's error output for the position it
// prints when interpreted code panics ("12:3: panic: …", innermost frame
// first) and remembers the first since the last take. yaegi v0.16.1
// reports the start of the panicking function's body, not the statement.
// It looks at each line once, and only at its start: a policy may print a
// lot.
type panicLines struct {
	mu      sync.Mutex
	line    int
	partial []byte // the start of the line being written
}

var panicRe = regexp.MustCompile(`^(?:[^\s:]*:)?(\d+):(\d+): panic`)

// panicLineStart bounds what is kept of a line: the position comes first.
const panicLineStart = 256

func (p *panicLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for data := b; len(data) > 0 && p.line == 0; {
		chunk := data
		end := bytes.IndexByte(data, '\n')
		if end >= 0 {
			chunk = data[:end]
		}
		if room := panicLineStart - len(p.partial); room > 0 {
			p.partial = append(p.partial, chunk[:min(room, len(chunk))]...)
		}
		if end < 0 {
			break
		}
		if m := panicRe.FindSubmatch(p.partial); m != nil {
			p.line, _ = strconv.Atoi(string(m[1]))
		}
		p.partial = p.partial[:0]
		data = data[end+1:]
	}
	return len(b), nil
}

func (p *panicLines) take() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.line
	p.line, p.partial = 0, p.partial[:0]
	return l
}
