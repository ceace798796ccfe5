package envs

import "math/bits"

// RNG is a re-implementation of numpy's default generator
// (numpy.random.default_rng(seed): SeedSequence seeding a PCG64 bit
// generator, drawn through Generator), restricted to the calls the
// reference environments make: Random, Integers and Shuffle. Every value
// matches numpy 1.24 bit for bit, including the order in which 32-bit
// draws consume the buffered half of a 64-bit output.
//
// The zero value is not usable; create one with NewRNG. An RNG is not safe
// for concurrent use.
type RNG struct {
	hi, lo       uint64 // 128-bit LCG state
	incHi, incLo uint64 // 128-bit LCG increment (odd)
	hasUint32    bool   // a buffered upper half is available
	uinteger     uint32 // the buffered upper half of the last 64-bit output
}

// PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128).
const (
	pcgMulHi = 0x2360ed051fc65da4
	pcgMulLo = 0x4385df649fccf645
)

// NewRNG returns the generator numpy.random.default_rng(seed) returns.
func NewRNG(seed uint64) *RNG {
	r := &RNG{}
	r.Seed(seed)
	return r
}

// Seed resets r to the state numpy.random.default_rng(seed) starts in.
func (r *RNG) Seed(seed uint64) {
	s := seedSequenceState(seed)
	// pcg64_set_seed: state = (s[0] << 64) | s[1], inc = (s[2] << 64) | s[3];
	// then pcg_setseq_128_srandom_r.
	initHi, initLo := s[0], s[1]
	seqHi, seqLo := s[2], s[3]
	r.hi, r.lo = 0, 0
	// inc = (initseq << 1) | 1
	r.incHi = seqHi<<1 | seqLo>>63
	r.incLo = seqLo<<1 | 1
	r.step()
	var carry uint64
	r.lo, carry = bits.Add64(r.lo, initLo, 0)
	r.hi, _ = bits.Add64(r.hi, initHi, carry)
	r.step()
	r.hasUint32 = false
	r.uinteger = 0
}

// step advances the LCG: state = state*mul + inc (mod 2^128).
func (r *RNG) step() {
	hi, lo := bits.Mul64(r.lo, pcgMulLo)
	hi += r.hi*pcgMulLo + r.lo*pcgMulHi
	var carry uint64
	lo, carry = bits.Add64(lo, r.incLo, 0)
	hi, _ = bits.Add64(hi, r.incHi, carry)
	r.hi, r.lo = hi, lo
}

// Uint64 returns the next 64-bit output (XSL-RR of the advanced state).
func (r *RNG) Uint64() uint64 {
	r.step()
	return bits.RotateLeft64(r.hi^r.lo, -int(r.hi>>58))
}

// Uint32 returns the next 32-bit output: the low half of a fresh 64-bit
// output, or the buffered high half of the previous one.
func (r *RNG) Uint32() uint32 {
	if r.hasUint32 {
		r.hasUint32 = false
		return r.uinteger
	}
	next := r.Uint64()
	r.hasUint32 = true
	r.uinteger = uint32(next >> 32)
	return uint32(next)
}

// Random returns a float64 in [0, 1), as Generator.random().
func (r *RNG) Random() float64 {
	return float64(r.Uint64()>>11) * (1.0 / 9007199254740992.0)
}

// Integers returns a value in [0, n), as Generator.integers(n) with the
// default int64 dtype (Lemire's bounded method; 32-bit draws when n-1 fits
// in 32 bits). It panics if n <= 0, as numpy raises.
func (r *RNG) Integers(n int64) int64 {
	if n <= 0 {
		panic("envs: RNG.Integers: high <= 0")
	}
	rng := uint64(n - 1)
	switch {
	case rng == 0:
		return 0
	case rng < 0xFFFFFFFF:
		return int64(r.boundedUint32(uint32(rng)))
	case rng == 0xFFFFFFFF:
		return int64(r.Uint32())
	default:
		return int64(r.boundedUint64(rng))
	}
}

// boundedUint32 is numpy's buffered_bounded_lemire_uint32.
func (r *RNG) boundedUint32(rng uint32) uint32 {
	excl := uint64(rng) + 1
	m := uint64(r.Uint32()) * excl
	leftover := uint32(m)
	if uint64(leftover) < excl {
		threshold := uint32((uint64(0xFFFFFFFF) - uint64(rng)) % excl)
		for leftover < threshold {
			m = uint64(r.Uint32()) * excl
			leftover = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// boundedUint64 is numpy's bounded_lemire_uint64.
func (r *RNG) boundedUint64(rng uint64) uint64 {
	excl := rng + 1
	hi, lo := bits.Mul64(r.Uint64(), excl)
	if lo < excl {
		threshold := (^uint64(0) - rng) % excl
		for lo < threshold {
			hi, lo = bits.Mul64(r.Uint64(), excl)
		}
	}
	return hi
}

// interval is numpy's random_interval: a value in [0, max] by masked
// rejection sampling.
func (r *RNG) interval(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	mask := max
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	mask |= mask >> 32
	if max <= 0xFFFFFFFF {
		for {
			if v := uint64(r.Uint32()) & mask; v <= max {
				return v
			}
		}
	}
	for {
		if v := r.Uint64() & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes n elements in place as Generator.shuffle does on a
// Python list (Fisher–Yates from the end); swap exchanges elements i and j.
func (r *RNG) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i >= 1; i-- {
		j := int(r.interval(uint64(i)))
		swap(i, j)
	}
}

// SeedSequence constants (numpy/random/bit_generator.pyx).
const (
	ssInitA    = 0x43b0d7e5
	ssMultA    = 0x931e8875
	ssInitB    = 0x8b51f9dd
	ssMultB    = 0x58f38ded
	ssMixMultL = 0xca01f9dd
	ssMixMultR = 0x4973f715
	ssXShift   = 16
	ssPoolSize = 4
)

// seedSequenceState returns SeedSequence(seed).generate_state(4, uint64).
func seedSequenceState(seed uint64) [4]uint64 {
	// _coerce_to_uint32_array: little-endian 32-bit words, [0] for zero.
	entropy := []uint32{uint32(seed)}
	if seed>>32 != 0 {
		entropy = append(entropy, uint32(seed>>32))
	}

	hashConst := uint32(ssInitA)
	hashmix := func(v uint32) uint32 {
		v ^= hashConst
		hashConst *= ssMultA
		v *= hashConst
		v ^= v >> ssXShift
		return v
	}
	mix := func(x, y uint32) uint32 {
		res := ssMixMultL*x - ssMixMultR*y
		res ^= res >> ssXShift
		return res
	}

	var pool [ssPoolSize]uint32
	for i := range pool {
		var v uint32
		if i < len(entropy) {
			v = entropy[i]
		}
		pool[i] = hashmix(v)
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src]))
			}
		}
	}
	// Entropy beyond the pool size (never for a uint64 seed) would be mixed
	// in here.

	var words [8]uint32
	hc := uint32(ssInitB)
	for i := range words {
		v := pool[i%ssPoolSize]
		v ^= hc
		hc *= ssMultB
		v *= hc
		v ^= v >> ssXShift
		words[i] = v
	}
	var out [4]uint64
	for i := range out {
		out[i] = uint64(words[2*i]) | uint64(words[2*i+1])<<32
	}
	return out
}
