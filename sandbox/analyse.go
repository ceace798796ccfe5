package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// Admission's analysis of a source — parsing, type checking (go/types
// folds constants at full size), the size and rule checks, the generated
// reset and the rewrite for the backend — is untrusted input meeting
// code whose cost it can drive: a few lines once made go/types fold a
// 16 MiB constant and more until the host died of out of memory, and a
// generic type nested 20,000 deep kept it busy for minutes at 5.8 GB. So
// the host never analyses a source itself: it hands the source to a
// child process (this very program, whose init serves as the analyser
// when envWorker says "analyse", as it serves as the yaegi worker) under
// bounds of its own — data (RLIMIT_DATA), CPU time (RLIMIT_CPU), a
// wall-clock bound, in its own process group, killed with the host — and
// reads back what it needs: the prepared code, or the policy's problems
// with their lines. A child stopped by a bound is a refusal of the policy
// ("policy source too costly to analyse: …"), the same every time, never
// a crash of the host or a failure of the system.

// Defaults of the analysis bounds, with the reasons for them.
const (
	// Analysing an honest policy takes a few megabytes and milliseconds
	// (a 200-line policy: ~3 ms and ~10 MB beyond the runtime); the
	// largest source admitted (MaxSourceSize) well under a second.
	DefaultAnalysisMemory = 512 << 20
	DefaultAnalysisCPU    = 10 * time.Second
)

// analysisRequest is what the host sends the analysing child, on its
// standard input.
type analysisRequest struct {
	Source  []byte
	Backend Backend
	// Memory and CPU are the child's bounds (bytes of RLIMIT_DATA, whole
	// seconds of RLIMIT_CPU), which it sets on itself before it reads
	// further.
	Memory int64
	CPU    int64
	// Exports maps standard-library import paths to their export data
	// files (see exportData); nil: the child asks the toolchain itself.
	Exports map[string]string
	// NoPrechecks: skip the checks of the syntax that refuse the known
	// shapes before type checking (see skipPrechecks); set by tests only.
	NoPrechecks bool
}

// analysisReply is what the child writes on its standard output: the
// prepared policy, or why it is refused (Invalid), or a failure of the
// system (Failure).
type analysisReply struct {
	ID       string
	Code     []byte
	Reset    bool
	Reusable bool
	Invalid  *ValidationError
	Failure  string
}

// skipPrechecks, set in the analysing child when a test asks, leaves out
// the checks of the syntax (nesting, constant strings) that refuse the
// known costly shapes before type checking, so that a test can see the
// child's bounds stop them instead.
var skipPrechecks bool

// analysisSlots bounds how many analyses run at once in this process:
// each may use up to its memory bound.
var analysisSlots = make(chan struct{}, 2)

// analyse validates src and prepares it for backend be in a bounded
// child process (see above), and returns what prepare would. A refusal
// is a *ValidationError; ctx ending returns ctx's error; any other error
// is a failure of the system (the child could not be started).
func (s *Sandbox) analyse(ctx context.Context, src []byte, be Backend) (*prepared, error) {
	// A first line in the host, cheap and bounded: the size.
	if len(src) > MaxSourceSize {
		return nil, &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1,
			Msg: fmt.Sprintf("source is %d bytes; the limit is %d", len(src), MaxSourceSize)}}}
	}
	if !analysisInChild {
		return prepare(src, be)
	}
	select {
	case analysisSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-analysisSlots }()

	req := analysisRequest{Source: src, Backend: be, Memory: max(s.cfg.AnalysisMemory, 0),
		CPU: max(int64(s.cfg.AnalysisCPU.Seconds()+0.999), 0), Exports: exportData(s.goCmd), NoPrechecks: s.noPrechecks}
	if raceEnabled {
		// The race detector's shadow memory counts as data: under it
		// (tests only) the child runs without a memory bound.
		req.Memory = 0
	}
	in, err := json.Marshal(&req)
	if err != nil {
		return nil, fmt.Errorf("analyse policy: %w", err)
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{"policyevolve-analyse"}
	env := []string{envWorker + "=analyse", "GOMAXPROCS=1"}
	if req.Memory > 0 {
		// The collector works harder before the bound, not after it.
		env = append(env, fmt.Sprintf("GOMEMLIMIT=%d", req.Memory*3/4))
	}
	cmd.Env = append(buildEnv(), env...)
	cmd.Dir = "/"
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut capped
	out.limit, errOut.limit = maxAnalysisReply, 64<<10
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = procAttr(nsLevel{}) // its own group; dies with the host
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("analyse policy: start the analyser: %w", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	wall := s.cfg.AnalysisWall
	timer := time.NewTimer(wall)
	defer timer.Stop()
	var werr error
	why := ""
	select {
	case werr = <-waited:
	case <-timer.C:
		killGroup(cmd.Process)
		werr = <-waited
		why = fmt.Sprintf("it gave no result within %v", wall)
	case <-ctx.Done():
		killGroup(cmd.Process)
		<-waited
		return nil, ctx.Err()
	}
	killGroup(cmd.Process) // nothing of it may outlive the analysis
	if werr == nil && why == "" && !out.over {
		var rep analysisReply
		if err := json.Unmarshal(out.buf.Bytes(), &rep); err != nil {
			return nil, fmt.Errorf("analyse policy: malformed reply from the analyser: %w", err)
		}
		switch {
		case rep.Failure != "":
			return nil, fmt.Errorf("analyse policy: %s", rep.Failure)
		case rep.Invalid != nil:
			return nil, rep.Invalid
		}
		if be == Yaegi && rewriteHook != nil {
			rep.Code = rewriteHook(rep.Code) // a test's, which the child cannot see
		}
		return &prepared{id: rep.ID, source: src, code: rep.Code, reset: rep.Reset, reusable: rep.Reusable}, nil
	}
	if why == "" {
		why = s.analysisFailure(cmd.ProcessState, errOut.buf.String(), out.over, time.Since(start))
	}
	return nil, &ValidationError{File: PolicyFileName, Issues: []Issue{{Line: 1, Col: 1,
		Msg: "policy source too costly to analyse: " + why + "; write it with fewer, simpler declarations " +
			"(no deeply nested types or expressions, no constants built up from others at great size)"}}}
}

// maxAnalysisReply bounds the analyser's reply: the code it prepared
// (the source, rewritten) in JSON.
const maxAnalysisReply = 16 << 20

// analysisFailure says why the analysing child ended without a reply.
func (s *Sandbox) analysisFailure(st *os.ProcessState, stderr string, overReply bool, took time.Duration) string {
	switch {
	case overReply:
		return fmt.Sprintf("its analysis produced more than %d MiB", maxAnalysisReply>>20)
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory"):
		return fmt.Sprintf("analysing it needed more than the bound of %d MiB of memory", s.cfg.AnalysisMemory>>20)
	case strings.Contains(stderr, "stack exceeds") || strings.Contains(stderr, "stack overflow"):
		return "analysing it overflowed the stack"
	}
	if st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			cpu := st.UserTime() + st.SystemTime()
			if s.cfg.AnalysisCPU > 0 && (ws.Signal() == syscall.SIGKILL || ws.Signal() == syscall.SIGXCPU) &&
				cpu >= s.cfg.AnalysisCPU*9/10 {
				return fmt.Sprintf("analysing it needed more than the bound of %v of CPU time", s.cfg.AnalysisCPU)
			}
			return fmt.Sprintf("the analyser was killed (%v) after %v", ws.Signal(), took.Round(time.Millisecond))
		}
	}
	last := strings.TrimSpace(stderr)
	if i := strings.IndexByte(last, '\n'); i >= 0 {
		last = last[:i]
	}
	return fmt.Sprintf("the analyser failed (%v: %s)", st, quoteControl(truncate(last, 200)))
}

// capped is a bytes.Buffer that keeps at most limit bytes and notes
// whether more came.
type capped struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.buf.Len(); room < len(p) {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// quoteControl returns s with every control character but newline and
// tab (terminal escapes included) and every bidirectional control
// written as a Go escape, so that text a policy influenced cannot drive
// the terminal it is printed on or reorder what it shows.
func quoteControl(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			clean = false // invalid bytes (a raw 0x9b is a terminal's CSI) become U+FFFD
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := fmt.Sprintf("%q", string(r))
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Bidi_Control, r)
}

// analyseMain is the analysing child: it sets its bounds, reads one
// request, prepares the source and writes the reply.
func analyseMain() int {
	data, err := io.ReadAll(io.LimitReader(os.Stdin, 4*MaxSourceSize+1<<20))
	var req analysisRequest
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "policyevolve analyser: read request:", err)
		return 2
	}
	if err := setAnalysisLimits(req.Memory, req.CPU); err != nil {
		fmt.Fprintln(os.Stderr, "policyevolve analyser:", err)
		return 2
	}
	exportFiles = req.Exports
	skipPrechecks = req.NoPrechecks
	var rep analysisReply
	prep, err := prepare(req.Source, req.Backend)
	var ve *ValidationError
	switch {
	case errors.As(err, &ve):
		rep.Invalid = ve
	case err != nil:
		rep.Failure = err.Error()
	default:
		rep.ID, rep.Code, rep.Reset, rep.Reusable = prep.id, prep.code, prep.reset, prep.reusable
	}
	if err := json.NewEncoder(os.Stdout).Encode(&rep); err != nil {
		fmt.Fprintln(os.Stderr, "policyevolve analyser: write reply:", err)
		return 2
	}
	return 0
}
