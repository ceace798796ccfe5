package ssd

import "testing"

// TestHashSeesEveryChange: changing any one element of a state — a
// position, an orientation, a timeout, a hit count, an apple or a waste
// cell, at every index (odd counts, more than 64 cells) — changes its
// hash; so does moving a value between slices of equal length.
func TestHashSeesEveryChange(t *testing.T) {
	base := func() *State {
		s := &State{Step: 7, Pos: make([]Pos, 5), Orient: make([]int, 5), Timeout: make([]int, 5), Hits: make([]int, 5),
			AppleAlive: make([]bool, 131), Waste: make([]bool, 67)}
		for i := range s.Pos {
			s.Pos[i] = Pos{R: i, C: 2 * i}
			s.Orient[i] = i % 4
			s.Timeout[i] = i
			s.Hits[i] = 3 * i
		}
		for i := range s.AppleAlive {
			s.AppleAlive[i] = i%3 == 0
		}
		for i := range s.Waste {
			s.Waste[i] = i%5 == 1
		}
		return s
	}
	h0 := base().Hash()
	seen := map[uint64]string{h0: "the base state"}
	check := func(what string, s *State) {
		t.Helper()
		h := s.Hash()
		if prev, ok := seen[h]; ok {
			t.Fatalf("%s has the hash of %s", what, prev)
		}
		seen[h] = what
	}
	for i := range 5 {
		s := base()
		s.Pos[i].C++
		check("a moved agent", s)
		s = base()
		s.Orient[i] = (s.Orient[i] + 1) % 4
		check("a turned agent", s)
		s = base()
		s.Timeout[i] += 1 << 32 // beyond the 32 bits an int is folded in
		check("a timeout beyond 32 bits", s)
		s = base()
		s.Hits[i]++
		check("a hit", s)
	}
	for i := range 131 {
		s := base()
		s.AppleAlive[i] = !s.AppleAlive[i]
		check("a flipped apple", s)
	}
	for i := range 67 {
		s := base()
		s.Waste[i] = !s.Waste[i]
		check("a flipped waste cell", s)
	}
	s := base()
	s.Timeout, s.Hits = s.Hits, s.Timeout
	check("timeouts and hits swapped", s)
	s = base()
	s.Step++
	check("the next step", s)
}
