package worker

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
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
	// Exit ends the process after the watchdog reported a runaway step
	// (os.Exit when nil).
	Exit func(code int)
}

// ExitTimeout is the exit status of a worker whose watchdog fired.
const ExitTimeout = 3

// Serve plays one episode: it reads a Hello from in, loads the policy,
// answers Ready, then answers every Step with the actions of its agents,
// until Quit or end of input. A panic in the policy is reported as an Error
// and ends Serve. When a step runs longer than Hello.StepTimeout, a
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
	policy, err := opt.Load(h)
	if err != nil {
		return fail(&ErrorReply{Kind: KindCompile, Agent: -1, Message: err.Error()})
	}
	if err := send(MsgReady, nil); err != nil {
		return err
	}

	st := &ssd.State{Layout: h.Layout}
	var view *ssd.View
	var current atomic.Int64 // the agent being asked, for the watchdog
	actions := make([]int, len(h.Agents))
	var reply []byte
	limit := time.Duration(h.StepTimeout) * time.Microsecond
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
		var timer *time.Timer
		if limit > 0 {
			step := st.Step
			timer = time.AfterFunc(limit, func() {
				mu.Lock()
				fired = true
				WriteFrame(out, MsgError, EncodeError(&ErrorReply{Kind: KindTimeout, Agent: int(current.Load()),
					Message: fmt.Sprintf("step %d took longer than %v", step, limit)}))
				exit(ExitTimeout)
			})
		}
		for k, a := range h.Agents {
			current.Store(int64(a))
			act, perr := call(policy, view, a, opt.PanicLine)
			if perr != nil {
				if timer != nil {
					timer.Stop()
				}
				return fail(perr)
			}
			actions[k] = act
		}
		if timer != nil && !timer.Stop() {
			select {} // the watchdog fired and is ending the process
		}
		reply = AppendActions(reply[:0], actions)
		if err := send(MsgActions, reply); err != nil {
			return err
		}
	}
}

// call runs the policy for one agent, turning a panic into an ErrorReply.
func call(policy Policy, v *ssd.View, agent int, panicLine func(any, []uintptr) int) (act int, rep *ErrorReply) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		var pcs [64]uintptr
		n := runtime.Callers(1, pcs[:])
		line := 0
		if panicLine != nil {
			line = panicLine(r, pcs[:n])
		}
		rep = &ErrorReply{Kind: KindPanic, Agent: agent, Line: line, Message: Truncate(fmt.Sprint(r))}
	}()
	return policy(v, agent), nil
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
