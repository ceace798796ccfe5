package worker

import (
	"bytes"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd"
)

// testEpisode is an episode of the small Gathering map.
func testEpisode(t testing.TB, mode byte, agents []int, n, steps int) *Episode {
	t.Helper()
	m, err := envs.BuiltinMap(ssd.Gathering, "small")
	if err != nil {
		t.Fatal(err)
	}
	return &Episode{Mode: mode, Seed: 7, Agents: agents, MapName: m.Name, MapText: m.Text, Game: m.Game,
		NumAgents: n, MaxSteps: steps, Params: ssd.DefaultParams(m.Game), Chunk: 4}
}

// hostEnv is the host's copy of an episode's environment.
func hostEnv(t testing.TB, ep *Episode) *envs.Env {
	t.Helper()
	m, err := envs.ParseMap(ep.Game, ep.MapName, ep.MapText)
	if err != nil {
		t.Fatal(err)
	}
	p := ep.Params
	env, err := envs.New(envs.Config{Map: m, Agents: ep.NumAgents, MaxSteps: ep.MaxSteps, Params: &p})
	if err != nil {
		t.Fatal(err)
	}
	env.Reset(ep.Seed)
	return env
}

func TestMessagesRoundTrip(t *testing.T) {
	h := &Hello{StepTimeout: 90000, InitTimeout: 7, Source: []byte("package policy")}
	if got, err := DecodeHello(EncodeHello(h)); err != nil || !reflect.DeepEqual(got, h) {
		t.Fatalf("hello: %+v %v", got, err)
	}
	ep := testEpisode(t, SelfPlay, []int{0, 1, 2}, 3, 50)
	ep.Budget = 12345
	if got, err := DecodeEpisode(EncodeEpisode(ep)); err != nil || !reflect.DeepEqual(got, ep) {
		t.Fatalf("episode: %+v %v", got, err)
	}
	c := &Chunk{First: 8, Actions: []byte{1, 2, 3, 4, 5, 6}, Hashes: []uint64{1 << 63, 5}}
	var got Chunk
	if err := DecodeChunk(AppendChunk(nil, c), 3, &got); err != nil || !reflect.DeepEqual(&got, c) {
		t.Fatalf("chunk: %+v %v", got, err)
	}
	acts := make([]int64, 2)
	cpu, hash, err := DecodeActions(AppendActions(nil, []int{-3, 7}, time.Millisecond, 99), acts)
	if err != nil || acts[0] != -3 || acts[1] != 7 || cpu != time.Millisecond || hash != 99 {
		t.Fatalf("actions: %v %v %v %v", acts, cpu, hash, err)
	}
	r := &ErrorReply{Kind: KindPanic, Agent: 1, Step: 4, Line: 3, Message: "boom"}
	if got, err := DecodeError(EncodeError(r)); err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("error: %+v %v", got, err)
	}
	if steps, cpu, err := DecodeDone(EncodeDone(1000, time.Second)); err != nil || steps != 1000 || cpu != time.Second {
		t.Fatalf("done: %v %v %v", steps, cpu, err)
	}
}

func TestDecodersRefuseGarbage(t *testing.T) {
	ep := EncodeEpisode(testEpisode(t, Lockstep, []int{0}, 2, 5))
	for n := 0; n < len(ep); n++ {
		if _, err := DecodeEpisode(ep[:n]); err == nil {
			t.Fatalf("an episode cut at %d bytes was accepted", n)
		}
	}
	h := EncodeHello(&Hello{})
	h[0] = 99 // version
	if _, err := DecodeHello(h); err == nil || !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("got %v", err)
	}
	for _, bad := range []*Episode{
		testEpisode(t, 9, []int{0}, 2, 5),        // mode
		testEpisode(t, Lockstep, []int{2}, 2, 5), // agent out of range
		testEpisode(t, Lockstep, []int{1, 0}, 2, 5),
		testEpisode(t, Lockstep, []int{0}, 2, 0),
	} {
		if _, err := DecodeEpisode(EncodeEpisode(bad)); err == nil {
			t.Errorf("episode %+v accepted", bad)
		}
	}
	if _, _, err := DecodeActions(AppendActions(nil, []int{1, 2}, 0, 0), make([]int64, 3)); err == nil {
		t.Fatal("2 actions accepted for 3 agents")
	}
	if err := DecodeChunk(AppendChunk(nil, &Chunk{Actions: []byte{1, 2, 3}, Hashes: []uint64{1}}), 2, &Chunk{}); err == nil {
		t.Fatal("3 actions accepted for one step of 2 agents")
	}
	if _, _, _, err := ReadFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}), nil); err == nil {
		t.Fatal("a 4 GiB frame was accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(EncodeHello(&Hello{StepTimeout: 5, Source: []byte("x")}))
	f.Add(EncodeEpisode(testEpisode(f, SelfPlay, []int{0, 1}, 2, 9)))
	f.Add(EncodeError(&ErrorReply{Kind: KindPanic, Agent: 1, Line: 3, Message: "boom"}))
	f.Add(AppendActions(nil, []int{1, 2}, time.Millisecond, 3))
	f.Add(AppendChunk(nil, &Chunk{First: 1, Actions: []byte{1, 2}, Hashes: []uint64{3}}))
	f.Add(EncodeReady(Confinement{{Layer: Seccomp, Active: true, Detail: "40 calls"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeHello(b)
		DecodeEpisode(b)
		DecodeError(b)
		DecodeActions(b, make([]int64, 2))
		DecodeChunk(b, 2, &Chunk{})
		DecodeDone(b)
		DecodeReady(b)
		ReadFrame(bytes.NewReader(b), nil)
	})
}

// pipeHost drives Serve from the host side over in-memory pipes.
type pipeHost struct {
	t   *testing.T
	in  *io.PipeWriter
	out *io.PipeReader
	buf []byte
}

func (p *pipeHost) send(typ byte, payload []byte) {
	if err := WriteFrame(p.in, typ, payload); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipeHost) recv() (byte, []byte) {
	typ, payload, buf, err := ReadFrame(p.out, p.buf)
	p.buf = buf
	if err != nil {
		p.t.Fatal(err)
	}
	return typ, payload
}

func serve(t *testing.T, loaded Loaded, timeout uint32, exit func(int)) *pipeHost {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go Serve(inR, outW, Options{
		Load:      func(*Hello) (Loaded, error) { return loaded, nil },
		PanicLine: FileLine("wire_test.go"),
		Exit:      exit,
	})
	p := &pipeHost{t: t, in: inW, out: outR}
	t.Cleanup(func() { inW.Close() })
	p.send(MsgHello, EncodeHello(&Hello{StepTimeout: timeout}))
	if typ, _ := p.recv(); typ != MsgReady {
		t.Fatalf("got %q, want ready", typ)
	}
	return p
}

// greedy is the built-in collector, for a worker to serve.
func greedy(v *ssd.View, agent int) int { return v.GreedyAction(agent) }

// TestServeLockstep: a worker playing agents 1 and 2 of three, sent the
// joint actions of each step, answers what the policy answers on the
// host's own state, and hashes the same state.
func TestServeLockstep(t *testing.T) {
	p := serve(t, Loaded{Policy: greedy}, 0, nil)
	ep := testEpisode(t, Lockstep, []int{1, 2}, 3, 20)
	env := hostEnv(t, ep)
	p.send(MsgEpisode, EncodeEpisode(ep))
	var st ssd.State
	joint := make([]int, 3)
	var prev []int
	for step := 0; step < ep.MaxSteps; step++ {
		p.send(MsgStep, AppendStep(nil, prev))
		typ, payload := p.recv()
		acts := make([]int64, 2)
		_, hash, err := DecodeActions(payload, acts)
		if typ != MsgActions || err != nil {
			t.Fatalf("step %d: %q %v", step, typ, err)
		}
		env.Snapshot(&st)
		v, _ := ssd.NewView(&st)
		if hash != st.Hash() || int(acts[0]) != greedy(v, 1) || int(acts[1]) != greedy(v, 2) {
			t.Fatalf("step %d: worker %v (hash %x), host %d %d (hash %x)", step, acts, hash, greedy(v, 1), greedy(v, 2), st.Hash())
		}
		joint[0], joint[1], joint[2] = (step%4)+2, int(acts[0]), int(acts[1])
		if _, err := env.Step(joint); err != nil {
			t.Fatal(err)
		}
		prev = joint
	}
}

// TestServeSelfPlay: the worker plays a whole episode; its actions and
// hashes are those of the same policy run by the host.
func TestServeSelfPlay(t *testing.T) {
	p := serve(t, Loaded{Policy: greedy}, 0, nil)
	ep := testEpisode(t, SelfPlay, []int{0, 1, 2}, 3, 10)
	env := hostEnv(t, ep)
	p.send(MsgEpisode, EncodeEpisode(ep))
	var st ssd.State
	step := 0
	for {
		typ, payload := p.recv()
		if typ == MsgDone {
			steps, _, err := DecodeDone(payload)
			if err != nil || steps != 10 || step != 10 {
				t.Fatalf("done after %d steps: %d %v", step, steps, err)
			}
			return
		}
		var c Chunk
		if typ != MsgChunk || DecodeChunk(payload, 3, &c) != nil || c.First != step {
			t.Fatalf("got %q at step %d", typ, step)
		}
		for k := range c.Hashes {
			env.Snapshot(&st)
			v, _ := ssd.NewView(&st)
			joint := []int{greedy(v, 0), greedy(v, 1), greedy(v, 2)}
			for i, a := range joint {
				if int(c.Actions[3*k+i]) != a {
					t.Fatalf("step %d agent %d: worker %d, host %d", step, i, c.Actions[3*k+i], a)
				}
			}
			env.Step(joint)
			if env.Hash() != c.Hashes[k] {
				t.Fatalf("step %d: hashes differ", step)
			}
			step++
		}
	}
}

// TestServeResetsEveryEpisode: a policy that counts its calls in a
// package-level variable plays the same in every episode of one worker,
// because Reset runs before each.
func TestServeResetsEveryEpisode(t *testing.T) {
	calls := 0
	p := serve(t, Loaded{
		Policy: func(v *ssd.View, agent int) int { calls++; return calls % 4 },
		Reset:  func() { calls = 0 },
	}, 0, nil)
	var first []byte
	for range 3 {
		p.send(MsgEpisode, EncodeEpisode(testEpisode(t, SelfPlay, []int{0, 1}, 2, 4)))
		var c Chunk
		typ, payload := p.recv()
		if typ != MsgChunk || DecodeChunk(payload, 2, &c) != nil {
			t.Fatalf("got %q", typ)
		}
		if first == nil {
			first = append([]byte(nil), c.Actions...)
		} else if !bytes.Equal(first, c.Actions) {
			t.Fatalf("episode actions %v after %v: state leaked across episodes", c.Actions, first)
		}
		if typ, _ := p.recv(); typ != MsgDone {
			t.Fatalf("got %q, want done", typ)
		}
	}
}

// TestServeAbandonedLockstep: the host may start the next episode before
// the last one ended.
func TestServeAbandonedLockstep(t *testing.T) {
	p := serve(t, Loaded{Policy: greedy}, 0, nil)
	for range 2 {
		p.send(MsgEpisode, EncodeEpisode(testEpisode(t, Lockstep, []int{0}, 1, 100)))
		p.send(MsgStep, nil)
		if typ, _ := p.recv(); typ != MsgActions {
			t.Fatalf("got %q", typ)
		}
	}
	p.send(MsgQuit, nil)
}

func TestServePanic(t *testing.T) {
	panicLine := 0
	p := serve(t, Loaded{Policy: func(v *ssd.View, agent int) int {
		if v.Step() == 2 && agent == 1 {
			var m map[int]int
			_, _, panicLine, _ = runtime.Caller(0)
			//lint:ignore SA5000 the test needs a panic in the policy
			m[0] = 1 // the panic's line (two after Caller's) is reported
		}
		return 0
	}}, 0, nil)
	p.send(MsgEpisode, EncodeEpisode(testEpisode(t, SelfPlay, []int{0, 1}, 2, 10)))
	typ, payload := p.recv()
	for typ == MsgChunk {
		typ, payload = p.recv()
	}
	r, err := DecodeError(payload)
	if typ != MsgError || err != nil || r.Kind != KindPanic || r.Agent != 1 || r.Step != 2 || r.Line != panicLine+2 ||
		!strings.Contains(r.Message, "assignment to entry in nil map") {
		t.Fatalf("got %q %+v", typ, r)
	}
}

func TestServeInvalidActionAndCost(t *testing.T) {
	p := serve(t, Loaded{Policy: func(v *ssd.View, agent int) int { return 9 }}, 0, nil)
	p.send(MsgEpisode, EncodeEpisode(testEpisode(t, SelfPlay, []int{0, 1}, 2, 10)))
	typ, payload := p.recv()
	if r, _ := DecodeError(payload); typ != MsgError || r.Kind != KindInvalidAction || r.Agent != 0 || r.Step != 0 {
		t.Fatalf("got %q %+v", typ, r)
	}

	p = serve(t, Loaded{Policy: func(v *ssd.View, agent int) int {
		for start := time.Now(); time.Since(start) < time.Millisecond; {
		}
		return 0
	}}, 0, nil)
	ep := testEpisode(t, SelfPlay, []int{0, 1}, 2, 1000)
	ep.Budget = uint64(20 * time.Millisecond)
	ep.Chunk = 1000
	p.send(MsgEpisode, EncodeEpisode(ep))
	// The steps played before it, then the failure.
	if typ, payload = p.recv(); typ == MsgChunk {
		typ, payload = p.recv()
	}
	if r, _ := DecodeError(payload); typ != MsgError || r.Kind != KindCost || !strings.Contains(r.Message, "budget is 20ms") {
		t.Fatalf("got %q %+v", typ, r)
	}
}

// TestServeWatchdog: a step that burns more CPU time than its limit is
// reported as a timeout of the agent being asked, and the worker exits.
func TestServeWatchdog(t *testing.T) {
	exited := make(chan int, 1)
	var release atomic.Bool
	defer release.Store(true)
	p := serve(t, Loaded{Policy: func(v *ssd.View, agent int) int {
		for agent == 1 && !release.Load() {
			// a runaway call
		}
		return 0
	}}, 20000, func(code int) { exited <- code })
	p.send(MsgEpisode, EncodeEpisode(testEpisode(t, Lockstep, []int{0, 1}, 2, 10)))
	p.send(MsgStep, nil)
	typ, payload := p.recv()
	r, _ := DecodeError(payload)
	if typ != MsgError || r.Kind != KindTimeout || r.Agent != 1 || r.Step != 0 || !strings.Contains(r.Message, "more than the limit of 20ms") {
		t.Fatalf("got %q %+v", typ, r)
	}
	if code := <-exited; code != ExitTimeout {
		t.Fatalf("exit %d", code)
	}
}

// TestServeWatchdogCountsCPUTime: a step that takes long in wall-clock
// time without working (as on an overloaded machine, where the worker
// waits for a core) is not a timeout; its reply carries the CPU time it
// used, not the time it took.
func TestServeWatchdogCountsCPUTime(t *testing.T) {
	p := serve(t, Loaded{Policy: func(v *ssd.View, agent int) int {
		time.Sleep(300 * time.Millisecond)
		return 0
	}}, 200000, func(code int) { t.Errorf("the watchdog fired (exit %d)", code) })
	p.send(MsgEpisode, EncodeEpisode(testEpisode(t, Lockstep, []int{0}, 1, 10)))
	p.send(MsgStep, nil)
	typ, payload := p.recv()
	cpu, _, err := DecodeActions(payload, make([]int64, 1))
	if typ != MsgActions || err != nil || cpu >= 200*time.Millisecond {
		t.Fatalf("got %q, cpu %v, %v", typ, cpu, err)
	}
}

func TestParseLimits(t *testing.T) {
	l := Limits{AddressSpace: 1 << 30, CPUSeconds: 60, Stack: 64 << 20, NoFile: 16, NProc: 32, Confine: Seccomp | Landlock, Early: true}
	got, err := ParseLimits(l.String())
	if err != nil || got != l {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "as=", "as=-1", "heap=5", "as=1;cpu=2", "confine=seccomp+chroot"} {
		if _, err := ParseLimits(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestServeInitTimeout: re-initialising the policy's state before an
// episode is watched too.
func TestServeInitTimeout(t *testing.T) {
	exited := make(chan int, 1)
	var release atomic.Bool
	defer release.Store(true)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go Serve(inR, outW, Options{
		Load: func(*Hello) (Loaded, error) {
			return Loaded{Policy: greedy, Reset: func() {
				for !release.Load() {
				}
			}}, nil
		},
		Exit: func(code int) { exited <- code },
	})
	p := &pipeHost{t: t, in: inW, out: outR}
	t.Cleanup(func() { inW.Close() })
	p.send(MsgHello, EncodeHello(&Hello{StepTimeout: 1000, InitTimeout: 30000}))
	if typ, _ := p.recv(); typ != MsgReady {
		t.Fatalf("got %q", typ)
	}
	p.send(MsgEpisode, EncodeEpisode(testEpisode(t, SelfPlay, []int{0}, 1, 5)))
	typ, payload := p.recv()
	r, _ := DecodeError(payload)
	if typ != MsgError || r.Kind != KindTimeout || r.Step != -1 || !strings.Contains(r.Message, "initialising the policy's package-level variables used") {
		t.Fatalf("got %q %+v", typ, r)
	}
	if code := <-exited; code != ExitTimeout {
		t.Fatalf("exit %d", code)
	}
}
