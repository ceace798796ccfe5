package worker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"policyevolve/envs/ssd"
)

// Version is the protocol version; a worker refuses a Hello of another.
const Version = 2

// Message types. Host to worker: Hello once, then Step per step, then
// Quit. Worker to host: Ready (with the worker's confinement) after Hello,
// Actions (with the step's CPU time) after each Step, or Error once, after
// which the worker exits.
const (
	MsgHello   byte = 'H'
	MsgStep    byte = 'S'
	MsgQuit    byte = 'Q'
	MsgReady   byte = 'R'
	MsgActions byte = 'A'
	MsgError   byte = 'E'
)

// Kinds of Error a worker reports.
const (
	KindPanic    byte = 1 // the policy panicked
	KindTimeout  byte = 2 // the worker's watchdog stopped a runaway step
	KindCompile  byte = 3 // the worker could not load the policy (yaegi)
	KindProtocol byte = 4 // the worker could not understand the host
)

// MaxFrame bounds a frame, so that a corrupt length cannot make either side
// allocate without limit.
const MaxFrame = 16 << 20

// ErrProtocol marks a malformed frame.
var ErrProtocol = errors.New("protocol error")

// Hello starts an episode in a worker.
type Hello struct {
	Seed        uint64
	StepTimeout uint32 // microseconds of CPU time one step may use before the watchdog fires; 0 = none
	Agents      []int  // the agents the worker plays, ascending
	Layout      *ssd.Layout
	Source      []byte // policy source, for interpreting workers; empty for compiled ones
}

// ErrorReply is a worker's report of a failure.
type ErrorReply struct {
	Kind    byte
	Agent   int // the agent whose call failed, or -1
	Line    int // line in the policy source, or 0 when unknown
	Message string
}

// WriteFrame writes one frame: a little-endian uint32 length, the type
// byte and the payload.
func WriteFrame(w io.Writer, typ byte, payload []byte) error {
	buf := make([]byte, 5+len(payload))
	binary.LittleEndian.PutUint32(buf, uint32(1+len(payload)))
	buf[4] = typ
	copy(buf[5:], payload)
	_, err := w.Write(buf)
	return err
}

// ReadFrame reads one frame into buf (grown as needed) and returns its type
// and payload, which aliases buf.
func ReadFrame(r io.Reader, buf []byte) (byte, []byte, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, buf, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n < 1 || n > MaxFrame {
		return 0, nil, buf, fmt.Errorf("%w: frame length %d", ErrProtocol, n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, buf, err
	}
	return buf[0], buf[1:], buf, nil
}

// enc appends little-endian values.
type enc struct{ b []byte }

func (e *enc) u8(v byte)    { e.b = append(e.b, v) }
func (e *enc) u16(v int)    { e.b = binary.LittleEndian.AppendUint16(e.b, uint16(v)) }
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) i32(v int)    { e.u32(uint32(int32(v))) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) f64(v float64) {
	e.u64(math.Float64bits(v))
}
func (e *enc) bytes(v []byte) { e.u32(uint32(len(v))); e.b = append(e.b, v...) }
func (e *enc) bits(v []bool) {
	start := len(e.b)
	e.b = append(e.b, make([]byte, (len(v)+7)/8)...)
	for i, x := range v {
		if x {
			e.b[start+i/8] |= 1 << (i % 8)
		}
	}
}
func (e *enc) cells(ps []ssd.Pos) {
	e.u32(uint32(len(ps)))
	for _, p := range ps {
		e.u16(p.R)
		e.u16(p.C)
	}
}

// dec reads little-endian values; the first overrun sets err and every
// later read returns zero.
type dec struct {
	b   []byte
	err error
}

func (d *dec) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b) < n {
		d.err = fmt.Errorf("%w: truncated message", ErrProtocol)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) u8() byte {
	if v := d.take(1); v != nil {
		return v[0]
	}
	return 0
}
func (d *dec) u16() int {
	if v := d.take(2); v != nil {
		return int(binary.LittleEndian.Uint16(v))
	}
	return 0
}
func (d *dec) u32() uint32 {
	if v := d.take(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}
func (d *dec) i32() int { return int(int32(d.u32())) }
func (d *dec) u64() uint64 {
	if v := d.take(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}
func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

// count reads a length and checks that at least unit*length bytes follow.
func (d *dec) count(unit int) int {
	n := int(d.u32())
	if d.err == nil && n*unit > len(d.b) {
		d.err = fmt.Errorf("%w: length %d exceeds the message", ErrProtocol, n)
		return 0
	}
	return n
}
func (d *dec) bytes() []byte { return d.take(d.count(1)) }
func (d *dec) bits(dst []bool) {
	raw := d.take((len(dst) + 7) / 8)
	if raw == nil {
		return
	}
	for i := range dst {
		dst[i] = raw[i/8]&(1<<(i%8)) != 0
	}
}
func (d *dec) cells() []ssd.Pos {
	n := d.count(4)
	out := make([]ssd.Pos, n)
	for i := range out {
		out[i] = ssd.Pos{R: d.u16(), C: d.u16()}
	}
	return out
}

func (d *dec) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrProtocol, len(d.b))
	}
	return d.err
}

// EncodeHello returns the payload of a Hello.
func EncodeHello(h *Hello) []byte {
	l := h.Layout
	p := l.Params
	e := &enc{}
	e.u16(Version)
	e.u64(h.Seed)
	e.u32(h.StepTimeout)
	e.u32(uint32(len(h.Agents)))
	for _, a := range h.Agents {
		e.i32(a)
	}
	e.u8(byte(l.Game))
	e.u16(l.Height)
	e.u16(l.Width)
	e.u16(l.NumAgents)
	e.u32(uint32(l.MaxSteps))
	for _, v := range []int{p.BeamLength, p.BeamWidth, p.HitsToTag, p.TimeoutSteps, p.AppleRespawnTime} {
		e.i32(v)
	}
	for _, v := range []float64{p.FireCost, p.FirePenalty, p.CleanCost, p.ThresholdDepletion,
		p.ThresholdRestoration, p.WasteSpawnProb, p.AppleRespawnProb} {
		e.f64(v)
	}
	e.bits(l.Walls)
	e.cells(l.Apples)
	e.cells(l.River)
	e.cells(l.Stream)
	e.bytes(h.Source)
	return e.b
}

// DecodeHello parses a Hello payload; the Layout it returns is checked.
func DecodeHello(b []byte) (*Hello, error) {
	d := &dec{b: b}
	if v := d.u16(); v != Version && d.err == nil {
		return nil, fmt.Errorf("%w: protocol version %d, worker speaks %d", ErrProtocol, v, Version)
	}
	h := &Hello{Seed: d.u64(), StepTimeout: d.u32()}
	n := d.count(4)
	h.Agents = make([]int, n)
	for i := range h.Agents {
		h.Agents[i] = d.i32()
	}
	l := &ssd.Layout{Game: ssd.Game(d.u8()), Height: d.u16(), Width: d.u16(), NumAgents: d.u16(), MaxSteps: int(d.u32())}
	p := &l.Params
	for _, v := range []*int{&p.BeamLength, &p.BeamWidth, &p.HitsToTag, &p.TimeoutSteps, &p.AppleRespawnTime} {
		*v = d.i32()
	}
	for _, v := range []*float64{&p.FireCost, &p.FirePenalty, &p.CleanCost, &p.ThresholdDepletion,
		&p.ThresholdRestoration, &p.WasteSpawnProb, &p.AppleRespawnProb} {
		*v = d.f64()
	}
	if d.err == nil && l.Height*l.Width > 1<<24 {
		return nil, fmt.Errorf("%w: grid %dx%d", ErrProtocol, l.Height, l.Width)
	}
	l.Walls = make([]bool, l.Height*l.Width)
	d.bits(l.Walls)
	l.Apples = d.cells()
	l.River = d.cells()
	l.Stream = d.cells()
	h.Source = append([]byte(nil), d.bytes()...)
	if err := d.done(); err != nil {
		return nil, err
	}
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	for _, a := range h.Agents {
		if a < 0 || a >= l.NumAgents {
			return nil, fmt.Errorf("%w: agent %d of %d", ErrProtocol, a, l.NumAgents)
		}
	}
	h.Layout = l
	return h, nil
}

// AppendStep appends the payload of a Step carrying st to buf.
func AppendStep(buf []byte, st *ssd.State) []byte {
	e := &enc{b: buf}
	e.u32(uint32(st.Step))
	for i, p := range st.Pos {
		e.u16(p.R)
		e.u16(p.C)
		e.u8(byte(st.Orient[i]))
		e.u32(uint32(st.Timeout[i]))
		e.u32(uint32(st.Hits[i]))
	}
	e.bits(st.AppleAlive)
	e.bits(st.Waste)
	return e.b
}

// DecodeStep parses a Step payload into st, whose Layout must be set; its
// slices are reused.
func DecodeStep(b []byte, st *ssd.State) error {
	l := st.Layout
	n := l.NumAgents
	d := &dec{b: b}
	st.Step = int(d.u32())
	st.Pos = resize(st.Pos, n)
	st.Orient = resize(st.Orient, n)
	st.Timeout = resize(st.Timeout, n)
	st.Hits = resize(st.Hits, n)
	for i := 0; i < n; i++ {
		st.Pos[i] = ssd.Pos{R: d.u16(), C: d.u16()}
		st.Orient[i] = int(d.u8())
		st.Timeout[i] = int(d.u32())
		st.Hits[i] = int(d.u32())
	}
	st.AppleAlive = resize(st.AppleAlive, len(l.Apples))
	st.Waste = resize(st.Waste, len(l.River))
	d.bits(st.AppleAlive)
	d.bits(st.Waste)
	return d.done()
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// AppendActions appends the payload of an Actions reply: the actions, and
// the CPU time the step took.
func AppendActions(buf []byte, actions []int, cpu time.Duration) []byte {
	e := &enc{b: buf}
	e.u32(uint32(len(actions)))
	for _, a := range actions {
		e.u64(uint64(int64(a)))
	}
	e.u64(uint64(max(cpu, 0)))
	return e.b
}

// DecodeActions parses an Actions reply of exactly len(dst) actions into
// dst and returns the CPU time the step took.
func DecodeActions(b []byte, dst []int64) (time.Duration, error) {
	d := &dec{b: b}
	if n := d.count(8); n != len(dst) && d.err == nil {
		return 0, fmt.Errorf("%w: %d actions for %d agents", ErrProtocol, n, len(dst))
	}
	for i := range dst {
		dst[i] = int64(d.u64())
	}
	cpu := time.Duration(d.u64())
	return cpu, d.done()
}

// EncodeError returns the payload of an Error reply.
func EncodeError(r *ErrorReply) []byte {
	e := &enc{}
	e.u8(r.Kind)
	e.i32(r.Agent)
	e.i32(r.Line)
	e.bytes([]byte(r.Message))
	return e.b
}

// DecodeError parses an Error reply.
func DecodeError(b []byte) (*ErrorReply, error) {
	d := &dec{b: b}
	r := &ErrorReply{Kind: d.u8(), Agent: d.i32(), Line: d.i32(), Message: string(d.bytes())}
	return r, d.done()
}
