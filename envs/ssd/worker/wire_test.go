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

	"policyevolve/envs/ssd"
)

func testLayout() *ssd.Layout {
	l := &ssd.Layout{Game: ssd.Cleanup, Height: 3, Width: 4, NumAgents: 2, MaxSteps: 10,
		Walls:  []bool{true, true, true, true, true, false, false, true, true, true, true, true},
		Apples: []ssd.Pos{{R: 1, C: 1}}, River: []ssd.Pos{{R: 1, C: 2}}, Params: ssd.DefaultParams(ssd.Cleanup)}
	return l
}

func TestHelloRoundTrip(t *testing.T) {
	h := &Hello{Seed: 1<<63 + 5, StepTimeout: 90000, Agents: []int{1}, Layout: testLayout(), Source: []byte("package policy")}
	got, err := DecodeHello(EncodeHello(h))
	if err != nil {
		t.Fatal(err)
	}
	if got.Seed != h.Seed || got.StepTimeout != h.StepTimeout || !reflect.DeepEqual(got.Agents, h.Agents) ||
		string(got.Source) != string(h.Source) || got.Layout.Params != h.Layout.Params ||
		!reflect.DeepEqual(got.Layout.Walls, h.Layout.Walls) || !reflect.DeepEqual(got.Layout.River, h.Layout.River) {
		t.Fatalf("round trip changed the hello: %+v", got)
	}
}

func TestStepRoundTrip(t *testing.T) {
	l := testLayout()
	st := &ssd.State{Layout: l, Step: 7, Pos: []ssd.Pos{{R: 1, C: 1}, {R: 1, C: 2}}, Orient: []int{3, 1},
		Timeout: []int{0, 25}, Hits: []int{1, 0}, AppleAlive: []bool{true}, Waste: []bool{true}}
	got := &ssd.State{Layout: l}
	if err := DecodeStep(AppendStep(nil, st), got); err != nil {
		t.Fatal(err)
	}
	if got.Hash() != st.Hash() {
		t.Fatalf("round trip changed the state: %+v", got)
	}
}

func TestDecodersRefuseGarbage(t *testing.T) {
	h := EncodeHello(&Hello{Agents: []int{0}, Layout: testLayout()})
	for n := 0; n < len(h); n++ {
		if _, err := DecodeHello(h[:n]); err == nil {
			t.Fatalf("a hello cut at %d bytes was accepted", n)
		}
	}
	bad := append([]byte(nil), h...)
	bad[0] = 99 // version
	if _, err := DecodeHello(bad); err == nil || !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("got %v", err)
	}
	acts := make([]int64, 3)
	if _, err := DecodeActions(AppendActions(nil, []int{1, 2}, 0), acts); err == nil {
		t.Fatal("2 actions accepted for 3 agents")
	}
	if _, _, _, err := ReadFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}), nil); err == nil {
		t.Fatal("a 4 GiB frame was accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(EncodeHello(&Hello{Agents: []int{0, 1}, Layout: testLayout()}))
	f.Add(EncodeError(&ErrorReply{Kind: KindPanic, Agent: 1, Line: 3, Message: "boom"}))
	f.Add(AppendActions(nil, []int{1, 2}, time.Millisecond))
	f.Add(EncodeReady(Confinement{{Layer: Seccomp, Active: true, Detail: "40 calls"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeHello(b)
		DecodeError(b)
		DecodeActions(b, make([]int64, 2))
		DecodeReady(b)
		DecodeStep(b, &ssd.State{Layout: testLayout()})
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

func serve(t *testing.T, policy Policy, timeout uint32, exit func(int)) *pipeHost {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go Serve(inR, outW, Options{
		Load:      func(*Hello) (Policy, error) { return policy, nil },
		PanicLine: FileLine("wire_test.go"),
		Exit:      exit,
	})
	p := &pipeHost{t: t, in: inW, out: outR}
	p.send(MsgHello, EncodeHello(&Hello{StepTimeout: timeout, Agents: []int{0, 1}, Layout: testLayout()}))
	if typ, _ := p.recv(); typ != MsgReady {
		t.Fatalf("got %q, want ready", typ)
	}
	return p
}

func step(l *ssd.Layout, n int) []byte {
	return AppendStep(nil, &ssd.State{Layout: l, Step: n, Pos: []ssd.Pos{{R: 1, C: 1}, {R: 1, C: 2}},
		Orient: []int{0, 0}, Timeout: []int{0, 0}, Hits: []int{0, 0}, AppleAlive: []bool{true}, Waste: []bool{false}})
}

func TestServe(t *testing.T) {
	panicLine := 0
	p := serve(t, func(v *ssd.View, agent int) int {
		if v.Step() == 2 && agent == 1 {
			var m map[int]int
			_, _, panicLine, _ = runtime.Caller(0)
			m[0] = 1 // the panic's line (the one after Caller's) is reported
		}
		return v.Step()*10 + agent
	}, 0, nil)
	l := testLayout()
	p.send(MsgStep, step(l, 1))
	typ, payload := p.recv()
	acts := make([]int64, 2)
	cpu, err := DecodeActions(payload, acts)
	if typ != MsgActions || err != nil || acts[0] != 10 || acts[1] != 11 || cpu < 0 {
		t.Fatalf("got %q %v %v %v", typ, acts, cpu, err)
	}
	p.send(MsgStep, step(l, 2))
	typ, payload = p.recv()
	r, err := DecodeError(payload)
	if typ != MsgError || err != nil || r.Kind != KindPanic || r.Agent != 1 || r.Line != panicLine+1 ||
		!strings.Contains(r.Message, "assignment to entry in nil map") {
		t.Fatalf("got %q %+v", typ, r)
	}
}

// TestServeWatchdog: a step that burns more CPU time than its limit is
// reported as a timeout of the agent being asked, and the worker exits.
func TestServeWatchdog(t *testing.T) {
	exited := make(chan int, 1)
	var release atomic.Bool
	defer release.Store(true)
	p := serve(t, func(v *ssd.View, agent int) int {
		for agent == 1 && !release.Load() {
			// a runaway call
		}
		return 0
	}, 20000, func(code int) { exited <- code })
	p.send(MsgStep, step(testLayout(), 0))
	typ, payload := p.recv()
	r, _ := DecodeError(payload)
	if typ != MsgError || r.Kind != KindTimeout || r.Agent != 1 || !strings.Contains(r.Message, "more than the limit of 20ms") {
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
	p := serve(t, func(v *ssd.View, agent int) int {
		time.Sleep(300 * time.Millisecond)
		return 0
	}, 200000, func(code int) { t.Errorf("the watchdog fired (exit %d)", code) })
	p.send(MsgStep, step(testLayout(), 0))
	typ, payload := p.recv()
	cpu, err := DecodeActions(payload, make([]int64, 2))
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
