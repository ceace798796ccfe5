package ssd

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

func (h hasher) ints(vs []int) hasher {
	h = h.word(uint64(len(vs)))
	for _, v := range vs {
		h = h.word(uint64(v))
	}
	return h
}

func (h hasher) bools(vs []bool) hasher {
	h = h.word(uint64(len(vs)))
	var w uint64
	for i, v := range vs {
		if v {
			w |= 1 << (i % 64)
		}
		if i%64 == 63 {
			h, w = h.word(w), 0
		}
	}
	return h.word(w)
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
