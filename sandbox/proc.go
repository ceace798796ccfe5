package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"policyevolve/envs/ssd/worker"
)

// proc is one worker process, seen from the host.
type proc struct {
	cmd *exec.Cmd
	req *os.File // host writes requests (the worker's fd 3)
	rep *os.File // host reads replies (the worker's fd 4)
	out *capture
	// progress is the page the worker notes its step and agent in (nil
	// without one): where it was when it died.
	progress *os.File
	buf      []byte
	cpu      time.Duration // the worker's lifetime CPU limit (RLIMIT_CPU)
	used     time.Duration // CPU time of the episodes it has played
	waited   chan struct{} // closed when the process has been reaped
	waitErr  error

	mu     sync.Mutex
	killed string // why the host killed it, "" if it did not

	closeOnce sync.Once
}

// workerLifetime is how many episodes' worth of hard CPU limit
// (Config.EpisodeCPU) a worker may use in all: a worker that has used
// three quarters of it is retired after its episode, so every episode
// starts with at least one episode's limit left.
const workerLifetime = 4

// limits are the resource limits and self-applied confinement of a
// worker of backend be.
func (s *Sandbox) limits(be Backend) worker.Limits {
	return worker.Limits{
		AddressSpace: s.cfg.MemoryLimit,
		CPUSeconds:   int64(math.Ceil(workerLifetime * s.cfg.EpisodeCPU.Seconds())),
		Stack:        s.cfg.StackLimit,
		NoFile:       workerNoFile,
		NProc:        workerNProc,
		Confine:      worker.WorkerLayers &^ s.cfg.Unconfined,
		// The policy's package-level initialisation, before the worker
		// first replies (the yaegi worker loads the policy then).
		Init: s.cfg.StartTimeout.Microseconds(),
		// A compiled worker confines itself before the policy's
		// package-level variables are initialised; the interpreting worker
		// before it interprets the policy (see yaegiWorkerMain).
		Early: be == Native,
	}
}

// launchFile is launch of the executable at path.
func (s *Sandbox) launchFile(path string, extraEnv []string, lim worker.Limits) (*proc, error) {
	exeFile, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	defer exeFile.Close()
	return s.launch(exeFile, extraEnv, lim)
}

// launch starts the executable exeFile as a worker with the given limits,
// in the best namespaces the kernel grants (probed at the first start,
// then reused).
func (s *Sandbox) launch(exeFile *os.File, extraEnv []string, lim worker.Limits) (*proc, error) {
	// MALLOC_ARENA_MAX=1: a cgo-linked worker (policyevolve itself, for
	// yaegi) would otherwise reserve a 64 MiB malloc arena per thread,
	// most of the address-space budget.
	progress := newProgressPage()
	lim.Progress = progress != nil
	env := append([]string{"GOMAXPROCS=1", "MALLOC_ARENA_MAX=1", worker.EnvLimits + "=" + lim.String()}, extraEnv...)
	// The worker may run as another user, who cannot reach exe's directory
	// (a 0700 build or cache directory): it executes the file through a
	// descriptor the host opened, and closes that descriptor at once.
	reqR, reqW, err := os.Pipe()
	if err != nil {
		closeIf(progress)
		return nil, fmt.Errorf("start worker: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		closeIf(progress)
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w := &proc{req: reqW, rep: repR, progress: progress, cpu: time.Duration(lim.CPUSeconds) * time.Second, waited: make(chan struct{})}
	w.out = &capture{limit: s.cfg.OutputLimit, onLimit: func() { w.kill("output limit") }}
	failed := map[nsLevel]error{}
	var cmd *exec.Cmd
	for _, level := range s.ns.levels(s.cfg.Unconfined) {
		cmd = exec.Command(fmt.Sprintf("/proc/self/fd/%d", worker.ExeFD))
		cmd.Args = []string{"policy-worker"}
		cmd.Env = env
		cmd.Dir = "/"
		cmd.Stdout = w.out
		cmd.Stderr = w.out
		// A nil progress page leaves its descriptor closed.
		cmd.ExtraFiles = []*os.File{reqR, repW, w.progress, exeFile}
		cmd.SysProcAttr = procAttr(level)
		err = cmd.Start()
		if err != nil && (level.user || level.net) && nsRefused(err) {
			failed[level] = err
			continue
		}
		if err == nil {
			s.ns.settle(level, failed)
		}
		break
	}
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		closeIf(progress)
		return nil, fmt.Errorf("start worker %s: %w", exeFile.Name(), err)
	}
	w.cmd = cmd
	go func() {
		w.waitErr = cmd.Wait()
		close(w.waited)
	}()
	return w, nil
}

// kill stops the worker and records why; the first reason wins. Workers
// cannot start processes, so killing the worker alone is enough; and
// os.Process (a pidfd on Linux) never signals a reused pid once the worker
// has been reaped.
func (w *proc) kill(why string) {
	w.mu.Lock()
	if w.killed == "" {
		w.killed = why
	}
	w.mu.Unlock()
	select {
	case <-w.waited:
		return
	default:
	}
	if w.cmd != nil && w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
}

func (w *proc) killedFor() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.killed
}

// exchange sends one request and reads the reply, both within wall, a
// wall-clock bound: the worker's own watchdog judges how long the policy
// took (in CPU time); wall only ends the wait for a worker that cannot
// answer at all, which is then killed.
func (w *proc) exchange(typ byte, payload []byte, wall time.Duration) (byte, []byte, error) {
	deadline := time.Now().Add(wall)
	w.req.SetWriteDeadline(deadline)
	if err := worker.WriteFrame(w.req, typ, payload); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.kill("timeout")
		}
		return 0, nil, err
	}
	w.rep.SetReadDeadline(deadline)
	rt, rp, buf, err := worker.ReadFrame(w.rep, w.buf)
	w.buf = buf
	if errors.Is(err, os.ErrDeadlineExceeded) {
		w.kill("timeout")
	}
	return rt, rp, err
}

// reap waits (briefly) for the worker to exit, killing it if it lingers.
func (w *proc) reap(grace time.Duration) {
	select {
	case <-w.waited:
		return
	case <-time.After(grace):
	}
	w.kill("did not exit")
	<-w.waited
}

// close ends the worker: Quit, a moment to exit, then SIGKILL. It is
// safe to call more than once.
func (w *proc) close() {
	w.closeOnce.Do(func() {
		w.req.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		worker.WriteFrame(w.req, worker.MsgQuit, nil)
		w.req.Close()
		w.reap(time.Second)
		w.rep.Close()
		closeIf(w.progress)
	})
}

// closeIf closes f unless it is nil.
func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// clearProgress clears the progress page before an episode: what the
// worker noted in the one before must not place a death in this one.
func (w *proc) clearProgress() {
	if w.progress != nil {
		w.progress.WriteAt(make([]byte, 16), 0)
	}
}

// where returns the step (-1: re-initialising) and agent (-1: none) the
// worker last noted, if it noted any since clearProgress.
func (w *proc) where() (step, agent int, ok bool) {
	if w.progress == nil {
		return 0, 0, false
	}
	b := make([]byte, 16)
	if _, err := w.progress.ReadAt(b, 0); err != nil {
		return 0, 0, false
	}
	return worker.DecodeProgress(b)
}

// death explains why a worker stopped answering, from how it ended and
// what it printed. It returns a non-nil system error when the cause is not
// the policy's (the worker could not even apply its limits).
//
// step is the step in hand for the host; the worker's progress page, when
// it has one, tells the step and agent it was playing when it died, which
// in self-play may be many steps later (the host receives steps in
// chunks).
func (w *proc) death(step int) (*PolicyError, error) {
	w.reap(5 * time.Second)
	out := quoteControl(w.out.String())
	agent := -1
	if s, a, ok := w.where(); ok && s >= step {
		step, agent = s, a
	}
	pe := &PolicyError{Agent: agent, Step: step, Output: out}
	ps := w.cmd.ProcessState
	var ws syscall.WaitStatus
	if ps != nil {
		ws, _ = ps.Sys().(syscall.WaitStatus)
	}
	usedCPU := time.Duration(0)
	if ps != nil {
		usedCPU = ps.UserTime() + ps.SystemTime()
	}
	switch why := w.killedFor(); {
	case why == "output limit" || w.printedTooMuch():
		pe.Kind = ErrOutputLimit
		pe.Detail = fmt.Sprintf("printed more than %d bytes", w.out.limit)
	case why == "timeout":
		pe.Kind = ErrTimeout
		pe.Detail = "no answer within the step deadline; worker killed"
	case ws.Signaled() && ws.Signal() == syscall.SIGXCPU,
		// A SIGKILL the host did not send: RLIMIT_CPU's. (The kernel's OOM
		// killer could send one too, but the address-space limit makes
		// allocations fail first.) rusage samples CPU time more coarsely
		// than the kernel enforces the limit, hence the wide margin.
		ws.Signaled() && ws.Signal() == syscall.SIGKILL && why == "" && usedCPU >= w.cpu/2:
		pe.Kind = ErrCPUBudget
		pe.Detail = fmt.Sprintf("used %.1fs of CPU; the episode budget is %v", usedCPU.Seconds(), w.cpu)
	case ws.Signaled() && ws.Signal() == syscall.SIGSYS:
		pe.Kind = ErrCrashed
		pe.Detail = "killed by the sandbox's seccomp filter: a system call of another architecture's calling convention"
	case strings.Contains(out, "stack overflow") || strings.Contains(out, "stack exceeds"):
		pe.Kind = ErrCrashed
		pe.Detail = "stack overflow (too deep a recursion?)"
	case ps != nil && ps.ExitCode() == 125 && strings.Contains(out, "cannot apply limits"):
		return nil, fmt.Errorf("policy worker could not apply its resource limits: %s", strings.TrimSpace(out))
	case strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory"):
		pe.Kind = ErrCrashed
		pe.Detail = "out of memory"
	default:
		pe.Kind = ErrCrashed
		status := "exited"
		if ps != nil {
			status = ps.String()
		}
		pe.Detail = fmt.Sprintf("worker %s (cpu %.2fs of %v)", status, usedCPU.Seconds(), w.cpu)
		if last := lastLine(out); last != "" {
			pe.Detail += ": " + last
		}
	}
	return pe, nil
}

// printedTooMuch reports whether the worker printed more than its output
// limit. Once the worker has been reaped, everything it printed has been
// counted.
func (w *proc) printedTooMuch() bool {
	w.out.mu.Lock()
	defer w.out.mu.Unlock()
	return w.out.n > w.out.limit
}

// pending returns a reply the worker wrote but the host had not read when
// it stopped waiting. Call it only after the worker has been reaped: the
// pipe then ends after the worker's last frame.
func (w *proc) pending() (byte, []byte, bool) {
	w.rep.SetReadDeadline(time.Now().Add(time.Second))
	typ, payload, buf, err := worker.ReadFrame(w.rep, w.buf)
	w.buf = buf
	return typ, payload, err == nil
}

// failure explains an exchange with the worker that failed: cancellation,
// or the worker's end. What the policy did decides, not when the host
// noticed: a worker that printed past the output limit, or reported a
// panic, is reported as such even when the wait for it ran out first.
// step is the step in hand (-1 while the worker starts).
func (w *proc) failure(ctx context.Context, p *Program, step int, err error) error {
	if ctx.Err() != nil {
		w.kill("cancelled")
		return ctx.Err()
	}
	w.reap(5 * time.Second)
	if !w.printedTooMuch() {
		if typ, payload, ok := w.pending(); ok && typ == worker.MsgError {
			return w.reported(p, payload, step)
		}
	}
	pe, sysErr := w.death(step)
	if sysErr != nil {
		return sysErr
	}
	pe.Program = p.ID
	if pe.Kind == ErrTimeout {
		pe.Detail = fmt.Sprintf("no answer within %v of wall-clock time; worker killed", p.sb.cfg.StepWall)
		if step < 0 {
			pe.Detail = fmt.Sprintf("the worker did not start within %v", p.sb.cfg.StartTimeout)
		}
	}
	return pe
}

// reported turns the worker's Error reply into a PolicyError; step is the
// step in hand, when the reply does not name one.
func (w *proc) reported(p *Program, payload []byte, step int) error {
	r, err := worker.DecodeError(payload)
	if err != nil {
		w.kill("protocol")
		return w.protocol(p, step, err.Error())
	}
	w.reap(time.Second)
	if r.Step >= 0 {
		step = r.Step
	}
	if w.printedTooMuch() {
		pe, _ := w.death(step)
		pe.Program = p.ID
		return pe
	}
	pe := &PolicyError{Agent: r.Agent, Step: step, Line: r.Line, Detail: quoteControl(worker.Truncate(r.Message)), Program: p.ID,
		Output: quoteControl(w.out.String())}
	switch r.Kind {
	case worker.KindPanic:
		pe.Kind = ErrPanic
		if m, ok := yaegiRuntimeError(r.Message); ok && p.Backend == Yaegi {
			pe.Detail = m
		}
		if p.Backend == Yaegi && interpreterInternal(r.Message) {
			pe.Detail, pe.Line = interpreterFailure(p.Source, fmt.Sprintf("%d:1: %s", r.Line, r.Message), "run"), 0
		} else if p.Backend == Yaegi && r.Line > 0 {
			pe.Detail += fmt.Sprintf(" (yaegi reports the start of the panicking function's body: line %d)", r.Line)
			pe.Line = 0
		}
	case worker.KindTimeout:
		pe.Kind = ErrTimeout
	case worker.KindCost:
		pe.Kind = ErrCost
	case worker.KindCPU:
		pe.Kind = ErrCPUBudget
	case worker.KindInvalidAction:
		pe.Kind = ErrInvalidAction
	case worker.KindCompile:
		pe.Kind = ErrInvalid
		pe.Detail = interpreterFailure(p.Source, r.Message, "load")
	default:
		pe.Kind = ErrProtocol
	}
	return pe
}

// protocol reports a worker that broke the protocol, and kills it.
func (w *proc) protocol(p *Program, step int, detail string) error {
	w.kill("protocol")
	return &PolicyError{Kind: ErrProtocol, Agent: -1, Step: step, Detail: detail, Program: p.ID}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// capture keeps what a worker prints: the first and last few kilobytes,
// and a count. Past the limit it calls onLimit once.
type capture struct {
	limit   int64
	onLimit func()

	mu    sync.Mutex
	n     int64
	head  []byte
	tail  []byte
	fired bool
}

const captureKeep = 8 << 10

func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.n += int64(len(b))
	if room := captureKeep - len(c.head); room > 0 {
		c.head = append(c.head, b[:min(room, len(b))]...)
	}
	c.tail = append(c.tail, b...)
	if len(c.tail) > 2*captureKeep {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-captureKeep:]...)
	}
	over := c.n > c.limit && !c.fired
	if over {
		c.fired = true
	}
	c.mu.Unlock()
	if over {
		c.onLimit()
		return len(b), io.ErrShortWrite
	}
	return len(b), nil
}

// String returns the kept output: all of it when it fit, else its start
// and its end with a note of what was dropped between.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= int64(len(c.tail)) {
		return string(c.tail)
	}
	tail := c.tail[max(0, len(c.tail)-captureKeep):]
	skipped := c.n - int64(len(c.head)) - int64(len(tail))
	if skipped <= 0 {
		return string(c.head) + string(tail[-skipped:])
	}
	return fmt.Sprintf("%s\n… %d bytes not kept …\n%s", c.head, skipped, tail)
}
