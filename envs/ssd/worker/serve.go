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

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// Policy is what a worker runs for each of its agents every step.
type Policy = func(v *ssd.View, agent int) int

// Loaded is a worker's policy, loaded once and played in every episode.
type Loaded struct {
	Policy Policy
	// Reset puts the policy's package-level state back where a fresh
	// process starts it (every package-level variable re-initialised, in
	// order, and init functions run again); it runs before every episode.
	// Nil when the policy keeps no package-level state.
	Reset func()
}

// Options configure Serve.
type Options struct {
	// Load loads the policy a Hello names: a compiled worker returns its
	// built-in policy, an interpreting worker compiles Hello.Source. An
	// error is reported to the host as a compile error.
	Load func(h *Hello) (Loaded, error)
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

// Serve runs a worker: it reads a Hello, confines itself, loads the policy
// and answers Ready with its confinement; then it plays every Episode the
// host sends, on its own replica of the environment, starting each from
// the policy's fresh state (Loaded.Reset); until Quit or end of input.
//
// In Lockstep mode the host sends the joint actions of every step and the
// worker answers its agents' actions, the CPU time they took and the hash
// of the state they were chosen in. In SelfPlay mode the worker plays the
// whole episode and reports the actions and the replica's hash after every
// step in Chunks, then Done with the CPU time.
//
// A failure of the policy (a panic, an invalid action, a step over its
// CPU time, an episode over its budget) is reported as an Error and ends
// Serve: the host starts a fresh worker for the next episode. A runaway
// step cannot be stopped from inside: the watchdog reports it and exits
// the process.
func Serve(in io.Reader, out io.Writer, opt Options) error {
	s := &server{in: in, out: out, opt: opt, prog: openProgress()}
	if s.opt.Exit == nil {
		s.opt.Exit = os.Exit
	}
	typ, payload, err := s.read()
	if err != nil {
		return fmt.Errorf("read hello: %w", err)
	}
	if typ != MsgHello {
		return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: -1, Message: fmt.Sprintf("expected hello, got message %q", typ)})
	}
	h, err := DecodeHello(payload)
	if err != nil {
		return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: -1, Message: err.Error()})
	}
	conf := confined
	if opt.Confine != nil {
		conf = opt.Confine()
	}
	s.loaded, err = opt.Load(h)
	if err != nil {
		return s.fail(&ErrorReply{Kind: KindCompile, Agent: -1, Step: -1, Message: err.Error()})
	}
	if err := s.send(MsgReady, EncodeReady(conf)); err != nil {
		return err
	}
	s.wd = newWatchdog(s.timeout)
	s.stepLimit = time.Duration(h.StepTimeout) * time.Microsecond
	s.initLimit = time.Duration(h.InitTimeout) * time.Microsecond
	for {
		typ, payload, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		switch typ {
		case MsgQuit:
			return nil
		case MsgEpisode:
			ep, err := DecodeEpisode(payload)
			if err != nil {
				return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: -1, Message: err.Error()})
			}
			if err := s.episode(ep); err != nil {
				return err
			}
		default:
			return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: -1, Message: fmt.Sprintf("unexpected message %q", typ)})
		}
	}
}

// server is one worker's state across episodes.
type server struct {
	in     io.Reader
	out    io.Writer
	opt    Options
	loaded Loaded
	wd     *watchdog
	// CPU time limits of a step and of re-initialising the policy.
	stepLimit, initLimit time.Duration

	mu    sync.Mutex // guards out and fired
	fired bool

	buf     []byte
	pending bool // a frame read but not handled: the next call of next returns it
	ptyp    byte
	ppay    []byte

	prog progress // where the worker is, for the host (see progress.go)

	envKey string // the replica's configuration, to reuse it
	env    *envs.Env
	st     ssd.State
	view   *ssd.View
	reply  []byte
}

func (s *server) read() (byte, []byte, error) {
	typ, payload, buf, err := ReadFrame(s.in, s.buf)
	s.buf = buf
	return typ, payload, err
}

// next returns the pending frame, or reads one.
func (s *server) next() (byte, []byte, error) {
	if s.pending {
		s.pending = false
		return s.ptyp, s.ppay, nil
	}
	return s.read()
}

func (s *server) send(typ byte, payload []byte) error {
	endStartWatch()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fired {
		select {} // the watchdog is ending the process
	}
	return WriteFrame(s.out, typ, payload)
}

func (s *server) fail(r *ErrorReply) error {
	if err := s.send(MsgError, EncodeError(r)); err != nil {
		return err
	}
	return fmt.Errorf("%s", r.Message)
}

// timeout is the watchdog's report of a step (or, at step -1, of the
// policy's re-initialisation) over its CPU time: unless it ended meanwhile
// (still reports whether it runs), it tells the host and ends the process.
func (s *server) timeout(still func() bool, step, agent int, describing bool, used, limit time.Duration) {
	s.mu.Lock()
	if !still() {
		s.mu.Unlock()
		return // the step ended: its reply tells the host
	}
	s.fired = true
	msg := fmt.Sprintf("step %d used %v of CPU time, more than the limit of %v", step, used.Round(time.Millisecond), limit)
	if step < 0 {
		msg = fmt.Sprintf("initialising the policy's package-level variables used %v of CPU time, more than the limit of %v", used.Round(time.Millisecond), limit)
	}
	if describing {
		msg = fmt.Sprintf("the policy panicked, and describing its panic value (its own Error or String method) used %v of CPU time, more than the limit of %v",
			used.Round(time.Millisecond), limit)
		if step < 0 {
			msg = "while initialising the policy's package-level variables, " + msg
		}
	}
	WriteFrame(s.out, MsgError, EncodeError(&ErrorReply{Kind: KindTimeout, Agent: agent, Step: step, Message: msg}))
	s.opt.Exit(ExitTimeout)
}

// replica builds (or reuses) the environment of an episode and resets it.
func (s *server) replica(ep *Episode) error {
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%d\x00%d\x00%v", ep.Game, ep.MapName, ep.MapText, ep.NumAgents, ep.MaxSteps, ep.Params)
	if key != s.envKey || s.env == nil {
		m, err := envs.ParseMap(ep.Game, ep.MapName, ep.MapText)
		if err != nil {
			return err
		}
		params := ep.Params
		env, err := envs.New(envs.Config{Map: m, Agents: ep.NumAgents, MaxSteps: ep.MaxSteps, Params: &params})
		if err != nil {
			return err
		}
		s.env, s.envKey, s.view = env, key, nil
	}
	s.env.Reset(ep.Seed)
	return nil
}

// look takes a snapshot of the replica and points the View at it.
func (s *server) look() error {
	s.env.Snapshot(&s.st)
	if s.view == nil {
		var err error
		s.view, err = ssd.NewView(&s.st)
		return err
	}
	return s.view.Update(&s.st)
}

func (s *server) episode(ep *Episode) error {
	if err := s.replica(ep); err != nil {
		return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: -1, Message: "episode: " + err.Error()})
	}
	s.prog.at(-1, -1)
	restoreStdVars()
	if s.loaded.Reset != nil {
		s.wd.begin(-1, s.initLimit)
		s.wd.agent.Store(-1)
		var r *ErrorReply
		if p := protect(s.loaded.Reset); p != nil {
			r = s.report(p, -1, -1)
		}
		s.wd.end()
		if r != nil {
			r.Message = "while initialising the policy's package-level variables: " + r.Message
			return s.fail(r)
		}
	}
	if ep.Mode == SelfPlay {
		return s.selfPlay(ep)
	}
	return s.lockstep(ep)
}

// decide asks the policy for each agent's action at step t, under the
// watchdog.
func (s *server) decide(t int, agents []int, actions []int) *ErrorReply {
	s.wd.begin(t, s.stepLimit)
	defer s.wd.end()
	for k, a := range agents {
		s.prog.at(t, a)
		s.wd.agent.Store(int64(a))
		act, p := call(s.loaded.Policy, s.view, a)
		if p != nil {
			return s.report(p, a, t)
		}
		actions[k] = act
	}
	return nil
}

func (s *server) lockstep(ep *Episode) error {
	n := ep.NumAgents
	joint := make([]int, n)
	actions := make([]int, len(ep.Agents))
	for t := 0; t < ep.MaxSteps; t++ {
		typ, payload, err := s.read()
		if err != nil {
			return err
		}
		if typ != MsgStep {
			// The host moved on (another seat failed, or it was cancelled):
			// the frame is for the loop.
			s.pending, s.ptyp, s.ppay = true, typ, payload
			return nil
		}
		if t > 0 {
			if len(payload) != n {
				return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: t, Message: fmt.Sprintf("%d actions for %d agents", len(payload), n)})
			}
			for i, b := range payload {
				joint[i] = int(b)
			}
			if _, err := s.env.Step(joint); err != nil {
				return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: t, Message: "replica: " + err.Error()})
			}
		} else if len(payload) != 0 {
			return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: t, Message: "actions before the first step"})
		}
		if err := s.look(); err != nil {
			return s.fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: t, Message: err.Error()})
		}
		c0 := cpuTime()
		if r := s.decide(t, ep.Agents, actions); r != nil {
			return s.fail(r)
		}
		used := cpuTime() - c0
		s.reply = AppendActions(s.reply[:0], actions, used, s.st.Hash())
		if err := s.send(MsgActions, s.reply); err != nil {
			return err
		}
	}
	return nil
}

func (s *server) selfPlay(ep *Episode) error {
	n := ep.NumAgents
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	actions := make([]int, n)
	chunk := &Chunk{Actions: make([]byte, 0, ep.Chunk*n), Hashes: make([]uint64, 0, ep.Chunk)}
	flush := func() error {
		if len(chunk.Hashes) == 0 {
			return nil
		}
		s.reply = AppendChunk(s.reply[:0], chunk)
		chunk.Actions, chunk.Hashes = chunk.Actions[:0], chunk.Hashes[:0]
		return s.send(MsgChunk, s.reply)
	}
	// fail reports a failure after the steps played before it.
	fail := func(r *ErrorReply) error {
		if err := flush(); err != nil {
			return err
		}
		return s.fail(r)
	}
	c0 := cpuTime()
	budget, limit := time.Duration(ep.Budget), time.Duration(ep.Limit)
	for t := 0; t < ep.MaxSteps; t++ {
		if err := s.look(); err != nil {
			return fail(&ErrorReply{Kind: KindProtocol, Agent: -1, Step: t, Message: err.Error()})
		}
		if r := s.decide(t, all, actions); r != nil {
			return fail(r)
		}
		if _, err := s.env.Step(actions); err != nil {
			a := firstInvalid(actions, ep.Game)
			return fail(&ErrorReply{Kind: KindInvalidAction, Agent: a, Step: t,
				Message: fmt.Sprintf("returned %d; %s actions are 0-%d", actions[a], ep.Game, ep.Game.NumActions()-1)})
		}
		if len(chunk.Hashes) == 0 {
			chunk.First = t
		}
		for _, a := range actions {
			chunk.Actions = append(chunk.Actions, byte(a))
		}
		chunk.Hashes = append(chunk.Hashes, s.env.Hash())
		if len(chunk.Hashes) == ep.Chunk {
			if err := flush(); err != nil {
				return err
			}
		}
		// The budgets, checked every few steps: reading the CPU clock is a
		// system call. A failure here stops the episode before step t+1.
		if (budget > 0 || limit > 0) && (t%16 == 15 || t == ep.MaxSteps-1) {
			used := cpuTime() - c0
			if limit > 0 && used > limit {
				return fail(&ErrorReply{Kind: KindCPU, Agent: -1, Step: t + 1,
					Message: fmt.Sprintf("used %.1fs of CPU; the episode budget is %v", used.Seconds(), limit)})
			}
			if budget > 0 && used > budget {
				return fail(&ErrorReply{Kind: KindCost, Agent: -1, Step: t + 1,
					Message: fmt.Sprintf("used %v of CPU time in %d steps; the episode's budget is %v", used.Round(time.Millisecond), t+1, budget)})
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return s.send(MsgDone, EncodeDone(ep.MaxSteps, cpuTime()-c0))
}

func firstInvalid(actions []int, g ssd.Game) int {
	for i, a := range actions {
		if a < 0 || a >= g.NumActions() {
			return i
		}
	}
	return 0
}

// watchdog ends a step that uses more CPU time than its limit. It
// samples the process's CPU clock a few times per limit while a step runs
// (the loop bumps a counter per step, which costs nothing): a step seen
// running across samples that span more than the limit of CPU time has
// used at least that much.
type watchdog struct {
	fire func(still func() bool, step, agent int, describing bool, used, limit time.Duration)

	running    atomic.Bool
	tick       atomic.Int64 // bumped when a step starts
	limit      atomic.Int64 // the running step's limit; 0: none
	step       atomic.Int64
	agent      atomic.Int64 // the agent being asked
	describing atomic.Bool  // the step's panic is being described
	wake       chan struct{}
}

func newWatchdog(fire func(func() bool, int, int, bool, time.Duration, time.Duration)) *watchdog {
	w := &watchdog{fire: fire, wake: make(chan struct{}, 1)}
	go w.run()
	return w
}

// begin starts watching a step (or, at step -1, the re-initialisation)
// with the given limit (0: none).
func (w *watchdog) begin(step int, limit time.Duration) { w.watch(step, limit, false) }

// describe goes on watching the step, now describing its panic, with a
// fresh window of the step's limit.
func (w *watchdog) describe() {
	w.watch(int(w.step.Load()), time.Duration(w.limit.Load()), true)
}

func (w *watchdog) watch(step int, limit time.Duration, describing bool) {
	w.step.Store(int64(step))
	w.limit.Store(int64(limit))
	w.describing.Store(describing)
	w.tick.Add(1)
	if limit > 0 && !w.running.Swap(true) {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

func (w *watchdog) end() { w.running.Store(false) }

func (w *watchdog) run() {
	for range w.wake {
		seen, since := int64(-1), time.Duration(0)
		for w.running.Load() {
			tick, now, limit := w.tick.Load(), cpuTime(), time.Duration(w.limit.Load())
			switch {
			case tick != seen:
				seen, since = tick, now
			case limit > 0 && now-since > limit:
				still := func() bool { return w.running.Load() && w.tick.Load() == tick }
				w.fire(still, int(w.step.Load()), int(w.agent.Load()), w.describing.Load(), now-since, limit)
				seen = -1 // it did not fire: the step ended
			}
			// Sampling a tenth of the limit (1-20 ms) catches a runaway
			// step within about 10% of its limit plus the scheduler's
			// preemption delay.
			time.Sleep(min(max(limit/10, time.Millisecond), 20*time.Millisecond))
		}
	}
}

// report describes a panic of the policy at step (-1: while
// re-initialising) for agent, under the watchdog, which is watching that
// step: describing the panic value may call the policy's own Error or
// String method, policy code that may never return. It gets a fresh
// window of the step's limit (the policy's step ended with the panic),
// and the watchdog's report says what it was doing. The caller ends the
// watch.
func (s *server) report(p *recovered, agent, step int) *ErrorReply {
	s.wd.describe()
	return p.report(agent, step, s.opt.PanicLine)
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

// protect runs f and recovers its panic.
func protect(f func()) (p *recovered) {
	defer func() {
		if r := recover(); r != nil {
			var pcs [64]uintptr
			n := runtime.Callers(2, pcs[:])
			p = &recovered{value: r, callers: pcs[:n]}
		}
	}()
	f()
	return nil
}

// report describes the panic, in at most about MaxMessage bytes however
// large the panic value.
func (p *recovered) report(agent, step int, panicLine func(any, []uintptr) int) *ErrorReply {
	line := 0
	if panicLine != nil {
		line = panicLine(p.value, p.callers)
	}
	return &ErrorReply{Kind: KindPanic, Agent: agent, Step: step, Line: line, Message: describeSafely(p.value)}
}

// describeSafely is describe, for a value whose own methods may panic in
// turn.
func describeSafely(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("a value of type %T, whose Error or String method panicked in turn", v)
		}
	}()
	return describe(v)
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

// Main serves over file descriptors 3 (requests) and 4 (replies) with a
// compiled-in policy and its reset (nil when it keeps no package-level
// state), then exits: status 0 after a clean end, 1 after a reported
// failure.
func Main(policy Policy, reset func()) {
	in := os.NewFile(3, "requests")
	out := os.NewFile(4, "replies")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "policy worker: file descriptors 3 and 4 are not open; this program is started by policyevolve")
		os.Exit(2)
	}
	err := Serve(bufio.NewReader(in), out, Options{
		Load:      func(*Hello) (Loaded, error) { return Loaded{Policy: policy, Reset: reset}, nil },
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
