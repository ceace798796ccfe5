package ssd

import "math/bits"

// hasher folds 64-bit words FNV-style, a word at a time, with a
// rotation so that every bit of a word reaches every bit of the hash:
// cheap (the host and the worker hash the environment every step),
// allocation-free, and enough to notice that a state changed (it is no
// defence against collisions crafted on purpose, which nothing here
// needs: a policy never sees the hash it must match).
type hasher uint64

const (
	fnvOffset hasher = 14695981039346656037
	fnvPrime  hasher = 1099511628211
)

func (h hasher) word(v uint64) hasher {
	h = (h ^ hasher(v)) * fnvPrime
	return h ^ h>>29
}

func (h hasher) bools(vs []bool) hasher {
	h = h.word(uint64(len(vs)))
	for len(vs) >= 64 {
		h, vs = h.word(pack(vs[:64])), vs[64:]
	}
	return h.word(pack(vs))
}

// pack sets bit i of a word for each true vs[i] (len(vs) <= 64), without
// a branch per element: apples' states are too irregular to predict.
func pack(vs []bool) uint64 {
	var w uint64
	for i, v := range vs {
		w |= b2u(v) << (i & 63)
	}
	return w
}

func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// ints folds ints two to a word, the second rotated by 32 bits: the
// small numbers of a state (orientations, timeouts, counts) do not
// overlap, and a change of either always changes the word. Half the
// chain of multiplications.
func (h hasher) ints(vs []int) hasher {
	h = h.word(uint64(len(vs)))
	for len(vs) >= 2 {
		h, vs = h.word(uint64(vs[0])^bits.RotateLeft64(uint64(vs[1]), 32)), vs[2:]
	}
	if len(vs) == 1 {
		h = h.word(uint64(vs[0]))
	}
	return h
}

func (h hasher) cells(ps []Pos) hasher {
	h = h.word(uint64(len(ps)))
	for _, p := range ps {
		h = h.word(uint64(p.R)<<32 | uint64(uint32(p.C)))
	}
	return h
}

// HashState folds the dynamic parts of a game state into a 64-bit hash;
// the environment and State.Hash use it alike.
func HashState(step int, pos []Pos, orient, timeout, hits []int, apples, waste []bool, extra ...uint64) uint64 {
	h := fnvOffset.word(uint64(step)).cells(pos).ints(orient).ints(timeout).ints(hits).bools(apples).bools(waste)
	for _, e := range extra {
		h = h.word(e)
	}
	return uint64(h)
}

// Hash returns a hash of the snapshot's dynamic state (not its Layout).
func (s *State) Hash() uint64 {
	return HashState(s.Step, s.Pos, s.Orient, s.Timeout, s.Hits, s.AppleAlive, s.Waste)
}
