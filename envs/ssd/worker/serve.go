package worker

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"policyevolve/envs/ssd"
)

// Policy is what a worker runs for each of its agents every step.
type Policy = func(v *ssd.View, agent int) int

// Options configure Serve.
type Options struct {
	// Load returns the policy instance of the episode a Hello starts: a
	// compiled worker returns its built-in policy, an interpreting worker
	// compiles Hello.Source. An error is reported to the host as a compile
	// error.
	Load func(h *Hello) (Policy, error)
	// PanicLine maps a recovered panic to a line of the policy source, 0
	// when unknown. callers is the panicking goroutine's stack.
	PanicLine func(recovered any, callers []uintptr) int
	// Confine applies the worker's OS-level confinement before the policy
	// is loaded and reports it; nil reports the confinement applied at
	// init (Limits.Early), if any.
	Confine func() Confinement
	// Exit ends the process after the watchdog reported a runaway step
	// (os.Exit when nil).
	Exit func(code int)
}

// ExitTimeout is the exit status of a worker whose watchdog fired.
const ExitTimeout = 3

// Serve plays one episode: it reads a Hello from in, confines itself,
// loads the policy, answers Ready with its confinement, then answers every
// Step with the actions of its agents and the CPU time they took, until
// Quit or end of input. A panic in the policy is reported as an Error and
// ends Serve. When a step uses more CPU time than Hello.StepTimeout, a
// watchdog reports a timeout for the agent being asked and exits the
// process: a runaway call cannot be stopped from outside otherwise.
func Serve(in io.Reader, out io.Writer, opt Options) error {
	exit := opt.Exit
	if exit == nil {
		exit = os.Exit
	}
	var mu sync.Mutex // guards out and fired
	fired := false
	send := func(typ byte, payload []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if fired {
			select {} // the watchdog is ending the process
		}
		return WriteFrame(out, typ, payload)
	}
	fail := func(r *ErrorReply) error {
		if err := send(MsgError, EncodeError(r)); err != nil {
			return err
		}
		return fmt.Errorf("%s", r.Message)
	}

	typ, payload, buf, err := ReadFrame(in, nil)
	if err != nil {
		return fmt.Errorf("read hello: %w", err)
	}
	if typ != MsgHello {
		return fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Message: fmt.Sprintf("expected hello, got message %q", typ)})
	}
	h, err := DecodeHello(payload)
	if err != nil {
		return fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Message: err.Error()})
	}
	conf := confined
	if opt.Confine != nil {
		conf = opt.Confine()
	}
	policy, err := opt.Load(h)
	if err != nil {
		return fail(&ErrorReply{Kind: KindCompile, Agent: -1, Message: err.Error()})
	}
	if err := send(MsgReady, EncodeReady(conf)); err != nil {
		return err
	}

	var wd *watchdog
	wd = newWatchdog(time.Duration(h.StepTimeout)*time.Microsecond, func(start int64, step, agent int, used, limit time.Duration) {
		mu.Lock()
		if wd.start.Load() != start {
			mu.Unlock() // the step ended meanwhile: its reply tells the host
			return
		}
		fired = true
		WriteFrame(out, MsgError, EncodeError(&ErrorReply{Kind: KindTimeout, Agent: agent,
			Message: fmt.Sprintf("step %d used %v of CPU time, more than the limit of %v", step, used.Round(time.Millisecond), limit)}))
		exit(ExitTimeout)
	})
	st := &ssd.State{Layout: h.Layout}
	var view *ssd.View
	actions := make([]int, len(h.Agents))
	var reply []byte
	for {
		typ, payload, buf, err = ReadFrame(in, buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read step: %w", err)
		}
		switch typ {
		case MsgQuit:
			return nil
		case MsgStep:
		default:
			return fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Message: fmt.Sprintf("unexpected message %q", typ)})
		}
		if err := DecodeStep(payload, st); err != nil {
			return fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Message: err.Error()})
		}
		if view == nil {
			view, err = ssd.NewView(st)
		} else {
			err = view.Update(st)
		}
		if err != nil {
			return fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Message: err.Error()})
		}
		wd.begin(st.Step)
		for k, a := range h.Agents {
			wd.agent.Store(int64(a))
			act, p := call(policy, view, a)
			if p != nil {
				// The policy's step ends here: describing its panic is ours.
				wd.end()
				return fail(p.report(a, opt.PanicLine))
			}
			actions[k] = act
		}
		used := wd.end()
		reply = AppendActions(reply[:0], actions, used)
		if err := send(MsgActions, reply); err != nil {
			return err
		}
	}
}

// watchdog measures the CPU time of each step and ends a step that uses
// more than its limit. It watches only while a step runs: between steps it
// sleeps on a channel.
type watchdog struct {
	limit time.Duration // 0: no limit
	// fire reports a step that ran over its limit and ends the process,
	// unless the step that started at start has ended meanwhile.
	fire func(start int64, step, agent int, used, limit time.Duration)

	start atomic.Int64 // CPU time at the start of the running step, +1; 0 between steps
	step  atomic.Int64
	agent atomic.Int64 // the agent being asked
	wake  chan struct{}
}

func newWatchdog(limit time.Duration, fire func(start int64, step, agent int, used, limit time.Duration)) *watchdog {
	w := &watchdog{limit: limit, fire: fire, wake: make(chan struct{}, 1)}
	if limit > 0 {
		go w.run()
	}
	return w
}

func (w *watchdog) begin(step int) {
	w.step.Store(int64(step))
	w.start.Store(int64(cpuTime()) + 1)
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// end closes the step and returns the CPU time it used.
func (w *watchdog) end() time.Duration {
	used := cpuTime() - time.Duration(w.start.Load()-1)
	w.start.Store(0)
	return used
}

func (w *watchdog) run() {
	// Polling a tenth of the limit (1-20 ms) catches a runaway step within
	// ~10% of its limit, plus the scheduler's preemption delay.
	poll := min(max(w.limit/10, time.Millisecond), 20*time.Millisecond)
	for range w.wake {
		for {
			s := w.start.Load()
			if s == 0 {
				break
			}
			if used := cpuTime() - time.Duration(s-1); used > w.limit {
				w.fire(s, int(w.step.Load()), int(w.agent.Load()), used, w.limit)
				break
			}
			time.Sleep(poll)
		}
	}
}

// recovered is a panic of the policy, as recovered.
type recovered struct {
	value   any
	callers []uintptr
}

// call runs the policy for one agent and recovers its panic.
func call(policy Policy, v *ssd.View, agent int) (act int, p *recovered) {
	defer func() {
		if r := recover(); r != nil {
			var pcs [64]uintptr
			n := runtime.Callers(2, pcs[:])
			p = &recovered{value: r, callers: pcs[:n]}
		}
	}()
	return policy(v, agent), nil
}

// report describes the panic, in at most about MaxMessage bytes however
// large the panic value.
func (p *recovered) report(agent int, panicLine func(any, []uintptr) int) *ErrorReply {
	line := 0
	if panicLine != nil {
		line = panicLine(p.value, p.callers)
	}
	return &ErrorReply{Kind: KindPanic, Agent: agent, Line: line, Message: describe(p.value)}
}

// describe prints a panic value without formatting more of it than a
// report keeps: a policy chooses its panic values, and a 20 MiB string or
// a huge slice would otherwise cost seconds to print.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return Truncate(x)
	case error:
		return Truncate(x.Error())
	case fmt.Stringer:
		return Truncate(x.String())
	}
	// fmt formats a whole value before writing any of it: print only the
	// head of a large slice or array, and only the size of a large map.
	const head = 64
	if rv := reflect.ValueOf(v); rv.IsValid() {
		switch rv.Kind() {
		case reflect.Slice, reflect.Array:
			if n := rv.Len(); n > head {
				return Truncate(fmt.Sprintf("%T of length %d, starting %v …", v, n, rv.Slice(0, head)))
			}
		case reflect.Map:
			if n := rv.Len(); n > head {
				return fmt.Sprintf("%T with %d entries", v, n)
			}
		}
	}
	w := &boundedWriter{limit: MaxMessage + 1}
	fmt.Fprint(w, v)
	return Truncate(w.String())
}

// boundedWriter keeps the first limit bytes written to it.
type boundedWriter struct {
	strings.Builder
	limit int
}

func (w *boundedWriter) Write(b []byte) (int, error) {
	if room := w.limit - w.Len(); room > 0 {
		w.Builder.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// MaxMessage bounds a reported message: a policy controls its panic
// values, and their text travels to the host and into the store.
const MaxMessage = 4 << 10

// Truncate shortens s to MaxMessage bytes, on a rune boundary.
func Truncate(s string) string {
	if len(s) <= MaxMessage {
		return s
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

// FileLine returns a PanicLine for compiled policies: the line of the
// innermost frame in a file whose name ends with file.
func FileLine(file string) func(any, []uintptr) int {
	return func(_ any, callers []uintptr) int {
		frames := runtime.CallersFrames(callers)
		for {
			f, more := frames.Next()
			if strings.HasSuffix(f.File, "/"+file) || f.File == file {
				return f.Line
			}
			if !more {
				return 0
			}
		}
	}
}

// Main serves one episode over file descriptors 3 (requests) and 4
// (replies) with a compiled-in policy, then exits: status 0 after a clean
// end, 1 after a reported failure.
func Main(policy Policy) {
	in := os.NewFile(3, "requests")
	out := os.NewFile(4, "replies")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "policy worker: file descriptors 3 and 4 are not open; this program is started by policyevolve")
		os.Exit(2)
	}
	err := Serve(bufio.NewReader(in), out, Options{
		Load:      func(*Hello) (Policy, error) { return policy, nil },
		PanicLine: FileLine(PolicyFile),
	})
	if err != nil {
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			fmt.Fprintln(os.Stderr, "policy worker:", err)
		}
		os.Exit(1)
	}
	os.Exit(0)
}

// PolicyFile is the name the policy source is given inside a worker.
const PolicyFile = "policy.go"
