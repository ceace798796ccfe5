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
const Version = 3

// Message types. Host to worker: Hello once; then, for every episode,
// Episode and (lockstep mode) one Step per step; Quit at the end. Worker to
// host: Ready (with its confinement) after Hello; in lockstep mode Actions
// after each Step; in self-play mode Chunks of the episode and Done; or
// Error, after which the worker exits.
const (
	MsgHello   byte = 'H'
	MsgEpisode byte = 'P'
	MsgStep    byte = 'S'
	MsgQuit    byte = 'Q'
	MsgReady   byte = 'R'
	MsgActions byte = 'A'
	MsgChunk   byte = 'C'
	MsgDone    byte = 'D'
	MsgError   byte = 'E'
)

// Kinds of Error a worker reports.
const (
	KindPanic         byte = 1 // the policy panicked
	KindTimeout       byte = 2 // the watchdog stopped a step that used too much CPU time
	KindCompile       byte = 3 // the worker could not load the policy (yaegi)
	KindProtocol      byte = 4 // the worker could not understand the host
	KindCost          byte = 5 // the episode used more CPU time than its budget
	KindInvalidAction byte = 6 // the policy returned an action outside the game's range
	KindCPU           byte = 7 // the episode used more CPU time than its hard limit
)

// Episode modes.
const (
	// Lockstep: the host sends every step the joint actions of the step
	// before; the worker steps its replica and answers its agents'
	// actions. For matches, where other seats play other policies.
	Lockstep byte = 1
	// SelfPlay: the worker plays the whole episode on its replica (its
	// policy plays every agent) and reports the actions and the replica's
	// hash after every step; the host replays them.
	SelfPlay byte = 2
)

// MaxFrame bounds a frame, so that a corrupt length cannot make either side
// allocate without limit.
const MaxFrame = 16 << 20

// ErrProtocol marks a malformed frame.
var ErrProtocol = errors.New("protocol error")

// Hello loads a worker's policy.
type Hello struct {
	StepTimeout uint32 // microseconds of CPU time one step may use before the watchdog fires; 0 = none
	// InitTimeout is the same for re-initialising the policy's
	// package-level state before an episode.
	InitTimeout uint32
	Source      []byte // policy source, for interpreting workers; empty for compiled ones
}

// Episode starts an episode: the environment to replicate, the agents the
// worker plays, and how.
type Episode struct {
	Mode                byte
	Seed                uint64
	Agents              []int // ascending; in SelfPlay every agent
	MapName             string
	MapText             string
	Game                ssd.Game
	NumAgents, MaxSteps int
	Params              ssd.Params
	// Budget is the CPU time the episode may cost, nanoseconds (KindCost
	// past it); Limit is its hard CPU time limit (KindCPU). 0 = none.
	Budget, Limit uint64
	// Chunk is how many steps a SelfPlay Chunk carries (at least 1).
	Chunk int
}

// Chunk is a run of self-play steps: the actions of every agent at steps
// First…First+len(Hashes)-1 and the replica's hash after each.
type Chunk struct {
	First   int
	Actions []byte // len(Hashes) × NumAgents, row per step
	Hashes  []uint64
}

// ErrorReply is a worker's report of a failure.
type ErrorReply struct {
	Kind    byte
	Agent   int // the agent whose call failed, or -1
	Step    int // the step, or -1 before the first
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

func (d *dec) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrProtocol, len(d.b))
	}
	return d.err
}

// EncodeHello returns the payload of a Hello.
func EncodeHello(h *Hello) []byte {
	e := &enc{}
	e.u16(Version)
	e.u32(h.StepTimeout)
	e.u32(h.InitTimeout)
	e.bytes(h.Source)
	return e.b
}

// DecodeHello parses a Hello payload.
func DecodeHello(b []byte) (*Hello, error) {
	d := &dec{b: b}
	if v := d.u16(); v != Version && d.err == nil {
		return nil, fmt.Errorf("%w: protocol version %d, worker speaks %d", ErrProtocol, v, Version)
	}
	h := &Hello{StepTimeout: d.u32(), InitTimeout: d.u32(), Source: append([]byte(nil), d.bytes()...)}
	return h, d.done()
}

// EncodeEpisode returns the payload of an Episode.
func EncodeEpisode(p *Episode) []byte {
	e := &enc{}
	e.u8(p.Mode)
	e.u64(p.Seed)
	e.u32(uint32(len(p.Agents)))
	for _, a := range p.Agents {
		e.i32(a)
	}
	e.bytes([]byte(p.MapName))
	e.bytes([]byte(p.MapText))
	e.u8(byte(p.Game))
	e.u32(uint32(p.NumAgents))
	e.u32(uint32(p.MaxSteps))
	q := p.Params
	for _, v := range []int{q.BeamLength, q.BeamWidth, q.HitsToTag, q.TimeoutSteps, q.AppleRespawnTime} {
		e.i32(v)
	}
	for _, v := range []float64{q.FireCost, q.FirePenalty, q.CleanCost, q.ThresholdDepletion,
		q.ThresholdRestoration, q.WasteSpawnProb, q.AppleRespawnProb} {
		e.f64(v)
	}
	e.u64(p.Budget)
	e.u64(p.Limit)
	e.u32(uint32(p.Chunk))
	return e.b
}

// DecodeEpisode parses an Episode payload.
func DecodeEpisode(b []byte) (*Episode, error) {
	d := &dec{b: b}
	p := &Episode{Mode: d.u8(), Seed: d.u64()}
	n := d.count(4)
	p.Agents = make([]int, n)
	for i := range p.Agents {
		p.Agents[i] = d.i32()
	}
	p.MapName, p.MapText = string(d.bytes()), string(d.bytes())
	p.Game = ssd.Game(d.u8())
	p.NumAgents, p.MaxSteps = int(d.u32()), int(d.u32())
	q := &p.Params
	for _, v := range []*int{&q.BeamLength, &q.BeamWidth, &q.HitsToTag, &q.TimeoutSteps, &q.AppleRespawnTime} {
		*v = d.i32()
	}
	for _, v := range []*float64{&q.FireCost, &q.FirePenalty, &q.CleanCost, &q.ThresholdDepletion,
		&q.ThresholdRestoration, &q.WasteSpawnProb, &q.AppleRespawnProb} {
		*v = d.f64()
	}
	p.Budget, p.Limit, p.Chunk = d.u64(), d.u64(), int(d.u32())
	if err := d.done(); err != nil {
		return nil, err
	}
	switch {
	case p.Mode != Lockstep && p.Mode != SelfPlay:
		return nil, fmt.Errorf("%w: episode mode %d", ErrProtocol, p.Mode)
	case p.NumAgents < 1 || p.NumAgents > 1<<16 || p.MaxSteps < 1 || p.MaxSteps > 1<<24 || p.Chunk < 1:
		return nil, fmt.Errorf("%w: episode of %d agents, %d steps, chunks of %d", ErrProtocol, p.NumAgents, p.MaxSteps, p.Chunk)
	}
	for i, a := range p.Agents {
		if a < 0 || a >= p.NumAgents || (i > 0 && a <= p.Agents[i-1]) {
			return nil, fmt.Errorf("%w: agents %v of %d", ErrProtocol, p.Agents, p.NumAgents)
		}
	}
	return p, nil
}

// AppendStep appends the payload of a Step: the actions of every agent at
// the step before (none before the first step). Actions are 0-255.
func AppendStep(buf []byte, prev []int) []byte {
	for _, a := range prev {
		buf = append(buf, byte(a))
	}
	return buf
}

// AppendActions appends the payload of an Actions reply: the actions, the
// CPU time the step took, and the hash of the replica's state the actions
// were chosen in.
func AppendActions(buf []byte, actions []int, cpu time.Duration, hash uint64) []byte {
	e := &enc{b: buf}
	e.u32(uint32(len(actions)))
	for _, a := range actions {
		e.u64(uint64(int64(a)))
	}
	e.u64(uint64(max(cpu, 0)))
	e.u64(hash)
	return e.b
}

// DecodeActions parses an Actions reply of exactly len(dst) actions into
// dst and returns the CPU time the step took and the replica's hash.
func DecodeActions(b []byte, dst []int64) (time.Duration, uint64, error) {
	d := &dec{b: b}
	if n := d.count(8); n != len(dst) && d.err == nil {
		return 0, 0, fmt.Errorf("%w: %d actions for %d agents", ErrProtocol, n, len(dst))
	}
	for i := range dst {
		dst[i] = int64(d.u64())
	}
	cpu, hash := time.Duration(d.u64()), d.u64()
	return cpu, hash, d.done()
}

// AppendChunk appends the payload of a Chunk.
func AppendChunk(buf []byte, c *Chunk) []byte {
	e := &enc{b: buf}
	e.u32(uint32(c.First))
	e.u32(uint32(len(c.Hashes)))
	e.bytes(c.Actions)
	for _, h := range c.Hashes {
		e.u64(h)
	}
	return e.b
}

// DecodeChunk parses a Chunk of steps of n agents into c, reusing its
// slices.
func DecodeChunk(b []byte, n int, c *Chunk) error {
	d := &dec{b: b}
	c.First = int(d.u32())
	k := int(d.u32())
	acts := d.bytes()
	if d.err != nil {
		return d.err
	}
	if k < 0 || k > 1<<24 || len(acts) != k*n || 8*k != len(d.b) {
		return fmt.Errorf("%w: chunk of %d steps with %d actions for %d agents", ErrProtocol, k, len(acts), n)
	}
	c.Actions = append(c.Actions[:0], acts...)
	c.Hashes = c.Hashes[:0]
	for range k {
		c.Hashes = append(c.Hashes, d.u64())
	}
	return d.done()
}

// EncodeDone returns the payload of a Done: steps played and the CPU
// time they took.
func EncodeDone(steps int, cpu time.Duration) []byte {
	e := &enc{}
	e.u32(uint32(steps))
	e.u64(uint64(max(cpu, 0)))
	return e.b
}

// DecodeDone parses a Done payload.
func DecodeDone(b []byte) (int, time.Duration, error) {
	d := &dec{b: b}
	steps, cpu := int(d.u32()), time.Duration(d.u64())
	return steps, cpu, d.done()
}

// EncodeError returns the payload of an Error reply.
func EncodeError(r *ErrorReply) []byte {
	e := &enc{}
	e.u8(r.Kind)
	e.i32(r.Agent)
	e.i32(r.Step)
	e.i32(r.Line)
	e.bytes([]byte(r.Message))
	return e.b
}

// DecodeError parses an Error reply.
func DecodeError(b []byte) (*ErrorReply, error) {
	d := &dec{b: b}
	r := &ErrorReply{Kind: d.u8(), Agent: d.i32(), Step: d.i32(), Line: d.i32(), Message: string(d.bytes())}
	return r, d.done()
}
